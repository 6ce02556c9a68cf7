/* Chains of HSPs (chains.py has the definition's steps; docs/DEFINITIONS.md, "What a chain is", the rules).
 *
 * chain_dp: every HSP's best chain score ending at it and its predecessor, record pair and strand
 * groups on threads. HSPs come in the DP order (group, x, y, xe, row); a predecessor j of i lies on
 * a diagonal within max_shift of i's, so it is in i's diagonal bucket (diagonal / max_shift, rounded
 * down) or a neighbour: `byb` lists the HSPs by (group, bucket, order), and for i each of the three
 * buckets is scanned back from i's place in the order while an HSP there can still end within
 * max_gap before i (x >= x_i - max_gap - the group's longest HSP). Dense repeats spread over far
 * diagonals, so each scan sees a few HSPs, not the thousands a plain look-back in query order would.
 *
 * take_chains: best-first extraction (walks of predecessors until an HSP already taken).
 * The backbone is backbone.c's.
 * chain_seams, chain_pieces: the chains' blocks as written: each seam between two overlapping HSPs of
 * a chain put where their columns score best (once a seam), then each block cut at its drops and
 * each piece's ends moved past tandem runs (tests/oracle_chains.refine). */
#include "cpu.h"
#include "link.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const int64_t *x, *xe, *y, *ye, *score, *group, *bucket, *byb, *bounds;
    int64_t n, groups, max_gap, max_shift, gap_open, gap_extend, gap_base;
    int64_t *best, *pred;
    uint8_t *linked;
    int64_t next;
    int failed;
} dp_job;

/* Whether buffers 0..count-1 but `skip` each hold n int64 (a Python error set where one does not). */
static int int64_columns(const Py_buffer *b, int count, int skip, const char *name, int64_t n) {
    for (int k = 0; k < count; k++)
        if (k != skip && !check_items(&b[k], name, 8, n))
            return 0;
    return 1;
}

/* What HSP i adds after HSP j (link.h); 0 with *ok = 0 where j cannot precede i. */
static inline int64_t link_gain(const dp_job *d, int64_t j, int64_t i, int *ok) {
    int64_t overlap;
    *ok = linkable(d->x, d->xe, d->y, d->ye, j, i, d->max_gap, d->max_shift, &overlap);
    if (!*ok)
        return 0;
    return link_add(d->score[i], d->xe[i] - d->x[i], overlap, d->x[i] - d->xe[j], d->y[i] - d->ye[j], d->gap_open,
                    d->gap_extend, d->gap_base);
}

/* The last position in [from, to) of byb whose HSP comes before i in the DP order, plus one. */
static int64_t before(const dp_job *d, int64_t from, int64_t to, int64_t i) {
    while (from < to) {
        int64_t m = from + (to - from) / 2;
        if (d->byb[m] < i)
            from = m + 1;
        else
            to = m;
    }
    return from;
}

static int dp_group(dp_job *d, int64_t g) {
    const int64_t lo = d->bounds[g], hi = d->bounds[g + 1], size = hi - lo;
    /* for each HSP its place in byb, and the bounds of its bucket's run there */
    int64_t *place = malloc(sizeof(int64_t) * (size_t)(size ? size : 1) * 3);
    if (!place)
        return 0;
    int64_t *run_lo = place + size, *run_hi = place + 2 * size;
    for (int64_t k = lo; k < hi;) {
        int64_t e = k + 1;
        while (e < hi && d->bucket[d->byb[e]] == d->bucket[d->byb[k]])
            e++;
        for (int64_t m = k; m < e; m++) {
            place[d->byb[m] - lo] = m;
            run_lo[m - lo] = k;
            run_hi[m - lo] = e;
        }
        k = e;
    }
    int64_t longest = 0;
    for (int64_t i = lo; i < hi; i++)
        if (d->xe[i] - d->x[i] > longest)
            longest = d->xe[i] - d->x[i];
    for (int64_t i = lo; i < hi; i++) {
        int64_t best = d->score[i], pred = -1;
        const int64_t floor_x = d->x[i] - d->max_gap - longest;
        const int64_t p = place[i - lo], a = run_lo[p - lo], b = run_hi[p - lo], bucket = d->bucket[i];
        /* [first, end) of byb to scan back over: i's own bucket up to i, and the neighbouring buckets'
         * HSPs that come before i */
        int64_t ranges[3][2] = {{a, p}, {0, 0}, {0, 0}};
        if (a > lo && d->bucket[d->byb[a - 1]] == bucket - 1) {
            const int64_t first = run_lo[a - 1 - lo];
            ranges[1][0] = first;
            ranges[1][1] = before(d, first, a, i);
        }
        if (b < hi && d->bucket[d->byb[b]] == bucket + 1) {
            ranges[2][0] = b;
            ranges[2][1] = before(d, b, run_hi[b - lo], i);
        }
        for (int r = 0; r < 3; r++) {
            for (int64_t k = ranges[r][1] - 1; k >= ranges[r][0]; k--) {
                const int64_t j = d->byb[k];
                if (d->x[j] < floor_x)
                    break;
                int ok;
                const int64_t add = link_gain(d, j, i, &ok);
                if (!ok)
                    continue;
                d->linked[i] = d->linked[j] = 1;  /* j is in i's group: this thread's */
                const int64_t value = d->best[j] + add;
                if (value > best || (value == best && pred != -1 && j > pred)) {
                    best = value;
                    pred = j;
                }
            }
        }
        d->best[i] = best;
        d->pred[i] = pred;
    }
    free(place);
    return 1;
}

static void dp_part(void *p, int t, int threads) {
    dp_job *d = (dp_job *)p;
    (void)t;
    (void)threads;
    for (;;) {
        const int64_t g = __atomic_fetch_add(&d->next, 1, __ATOMIC_RELAXED);
        if (g >= d->groups)
            return;
        if (!dp_group(d, g))
            __atomic_store_n(&d->failed, 1, __ATOMIC_RELAXED);
    }
}

/* chain_dp(x, xe, y, ye, score, group, bucket, byb, bounds, max_gap, max_shift, gap_open, gap_extend,
 *          gap_base, best, pred, linked, threads): int64 arrays in the DP order; byb sorts them by
 *          (group, bucket, order); bounds[g] the first HSP of group g (groups + 1 entries); linked
 *          (uint8, zeros): set to 1 for both HSPs of every valid link. */
PyObject *py_chain_dp(PyObject *self, PyObject *args) {
    Py_buffer b[12];
    long long max_gap, max_shift, gap_open, gap_extend, gap_base;
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*LLLLLw*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                          &b[7], &b[8], &max_gap, &max_shift, &gap_open, &gap_extend, &gap_base, &b[9], &b[10],
                          &b[11], &threads))
        return NULL;
    const int64_t n = b[0].len / 8, groups = b[8].len / 8 - 1;
    int ok = groups >= 0 && max_shift > 0 && int64_columns(b, 11, 8, "chain_dp", n) &&
             check_items(&b[11], "chain_dp", 1, n);
    if (ok) {
        dp_job d = {(const int64_t *)b[0].buf, (const int64_t *)b[1].buf, (const int64_t *)b[2].buf,
                    (const int64_t *)b[3].buf, (const int64_t *)b[4].buf, (const int64_t *)b[5].buf,
                    (const int64_t *)b[6].buf, (const int64_t *)b[7].buf, (const int64_t *)b[8].buf,
                    n, groups, max_gap, max_shift, gap_open, gap_extend, gap_base,
                    (int64_t *)b[9].buf, (int64_t *)b[10].buf, (uint8_t *)b[11].buf, 0, 0};
        Py_BEGIN_ALLOW_THREADS
        run_parallel(dp_part, &d, threads < 1 ? 1 : threads);
        Py_END_ALLOW_THREADS
        if (d.failed) {
            ok = 0;
            PyErr_NoMemory();
        }
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "chain_dp: bad group bounds or max_shift");
    }
    return release_buffers(b, 12, ok);
}

typedef struct {
    const int64_t *qrec, *rrec, *strand, *x, *xe, *rstart, *rend, *rlens;
    int64_t n, nr, max_shift, nrlens;
    int64_t *y, *ye, *group, *bucket;
    int bad;
} keys_job;

static inline int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

static void keys_part(void *p, int t, int threads) {
    keys_job *k = (keys_job *)p;
    size_t lo, hi;
    part_range((size_t)k->n, t, threads, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        const int64_t r = k->rrec[i];
        if (r < 0 || r >= k->nrlens) {
            k->bad = 1;
            continue;
        }
        const int reverse = k->strand[i] == 1;
        k->y[i] = reverse ? k->rlens[r] - k->rend[i] : k->rstart[i];
        k->ye[i] = reverse ? k->rlens[r] - k->rstart[i] : k->rend[i];
        k->group[i] = (k->qrec[i] * k->nr + r) * 2 + k->strand[i];
        k->bucket[i] = floor_div(k->x[i] - k->y[i], k->max_shift);
    }
}

/* chain_keys(qrec, rrec, strand, qstart, qend, rstart, rend, rlens, nr, max_shift, y, ye, group, bucket,
 * threads): each HSP on the reference strand it was found on (y, ye: chains.chain_coords), its group
 * (record pair and strand) and its diagonal bucket, on all cores; int64 arrays. */
PyObject *py_chain_keys(PyObject *self, PyObject *args) {
    Py_buffer b[12];
    long long nr, max_shift;
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*LLw*w*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                          &b[7], &nr, &max_shift, &b[8], &b[9], &b[10], &b[11], &threads))
        return NULL;
    const int64_t n = b[0].len / 8;
    int ok = max_shift > 0 && int64_columns(b, 12, 7, "chain_keys", n);
    if (ok) {
        keys_job k = {(const int64_t *)b[0].buf, (const int64_t *)b[1].buf, (const int64_t *)b[2].buf,
                      (const int64_t *)b[3].buf, (const int64_t *)b[4].buf, (const int64_t *)b[5].buf,
                      (const int64_t *)b[6].buf, (const int64_t *)b[7].buf, n, nr, max_shift, b[7].len / 8,
                      (int64_t *)b[8].buf, (int64_t *)b[9].buf, (int64_t *)b[10].buf, (int64_t *)b[11].buf, 0};
        Py_BEGIN_ALLOW_THREADS
        run_parallel(keys_part, &k, threads < 1 ? 1 : threads);
        Py_END_ALLOW_THREADS
        if (k.bad) {
            ok = 0;
            PyErr_SetString(PyExc_IndexError, "chain_keys: a reference record outside the table's");
        }
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "chain_keys: max_shift must be at least 1");
    }
    return release_buffers(b, 12, ok);
}

/* take_chains(best, pred, visit, chain, scores, heads) -> chains: HSPs visited in `visit` order (best
 * descending); each one not yet taken starts a chain that follows the predecessors until an HSP
 * already taken; chain[i] its chain (in the order chains were taken; -1 for an HSP no walk reaches),
 * scores[c] the best at its last HSP less the best where the walk stopped, heads[c] its first HSP.
 * visit may leave out HSPs no link touches (their walks are themselves alone). */
PyObject *py_take_chains(PyObject *self, PyObject *args) {
    Py_buffer b[6];
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*w*", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]))
        return NULL;
    const int64_t n = b[0].len / 8, visits = b[2].len / 8;
    int ok = visits <= n;
    for (int k = 0; k < 6 && ok; k++)
        ok = k == 2 || check_items(&b[k], "take_chains", 8, n);
    for (int64_t v = 0; v < visits && ok; v++)
        ok = ((const int64_t *)b[2].buf)[v] >= 0 && ((const int64_t *)b[2].buf)[v] < n;
    if (!ok && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "take_chains: visit longer than the table or outside it");
    int64_t count = 0;
    if (ok) {
        const int64_t *best = (const int64_t *)b[0].buf, *pred = (const int64_t *)b[1].buf,
                      *visit = (const int64_t *)b[2].buf;
        int64_t *chain = (int64_t *)b[3].buf, *scores = (int64_t *)b[4].buf, *heads = (int64_t *)b[5].buf;
        Py_BEGIN_ALLOW_THREADS
        for (int64_t i = 0; i < n; i++)
            chain[i] = -1;
        for (int64_t v = 0; v < visits; v++) {
            int64_t at = visit[v], head = at;
            if (chain[at] != -1)
                continue;
            while (at != -1 && chain[at] == -1) {
                chain[at] = count;
                head = at;
                at = pred[at];
            }
            scores[count] = best[visit[v]] - (at != -1 ? best[at] : 0);
            heads[count] = head;
            count++;
        }
        Py_END_ALLOW_THREADS
    }
    for (int k = 0; k < 6; k++)
        PyBuffer_Release(&b[k]);
    if (!ok)
        return NULL;
    return PyLong_FromLongLong(count);
}
