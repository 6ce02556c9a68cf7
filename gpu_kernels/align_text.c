/* The texts of gapped alignments (align.c makes their columns; align.py's text_of asks for them): the
 * CIGAR (=/X/I/D), the cs string, the delta file's indel lines, and show-snps' lines, each alignment's
 * text from its anchors, its gaps' columns and its ends' extensions, sized in a first call and written
 * at the offsets the sizes give in a second, alignments on threads. */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>

static const char OP[4] = {'=', 'X', 'I', 'D'};

typedef struct {
    const uint8_t *q, *rf, *rr;
    const int64_t *ax, *ay, *alen, *gat, *gcols, *first, *last;
    const uint8_t *ops;
    const int8_t *strand;
    int64_t n;
    int cs;                         /* 0: the CIGAR (=/X/I/D), 1: the cs string, 2: the delta indel lines,
                                     * 3: a line a SNP or indel column (show-snps -T's first 4 columns, then
                                     * the alignment's tail) */
    const int64_t *qbase, *rbase, *rlen; /* 3: each alignment's record starts in the codes, reference length */
    const char *tails;              /* 3: each alignment's line end (string table) */
    const int64_t *tail_at;
    const int64_t *qpos, *rpos;     /* 3: the IUPAC letters' places in q and rf (sorted; align.py's letters) */
    const uint8_t *qlet, *rlet;     /* and the letters (upper case) */
    int64_t nq, nr, rtotal;         /* their counts; rf's length (a reverse strand's place back on rf) */
    const int64_t *ext;             /* 8 an alignment: align.py's EXTENSION */
    const uint8_t *eops;            /* the extensions' columns, outwards from each end */
    int64_t *size;                  /* size mode: each alignment's text length */
    const int64_t *at;              /* write mode: where each one's text goes */
    char *out;
    int64_t next;
} text_job;

static const char BASE[6] = {'a', 'c', 'g', 't', 'n', 'n'};
static const char UPPER[6] = {'A', 'C', 'G', 'T', 'N', 'N'};
static const uint8_t COMP[6] = {3, 2, 1, 0, 4, 5};

/* The bases a letter stands for (IUPAC), as bits A 1, C 2, G 4, T 8: show-snps lists a column whose
 * two letters share none (R against C, not R against A; N never), and prints the letters. */
static uint8_t letter_bases(uint8_t c) {
    switch (c) {
    case 'A': return 1; case 'C': return 2; case 'G': return 4; case 'T': return 8;
    case 'R': return 5; case 'Y': return 10; case 'S': return 6; case 'W': return 9; case 'K': return 12;
    case 'M': return 3; case 'B': return 14; case 'D': return 13; case 'H': return 11; case 'V': return 7;
    default: return 15;
    }
}

static uint8_t complement_letter(uint8_t c) {
    static const char from[] = "ACGTRYSWKMBDHVN", to[] = "TGCAYRSWMKVHDBN";
    for (int k = 0; from[k]; k++)
        if (from[k] == c)
            return (uint8_t)to[k];
    return 'N';
}

/* The letter of code index x of a sequence of n letters at places pos (sorted): N where none is listed. */
static uint8_t letter_at(const int64_t *pos, const uint8_t *let, int64_t n, int64_t x) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (pos[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && pos[lo] == x ? let[lo] : 'N';
}

static char *put_count(char *p, int64_t v, int64_t *size) {
    char digits[24];
    const int n = reversed_digits(v, digits);
    if (p)
        for (int k = n - 1; k >= 0; k--)
            *p++ = digits[k];
    *size += n;
    return p;
}

static char *put_char(char *p, char c, int64_t *size) {
    if (p)
        *p++ = c;
    *size += 1;
    return p;
}

/* The text being made of one alignment: p NULL only sizes it (into *size). */
typedef struct {
    const text_job *t;
    const uint8_t *r;
    char *p;
    int64_t size, i, j, step, column, last_indel, run;
    int reverse, op; /* op: the pending run's (-1: none) */
    int64_t a;       /* the alignment */
} writer;

static void flush_run(writer *w) {
    if (w->run == 0)
        return;
    if (w->t->cs == 0) {
        w->p = put_count(w->p, w->run, &w->size);
        w->p = put_char(w->p, OP[w->op], &w->size);
    } else if (w->t->cs == 1 && w->op == 0) {
        w->p = put_char(w->p, ':', &w->size);
        w->p = put_count(w->p, w->run, &w->size);
    }
    w->run = 0;
}

/* count columns of op, in PAF's order: runs of `=` whole, other columns one by one. */
static void put_columns(writer *w, int op, int64_t count) {
    const text_job *t = w->t;
    if (op == 0 || t->cs == 0) {
        if (op != w->op)
            flush_run(w);
        w->column += count;
        w->run += count;
        w->op = op;
        if (op != 3)
            w->i += w->step * count;
        if (op != 2)
            w->j += w->step * count;
        return;
    }
    /* cs or delta (every indel column's distance to the last one), a column of X, I or D */
    if (op != w->op || op == 1)
        flush_run(w);
    for (int64_t k = 0; k < count; k++) {
        /* an I column reads no reference base, a D column no query base */
        const uint8_t qb = op == 3 ? 4 : w->reverse ? COMP[t->q[w->i]] : t->q[w->i];
        const uint8_t rb = op == 2 ? 4 : w->reverse ? COMP[w->r[w->j]] : w->r[w->j];
        w->column++;
        uint8_t ql = 0, rl = 0; /* SNP lines: the letters, IUPAC codes where the FASTA held them */
        if (t->cs == 3) {
            ql = op == 3 ? '.' : qb < 4 ? (uint8_t)UPPER[qb] : letter_at(t->qpos, t->qlet, t->nq, w->i);
            if (op != 3 && qb > 3 && w->reverse)
                ql = complement_letter(ql);
            rl = op == 2 ? '.' : rb < 4 ? (uint8_t)UPPER[rb]
                                      : letter_at(t->rpos, t->rlet, t->nr, w->reverse ? t->rtotal - 1 - w->j : w->j);
        }
        if (t->cs == 3 && op == 1 && (letter_bases(ql) & letter_bases(rl))) {
            /* letters that may stand for the same base are no SNP (show-snps lists none: N, R against A) */
        } else if (t->cs == 3) { /* P1 SUB1 SUB2 P2, 1-based; at an indel the other side's neighbour of lower
                           * forward coordinate (show-snps: on a reverse alignment the query's next base) */
            const int64_t jj = (op == 2 ? w->j - w->step : w->j) - t->rbase[w->a];
            const int64_t p1 = (w->reverse ? t->rlen[w->a] - 1 - jj : jj) + 1;
            const int64_t p2 = (op == 3 && !w->reverse ? w->i - 1 : w->i) - t->qbase[w->a] + 1;
            w->p = put_count(w->p, p1, &w->size);
            w->p = put_char(w->p, '\t', &w->size);
            w->p = put_char(w->p, (char)rl, &w->size);
            w->p = put_char(w->p, '\t', &w->size);
            w->p = put_char(w->p, (char)ql, &w->size);
            w->p = put_char(w->p, '\t', &w->size);
            w->p = put_count(w->p, p2, &w->size);
            for (int64_t c = t->tail_at[w->a]; c < t->tail_at[w->a + 1]; c++)
                w->p = put_char(w->p, t->tails[c], &w->size);
        } else if (t->cs == 1) {
            if (op == 1) {
                w->p = put_char(w->p, '*', &w->size);
                w->p = put_char(w->p, BASE[rb], &w->size);
                w->p = put_char(w->p, BASE[qb], &w->size);
            } else {
                if (w->op != op && k == 0)
                    w->p = put_char(w->p, op == 2 ? '+' : '-', &w->size);
                w->p = put_char(w->p, BASE[op == 2 ? qb : rb], &w->size);
            }
        } else if (op >= 2) {
            if (op == 2)
                w->p = put_char(w->p, '-', &w->size);
            w->p = put_count(w->p, w->column - w->last_indel, &w->size);
            w->p = put_char(w->p, '\n', &w->size);
            w->last_indel = w->column;
        }
        if (op != 3)
            w->i += w->step;
        if (op != 2)
            w->j += w->step;
        w->op = op;
    }
}

/* One alignment's text (p NULL: only its length, into *size): its columns in query order on the
 * forward strand; on the reverse strand in reference order, both sequences complemented (PAF: the
 * reference's forward strand against the query's reverse complement). Anchors go as whole runs. */
static void one_text(const text_job *t, int64_t a, char *p, int64_t *size) {
    const int64_t fa = t->first[a], la = t->last[a];
    const int64_t *x = t->ext + 8 * a; /* dq, dr at the start; dq, dr at the end; ops at, cols: start, end */
    const uint8_t *start_ops = t->eops + x[4], *end_ops = t->eops + x[6];
    writer w = {t, t->strand[a] ? t->rr : t->rf, p, 0, 0, 0, 1, 0, 0, 0, t->strand[a] != 0, -1, a};
    if (w.reverse) {
        w.i = t->ax[la] + t->alen[la] + x[2] - 1;
        w.j = t->ay[la] + t->alen[la] + x[3] - 1;
        w.step = -1;
        for (int64_t c = x[7] - 1; c >= 0; c--)
            put_columns(&w, end_ops[c], 1);
        for (int64_t k = la; k >= fa; k--) {
            put_columns(&w, 0, t->alen[k]);
            if (k > fa) {
                const uint8_t *ops = t->ops + t->gat[k - 1];
                for (int64_t c = t->gcols[k - 1] - 1; c >= 0; c--)
                    put_columns(&w, ops[c], 1);
            }
        }
        for (int64_t c = 0; c < x[5]; c++)
            put_columns(&w, start_ops[c], 1);
    } else {
        w.i = t->ax[fa] - x[0];
        w.j = t->ay[fa] - x[1];
        for (int64_t c = x[5] - 1; c >= 0; c--)
            put_columns(&w, start_ops[c], 1);
        for (int64_t k = fa; k <= la; k++) {
            put_columns(&w, 0, t->alen[k]);
            if (k < la) {
                const uint8_t *ops = t->ops + t->gat[k];
                for (int64_t c = 0; c < t->gcols[k]; c++)
                    put_columns(&w, ops[c], 1);
            }
        }
        for (int64_t c = 0; c < x[7]; c++)
            put_columns(&w, end_ops[c], 1);
    }
    flush_run(&w);
    if (t->cs == 2) {
        w.p = put_char(w.p, '0', &w.size);
        w.p = put_char(w.p, '\n', &w.size);
    }
    *size = w.size;
}

static void text_part(void *arg, int t, int threads) {
    text_job *j = (text_job *)arg;
    (void)t, (void)threads;
    for (;;) { /* alignments one at a time off a shared counter: their sizes differ by orders of magnitude */
        const int64_t a = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (a >= j->n)
            break;
        int64_t size = 0;
        one_text(j, a, j->out ? j->out + j->at[a] : NULL, &size);
        if (!j->out)
            j->size[a] = size;
    }
}

PyObject *py_align_text(PyObject *self, PyObject *args) {
    Py_buffer b[25];
    int cs, threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*y*iw*w*y*y*y*y*y*y*y*y*y*y*y*i", &b[0], &b[1], &b[2], &b[3],
                          &b[4], &b[5], &b[6], &b[7], &b[8], &b[9], &b[10], &b[11], &cs, &b[12], &b[13], &b[14],
                          &b[15], &b[16], &b[17], &b[18], &b[19], &b[20], &b[21], &b[22], &b[23], &b[24], &threads))
        return NULL;
    /* b[21..24]: the IUPAC letters' places (int64) and letters of q, then of rf: read in mode 3 only */
    /* b[19], b[20]: the extensions (8 int64 an alignment) and their ops */
    /* b[14..18]: qbase, rbase, rlen (int64 n), tails and their offsets (n + 1): read in mode 3 only */
    /* b: q, rf, rr, ax, ay, alen, gat, gcols, ops, first, last, strand; then size (int64 n) and out: with an
     * empty out the sizes are written, else out is filled at the offsets held in size */
    const int64_t n = b[9].len / 8, anchors = b[3].len / 8;
    int ok = check_items(&b[10], "align_text", 8, n) && check_items(&b[11], "align_text", 1, n) &&
             check_items(&b[12], "align_text", 8, n);
    for (int k = 4; k < 8 && ok; k++)
        ok = check_items(&b[k], "align_text", 8, anchors);
    const int64_t *first = b[9].buf, *last = b[10].buf;
    for (int64_t a = 0; a < n && ok; a++)
        ok = first[a] >= 0 && first[a] <= last[a] && last[a] < anchors;
    ok = ok && check_items(&b[19], "align_text", 64, n) && check_items(&b[21], "align_text", 8, b[22].len) &&
         check_items(&b[23], "align_text", 8, b[24].len);
    if (ok) {
        const int64_t *x = b[19].buf;
        for (int64_t a = 0; a < n && ok; a++)
            ok = x[8 * a + 4] >= 0 && x[8 * a + 4] + x[8 * a + 5] <= b[20].len && x[8 * a + 6] >= 0 &&
                 x[8 * a + 6] + x[8 * a + 7] <= b[20].len;
    }
    if (ok && cs == 3)
        ok = check_items(&b[14], "align_text", 8, n) && check_items(&b[15], "align_text", 8, n) &&
             check_items(&b[16], "align_text", 8, n) && check_items(&b[18], "align_text", 8, n + 1) &&
             ((const int64_t *)b[18].buf)[n] <= b[17].len;
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "align_text");
        return release_buffers(b, 25, 0);
    }
    text_job j = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf, b[7].buf, first, last,
                  b[8].buf, b[11].buf, n, cs, b[14].buf, b[15].buf, b[16].buf, b[17].buf, b[18].buf,
                  b[21].buf, b[23].buf, b[22].buf, b[24].buf, b[21].len / 8, b[23].len / 8, b[1].len,
                  b[19].buf, b[20].buf, b[12].buf, b[12].buf, b[13].len ? b[13].buf : NULL, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(text_part, &j, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    return release_buffers(b, 25, 1);
}
