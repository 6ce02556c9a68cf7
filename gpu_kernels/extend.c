/* extend on the CPU: each seed's two sides walked base by base, the rule of extend.py exactly.
 *
 * A side starts from score k * match; each base adds match, mismatch or n_score. The side's end
 * moves to the n-th base only where the score beats its best so far and the side's identity,
 * half the seed counted, clears the threshold; the walk stops at a border, when the score drops
 * below 0, or when it falls more than xdrop below the best (xdrop 0: never). Threads take blocks
 * of seeds from a shared counter, so a few long walks do not leave a thread idle.
 */
#include "cpu.h"
#include <string.h>

/* The extension rule's parameters (extend.py) and one seed's HSP on the query axis. */
typedef struct {
    int k, match, mismatch, n_score, xdrop;
    double min_identity;
    int block_sum[256], block_low[2][256];  /* fill_blocks */
} scoring;

typedef struct {
    int64_t qstart, qend, score, ids;
} hsp;


typedef struct {
    int64_t best, length, ids;
} side;

static inline int clears(const scoring *s, int64_t ids, int64_t n) {
    return (double)(2 * ids + s->k) * 100.0 >= s->min_identity * (double)(2 * n + s->k);
}

/* Eight codes from (q, r) on in direction step as a mask of mismatches (bit j: the j-th code of the
 * 8 in memory), or -1 where fewer than 8 codes are left on a side or one of them is N or a border. */
static inline int mismatch_mask(const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize,
                                int64_t q, int64_t r, int step) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t a, b;
    int64_t first = step > 0 ? 0 : 7;  /* the 8 codes start at q - first */
    if (q < first || r < first || q - first + 8 > qsize || r - first + 8 > rsize)
        return -1;
    memcpy(&a, qcodes + q - first, 8);
    memcpy(&b, rcodes + r - first, 8);
    if ((a | b) & 0x0404040404040404ULL)  /* N (4) or border (5) */
        return -1;
    uint64_t x = a ^ b;
    x = (x | (x >> 1)) & 0x0101010101010101ULL;  /* codes 0..3 differ in bit 0 or 1 */
    return (int)((x * 0x0102040810204080ULL) >> 56);
#else
    (void)qcodes, (void)qsize, (void)rcodes, (void)rsize, (void)q, (void)r, (void)step;
    return -1;
#endif
}

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
                 int64_t q, int64_t r, int step) {
    const int k = s->k;
    int64_t score = (int64_t)k * s->match, run_ids = 0, n = 0;
    side out = {score, 0, 0};
    for (;;) {
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
    return out;
}

/* The HSP of the seed (q, r): both sides walked. */
static void extend_seed(const scoring *s, const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize,
                 int64_t q, int64_t r, hsp *out) {
    side right = walk(s, qcodes, qsize, rcodes, rsize, q + s->k, r + s->k, +1);
    side left = walk(s, qcodes, qsize, rcodes, rsize, q - 1, r - 1, -1);
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
} job;

#define BLOCK_SEEDS 1024

static void extend_part(void *p, int t, int threads) {
    job *j = (job *)p;
    (void)t, (void)threads;
    for (;;) {
        int64_t lo = __atomic_fetch_add(&j->next, BLOCK_SEEDS, __ATOMIC_RELAXED);
        if (lo >= j->n)
            return;
        int64_t hi = lo + BLOCK_SEEDS < j->n ? lo + BLOCK_SEEDS : j->n;
        for (int64_t i = lo; i < hi; i++) {
            hsp h;
            extend_seed(&j->scoring, j->qcodes, j->qsize, j->rcodes, j->rsize, j->sq[i], j->sr[i], &h);
            j->qstart[i] = h.qstart, j->qend[i] = h.qend, j->score[i] = h.score, j->ids[i] = h.ids;
        }
    }
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
    Py_RETURN_NONE;
}
