/* extend on the CPU: each seed's two sides walked base by base, the rule of extend.py exactly.
 *
 * A side starts from score k * match; each base adds match, mismatch or n_score. The side's end
 * moves to the n-th base only where the score beats its best so far and the side's identity,
 * half the seed counted, clears the threshold; the walk stops at a border, when the score drops
 * below 0, or when it falls more than xdrop below the best (xdrop 0: never). Threads take blocks
 * of seeds from a shared counter, so a few long walks do not leave a thread idle.
 */
#include "extend.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* For every mask of 8 codes: the score they add and the lowest score along them, read forward
 * (j = 0..7) and backward (j = 7..0). */
static void fill_blocks(scoring *s) {
    for (int m = 0; m < 256; m++) {
        int sum = 0, low = 0;
        for (int j = 0; j < 8; j++) {
            sum += (m >> j & 1) ? s->mismatch : s->match;
            low = sum < low ? sum : low;
        }
        s->block_sum[m] = sum, s->block_low[0][m] = low;
        sum = low = 0;
        for (int j = 7; j >= 0; j--) {
            sum += (m >> j & 1) ? s->mismatch : s->match;
            low = sum < low ? sum : low;
        }
        s->block_low[1][m] = low;
    }
}

/* One side from (q, r), the first base read, in direction step. Where the score is at least 8
 * matches below the side's best, none of the next 8 bases can become the end: they are taken at
 * once (a table gives their score and the lowest score along them) unless a stop rule could fire
 * among them or one is N or a border; then, and near the best, base by base. The walk of repeats
 * that leave homology spends most of its bases in that descent. */
static side walk(const scoring *s, const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize,
                 int64_t q, int64_t r, int step, int64_t *reads, int64_t limit) {
    const int k = s->k;
    int64_t score = (int64_t)k * s->match, run_ids = 0, n = 0, room = limit - *reads;
    side out = {score, 0, 0};
    while (n < room) {
        if (out.best - score >= 8 * s->match) {
            int m = mismatch_mask(qcodes, qsize, rcodes, rsize, q, r, step);
            if (m >= 0) {
                int64_t low = score + s->block_low[step < 0][m];
                if (low >= 0 && !(s->xdrop && out.best - low > s->xdrop)) {
                    score += s->block_sum[m];
                    run_ids += 8 - __builtin_popcount((unsigned)m);
                    n += 8, q += 8 * step, r += 8 * step;
                    continue;
                }
            }
        }
        n++;
        if (q < 0 || r < 0 || q >= qsize || r >= rsize)
            break;
        uint8_t a = qcodes[q], b = rcodes[r];
        if (a == BORDER || b == BORDER)
            break;
        if (a == N_CODE || b == N_CODE)
            score += s->n_score;
        else if (a == b)
            score += s->match, run_ids++;
        else
            score += s->mismatch;
        if (score > out.best && clears(s, run_ids, n)) {
            out.best = score;
            out.length = n;
            out.ids = run_ids;
        }
        if (score < 0 || (s->xdrop && out.best - score > s->xdrop))
            break;
        q += step, r += step;
    }
    *reads += n;
    return out;
}

/* The HSP of the seed (q, r): both sides walked, unless *reads reaches limit first (then out is no HSP). */
static void extend_seed(const scoring *s, const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize,
                 int64_t q, int64_t r, hsp *out, int64_t *reads, int64_t limit) {
    side right = walk(s, qcodes, qsize, rcodes, rsize, q + s->k, r + s->k, +1, reads, limit);
    side left = walk(s, qcodes, qsize, rcodes, rsize, q - 1, r - 1, -1, reads, limit);
    out->qstart = q - left.length;
    out->qend = q + s->k + right.length;
    out->score = left.best + right.best - (int64_t)s->k * s->match;
    out->ids = s->k + left.ids + right.ids;
}

typedef struct {
    const uint8_t *qcodes, *rcodes;
    int64_t qsize, rsize;
    const int64_t *sq, *sr;
    int64_t n;
    scoring scoring;
    int64_t *qstart, *qend, *score, *ids;
    int64_t next;  /* first seed of the next block to hand out */
    int64_t reads; /* bases read by the walks, all threads */
} job;

#define BLOCK_SEEDS 1024

/* Seeds i and i + 1 of the list are on one diagonal, in walking order. */
static inline int same_diagonal(const job *j, int64_t i) {
    return j->sq[i + 1] - j->sr[i + 1] == j->sq[i] - j->sr[i] && j->sq[i + 1] > j->sq[i];
}

static void put(const job *j, int64_t i, hsp h) {
    j->qstart[i] = h.qstart, j->qend[i] = h.qend, j->score[i] = h.score, j->ids[i] = h.ids;
}

/* The seeds [lo, hi) of one diagonal, walked one by one as long as their walks read no more than a
 * few times the diagonal's stretch between them (most repeat hits); where they would read more (walks
 * running past the next seeds), swept together. */
static void extend_diagonal(const job *j, int64_t lo, int64_t hi, sweep_space *w, int64_t *reads) {
    const scoring *s = &j->scoring;
    int m = (int)(hi - lo);
    int64_t budget = m == 1 ? INT64_MAX : 3 * (j->sq[hi - 1] - j->sq[lo] + 2 * (int64_t)s->k) + 256 * (int64_t)m;
    int64_t used = 0, i = lo;
    for (; i < hi && used < budget; i++) {
        hsp h;
        extend_seed(s, j->qcodes, j->qsize, j->rcodes, j->rsize, j->sq[i], j->sr[i], &h, &used, budget);
        put(j, i, h);
    }
    *reads += used;
    if (used < budget)
        return;
    if (!sweep_room(w, m)) {  /* no memory for a sweep: each walk to its end */
        for (i = lo; i < hi; i++) {
            hsp h;
            extend_seed(s, j->qcodes, j->qsize, j->rcodes, j->rsize, j->sq[i], j->sr[i], &h, reads, INT64_MAX);
            put(j, i, h);
        }
        return;
    }
    int64_t diag = j->sq[lo] - j->sr[lo];
    for (int t = 0; t < m; t++)
        w->start[t] = j->sq[lo + t] + s->k;
    sweep(s, j->qcodes, j->qsize, j->rcodes, j->rsize, diag, w->start, m, +1, w->right, w, reads);
    for (int t = 0; t < m; t++)
        w->start[t] = j->sq[hi - 1 - t] - 1;
    sweep(s, j->qcodes, j->qsize, j->rcodes, j->rsize, diag, w->start, m, -1, w->left, w, reads);
    for (int t = 0; t < m; t++) {
        side right = w->right[t], left = w->left[m - 1 - t];
        int64_t q = j->sq[lo + t];
        put(j, lo + t, (hsp){q - left.length, q + s->k + right.length,
                             left.best + right.best - (int64_t)s->k * s->match, s->k + left.ids + right.ids});
    }
}

#define MAX_SWEEP (1 << 22)  /* longest run of seeds swept at once (a longer one is cut: still exact) */

static void extend_part(void *p, int t, int threads) {
    job *j = (job *)p;
    sweep_space w = {0};
    int64_t reads = 0;
    (void)t, (void)threads;
    for (;;) {
        int64_t lo = __atomic_fetch_add(&j->next, BLOCK_SEEDS, __ATOMIC_RELAXED);
        if (lo >= j->n)
            break;
        int64_t hi = lo + BLOCK_SEEDS < j->n ? lo + BLOCK_SEEDS : j->n;
        while (lo > 0 && lo < hi && same_diagonal(j, lo - 1))  /* an earlier block's diagonal */
            lo++;
        while (lo < hi) {
            int64_t end = lo + 1;
            while (end < j->n && same_diagonal(j, end - 1))
                end++;
            for (; lo < end; lo += MAX_SWEEP)
                extend_diagonal(j, lo, end - lo > MAX_SWEEP ? lo + MAX_SWEEP : end, &w, &reads);
            lo = end;
        }
    }
    free_sweep(&w);
    __atomic_fetch_add(&j->reads, reads, __ATOMIC_RELAXED);
}

PyObject *py_extend(PyObject *self, PyObject *args) {
    Py_buffer v[8];
    job j = {0};
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*iiiiidw*w*w*w*i", &v[0], &v[1], &v[2], &v[3], &j.scoring.k,
                          &j.scoring.match, &j.scoring.mismatch, &j.scoring.n_score, &j.scoring.xdrop,
                          &j.scoring.min_identity, &v[4], &v[5], &v[6], &v[7], &threads))
        return NULL;
    j.n = v[2].len / 8;
    int ok = check_items(&v[3], "sr", 8, j.n);
    for (int i = 4; i < 8 && ok; i++)
        ok = check_items(&v[i], "output", 8, j.n);
    if (ok) {
        j.qcodes = v[0].buf, j.rcodes = v[1].buf, j.qsize = v[0].len, j.rsize = v[1].len;
        j.sq = v[2].buf, j.sr = v[3].buf;
        j.qstart = v[4].buf, j.qend = v[5].buf, j.score = v[6].buf, j.ids = v[7].buf;
        fill_blocks(&j.scoring);
        if (threads > j.n / BLOCK_SEEDS + 1)
            threads = (int)(j.n / BLOCK_SEEDS + 1);
        Py_BEGIN_ALLOW_THREADS
        run_parallel(extend_part, &j, threads);
        Py_END_ALLOW_THREADS
    }
    for (int i = 0; i < 8; i++)
        PyBuffer_Release(&v[i]);
    if (!ok)
        return NULL;
    return PyLong_FromLongLong(j.reads);  /* bases the walks read: linear in a diagonal's length */
}
