/* One-to-one alignments cut where they share bases (overlaps.py decides how many bases each end gives
 * up): each end's cut found on its CIGAR, and the texts (CIGAR, cs, delta indel lines) cut there,
 * alignments on threads. A cut takes whole gap runs and stops before an `=` column, so that what is
 * left starts and ends with an identical column, and what it takes away is summed by kind (a column
 * holding an N apart: scoring.h's column_score gives it 0) with its score under the fills' scores. */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>

/* what trim_walk writes an alignment: the columns cut at the front and the back, the query and
 * reference bases they hold (front, then back), the =, X, I, D and N columns and the score they
 * held, the alignment's columns, and whether nothing is left */
enum { SKIP_FRONT, SKIP_BACK, DQ_FRONT, DR_FRONT, DQ_BACK, DR_BACK, CUT_EQ, CUT_X, CUT_I, CUT_D, CUT_N, CUT_SCORE,
       COLUMNS, EMPTIED, TRIM_FIELDS };

typedef struct {
    const char *text;
    const int64_t *offsets, *want, *q_front, *q_back, *r_front, *r_back;
    const int8_t *step; /* the query's step along PAF's columns: 1, or -1 on the reverse strand */
    const uint8_t *q, *r;
    int64_t n, nq, nr;
    int match, mismatch, gap_open, gap_extend;
    int64_t *out;
    int64_t next;
} walk_job;

/* A CIGAR's runs in place: count and op of run k, read one after another. */
typedef struct {
    const char *p, *end;
} runs;

static int next_run(runs *s, int64_t *count, char *op) {
    if (s->p >= s->end)
        return 0;
    int64_t v = 0;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
        v = v * 10 + (*s->p++ - '0');
    *count = v, *op = s->p < s->end ? *s->p++ : '=';
    return 1;
}

static int unknown(const walk_job *j, int64_t qi, int64_t ri) {
    return (qi >= 0 && qi < j->nq && j->q[qi] > 3) || (ri >= 0 && ri < j->nr && j->r[ri] > 3);
}

/* One end's cut: the runs of ops (counts cnt) walked from that end until wq query and wr reference
 * bases are taken and an `=` column comes; taken columns summed into o. qi, ri: the first base's place in
 * the codes, dq, dr: each base's step. Returns the columns taken (all: nothing is left). */
static int64_t cut_end(const walk_job *j, const int64_t *cnt, const char *ops, int64_t nruns, int64_t from, int64_t dir,
                       int64_t wq, int64_t wr, int64_t qi, int64_t dq, int64_t ri, int64_t dr, int64_t *o, int back) {
    int64_t cq = 0, cr = 0, cols = 0;
    if (wq <= 0 && wr <= 0)
        return 0;
    for (int64_t k = from; k >= 0 && k < nruns; k += dir) {
        const char op = ops[k];
        int64_t n = cnt[k];
        if (cq >= wq && cr >= wr && op == '=')
            break;
        if (op == '=') {
            int64_t take = wq - cq > wr - cr ? wq - cq : wr - cr;
            if (take > n)
                take = n;
            cq += take, cr += take, cols += take;
            o[CUT_EQ] += take, o[CUT_SCORE] += (int64_t)j->match * take;
            if (take < n)
                break; /* the rest of the run stays: it starts with `=` */
        } else if (op == 'X') {
            for (int64_t t = 0; t < n; t++, cq++, cr++) {
                const int nn = unknown(j, qi + dq * cq, ri + dr * cr);
                o[CUT_N] += nn;
                o[CUT_SCORE] -= nn ? 0 : j->mismatch;
            }
            cols += n, o[CUT_X] += n;
        } else {
            cols += n;
            o[CUT_SCORE] -= j->gap_open + (int64_t)j->gap_extend * n;
            if (op == 'I')
                cq += n, o[CUT_I] += n;
            else
                cr += n, o[CUT_D] += n;
        }
    }
    o[back ? DQ_BACK : DQ_FRONT] = cq, o[back ? DR_BACK : DR_FRONT] = cr;
    return cols;
}

static void walk_one(const walk_job *j, int64_t a) {
    int64_t *o = j->out + TRIM_FIELDS * a;
    memset(o, 0, TRIM_FIELDS * sizeof(int64_t));
    const int64_t *w = j->want + 4 * a;
    runs s = {j->text + j->offsets[a], j->text + j->offsets[a + 1]};
    int64_t nruns = 0, cap = 64, count, total = 0;
    char op;
    int64_t *cnt = malloc(cap * sizeof(int64_t));
    char *ops = malloc(cap);
    if (!cnt || !ops) {
        free(cnt), free(ops);
        o[EMPTIED] = -1; /* no memory: the caller stops */
        return;
    }
    while (next_run(&s, &count, &op)) {
        if (nruns == cap) {
            cap *= 2;
            int64_t *c2 = realloc(cnt, cap * sizeof(int64_t));
            char *o2 = c2 ? realloc(ops, cap) : NULL;
            if (!c2 || !o2) {
                free(c2 ? c2 : cnt), free(o2 ? o2 : ops);
                o[EMPTIED] = -1;
                return;
            }
            cnt = c2, ops = o2;
        }
        cnt[nruns] = count, ops[nruns++] = op;
        total += count;
    }
    o[COLUMNS] = total;
    o[SKIP_FRONT] = cut_end(j, cnt, ops, nruns, 0, 1, w[0], w[1], j->q_front[a], j->step[a], j->r_front[a], 1, o, 0);
    o[SKIP_BACK] = cut_end(j, cnt, ops, nruns, nruns - 1, -1, w[2], w[3], j->q_back[a], -j->step[a], j->r_back[a], -1,
                           o, 1);
    o[EMPTIED] = o[SKIP_FRONT] + o[SKIP_BACK] >= total;
    free(cnt), free(ops);
}

static void walk_part(void *arg, int t, int threads) {
    walk_job *j = (walk_job *)arg;
    (void)t, (void)threads;
    for (;;) {
        const int64_t a = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (a >= j->n)
            break;
        walk_one(j, a);
    }
}

PyObject *py_trim_walk(PyObject *self, PyObject *args) {
    Py_buffer b[11];
    int match, mismatch, gap_open, gap_extend, threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*iiiiw*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7],
                          &b[8], &b[9], &match, &mismatch, &gap_open, &gap_extend, &b[10], &threads))
        return NULL;
    /* b: CIGAR text, offsets (n + 1), want (4 n: query and reference bases at the front, then the back),
     * q_front, q_back, r_front, r_back (n: each end's first base in the codes), step (int8 n), q, r codes;
     * out: TRIM_FIELDS int64 an alignment */
    const int64_t n = b[3].len / 8;
    int ok = check_items(&b[1], "trim_walk", 8, n + 1) && check_items(&b[2], "trim_walk", 32, n) &&
             check_items(&b[4], "trim_walk", 8, n) && check_items(&b[5], "trim_walk", 8, n) &&
             check_items(&b[6], "trim_walk", 8, n) && check_items(&b[7], "trim_walk", 1, n) &&
             check_items(&b[10], "trim_walk", 8 * TRIM_FIELDS, n);
    if (ok) {
        const int64_t *off = b[1].buf;
        for (int64_t a = 0; a < n && ok; a++)
            ok = off[a] >= 0 && off[a] <= off[a + 1] && off[a + 1] <= b[0].len;
        if (!ok)
            PyErr_SetString(PyExc_ValueError, "trim_walk: offsets outside the text");
    }
    if (!ok)
        return release_buffers(b, 11, 0);
    walk_job j = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf, b[7].buf, b[8].buf, b[9].buf,
                  n, b[8].len, b[9].len, match, mismatch, gap_open, gap_extend, b[10].buf, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(walk_part, &j, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    const int64_t *out = b[10].buf;
    for (int64_t a = 0; a < n; a++)
        if (out[TRIM_FIELDS * a + EMPTIED] < 0)
            return release_buffers(b, 11, PyErr_NoMemory() != NULL);
    return release_buffers(b, 11, 1);
}

/* The texts cut: kind 0 a CIGAR, 1 a cs string, 2 delta indel lines ended by 0; the columns kept are
 * [front, total - back). p NULL: only sized. */
typedef struct {
    char *p;
    int64_t size;
} sink;

static void put(sink *s, const char *c, int64_t n) {
    if (s->p)
        memcpy(s->p + s->size, c, n);
    s->size += n;
}

static void put_number(sink *s, int64_t v) {
    char digits[24];
    const int n = reversed_digits(v, digits);
    for (int k = n - 1; k >= 0; k--)
        put(s, &digits[k], 1);
}

static void cut_text(int kind, const char *p, const char *end, int64_t front, int64_t last, sink *s) {
    int64_t col = 0; /* columns before the token */
    if (kind == 2) {
        int64_t kept_at = front; /* the last kept indel's column (1-based), the cut's edge at first */
        while (p < end) {
            int sign = 1;
            if (*p == '-')
                sign = -1, p++;
            int64_t v = 0;
            while (p < end && *p >= '0' && *p <= '9')
                v = v * 10 + (*p++ - '0');
            p++; /* the line's end */
            if (v == 0)
                break;
            col += v;
            if (col > front && col <= last) {
                if (sign < 0)
                    put(s, "-", 1);
                put_number(s, col - kept_at);
                put(s, "\n", 1);
                kept_at = col;
            }
        }
        put(s, "0\n", 2);
        return;
    }
    while (p < end) {
        if (kind == 0) {
            int64_t v = 0;
            while (p < end && *p >= '0' && *p <= '9')
                v = v * 10 + (*p++ - '0');
            const char op = *p++;
            int64_t lo = col > front ? col : front, hi = col + v < last ? col + v : last;
            if (hi > lo) {
                put_number(s, hi - lo);
                put(s, &op, 1);
            }
            col += v;
        } else if (*p == ':') {
            int64_t v = 0;
            p++;
            while (p < end && *p >= '0' && *p <= '9')
                v = v * 10 + (*p++ - '0');
            int64_t lo = col > front ? col : front, hi = col + v < last ? col + v : last;
            if (hi > lo) {
                put(s, ":", 1);
                put_number(s, hi - lo);
            }
            col += v;
        } else if (*p == '*') {
            if (col >= front && col < last)
                put(s, p, 3);
            p += 3, col++;
        } else { /* '+' or '-' and its bases, a column each */
            const char mark = *p++;
            const char *bases = p;
            while (p < end && *p >= 'a' && *p <= 'z')
                p++;
            const int64_t v = p - bases;
            int64_t lo = col > front ? col : front, hi = col + v < last ? col + v : last;
            if (hi > lo) {
                put(s, &mark, 1);
                put(s, bases + (lo - col), hi - lo);
            }
            col += v;
        }
    }
}

typedef struct {
    int kind;
    const char *text;
    const int64_t *offsets, *front, *back, *columns;
    int64_t n;
    int64_t *size;
    const int64_t *at;
    char *out;
    int64_t next;
} cut_job;

static void cut_part(void *arg, int t, int threads) {
    cut_job *j = (cut_job *)arg;
    (void)t, (void)threads;
    for (;;) {
        const int64_t a = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (a >= j->n)
            break;
        sink s = {j->out ? j->out + j->at[a] : NULL, 0};
        cut_text(j->kind, j->text + j->offsets[a], j->text + j->offsets[a + 1], j->front[a],
                 j->columns[a] - j->back[a], &s);
        if (!j->out)
            j->size[a] = s.size;
    }
}

PyObject *py_trim_text(PyObject *self, PyObject *args) {
    Py_buffer b[7];
    int kind, threads;
    if (!PyArg_ParseTuple(args, "iy*y*y*y*y*w*w*i", &kind, &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &threads))
        return NULL;
    /* b: text, offsets (n + 1), front, back, columns (n); size (n) and out: with an empty out the sizes are
     * written, else out is filled at the offsets held in size */
    const int64_t n = b[2].len / 8;
    int ok = kind >= 0 && kind <= 2 && check_items(&b[1], "trim_text", 8, n + 1) &&
             check_items(&b[3], "trim_text", 8, n) && check_items(&b[4], "trim_text", 8, n) &&
             check_items(&b[5], "trim_text", 8, n);
    if (ok) {
        const int64_t *off = b[1].buf;
        for (int64_t a = 0; a < n && ok; a++)
            ok = off[a] >= 0 && off[a] <= off[a + 1] && off[a + 1] <= b[0].len;
        if (!ok)
            PyErr_SetString(PyExc_ValueError, "trim_text: offsets outside the text");
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "trim_text: kind is 0 (CIGAR), 1 (cs) or 2 (delta)");
    }
    if (!ok)
        return release_buffers(b, 7, 0);
    cut_job j = {kind, b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, n, b[5].buf, b[5].buf,
                 b[6].len ? b[6].buf : NULL, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(cut_part, &j, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    return release_buffers(b, 7, 1);
}

/* SNP lines (show-snps -T's: P1, SUB1, SUB2, P2, ...) of cut alignments: the lines at either end whose P1
 * is not within (rs, re] or whose P2 is not within (qs, qe] (the spans as cut, 1-based) left out, read
 * from each end up to the first line inside: only the cut ends' lines are read. Writes each row's kept
 * lines as a span of the text (start, length). */
typedef struct {
    const char *text;
    const int64_t *offsets, *rows, *rs, *re, *qs, *qe;
    int64_t n;
    int64_t *start, *length;
    int64_t next;
} snp_job;

static int64_t field_number(const char **p, const char *end) {
    int64_t v = 0;
    while (*p < end && **p >= '0' && **p <= '9')
        v = v * 10 + (*(*p)++ - '0');
    return v;
}

/* whether the line at [p, end) lies inside the spans */
static int line_inside(const snp_job *j, int64_t k, const char *p, const char *end) {
    const int64_t p1 = field_number(&p, end);
    for (int tabs = 0; p < end && tabs < 3; p++)
        tabs += *p == '\t';
    const int64_t p2 = field_number(&p, end);
    return p1 > j->rs[k] && p1 <= j->re[k] && p2 > j->qs[k] && p2 <= j->qe[k];
}

static void snp_part(void *arg, int t, int threads) {
    snp_job *j = (snp_job *)arg;
    (void)t, (void)threads;
    for (;;) {
        const int64_t k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (k >= j->n)
            break;
        const int64_t row = j->rows[k];
        const char *lo = j->text + j->offsets[row], *hi = j->text + j->offsets[row + 1];
        while (lo < hi) { /* from the front: a line at a time until one inside */
            const char *eol = memchr(lo, '\n', hi - lo);
            const char *next = eol ? eol + 1 : hi;
            if (line_inside(j, k, lo, next))
                break;
            lo = next;
        }
        while (hi > lo) { /* from the back */
            const char *at = hi - 1; /* the line's end */
            while (at > lo && at[-1] != '\n')
                at--;
            if (line_inside(j, k, at, hi))
                break;
            hi = at;
        }
        j->start[k] = lo - j->text, j->length[k] = hi - lo;
    }
}

PyObject *py_trim_snps(PyObject *self, PyObject *args) {
    Py_buffer b[9];
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &b[8],
                          &threads))
        return NULL;
    /* b: text, offsets, rows (n), rs, re, qs, qe (n); start, length (n) written */
    const int64_t n = b[2].len / 8, strings = b[1].len / 8 - 1;
    int ok = strings >= 0;
    for (int k = 3; k <= 8 && ok; k++)
        ok = check_items(&b[k], "trim_snps", 8, n);
    if (ok) {
        const int64_t *off = b[1].buf, *rows = b[2].buf;
        for (int64_t k = 0; k < n && ok; k++)
            ok = rows[k] >= 0 && rows[k] < strings && off[rows[k]] >= 0 && off[rows[k]] <= off[rows[k] + 1] &&
                 off[rows[k] + 1] <= b[0].len;
        if (!ok)
            PyErr_SetString(PyExc_ValueError, "trim_snps: a row outside the text");
    }
    if (!ok)
        return release_buffers(b, 9, 0);
    snp_job j = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf, n, b[7].buf, b[8].buf, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(snp_part, &j, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    return release_buffers(b, 9, 1);
}
