/* Posterior decoding of the gaps between anchors (posterior.py's posterior_pass; tests/oracle_posterior.py is
 * the oracle). A pair HMM (states M, a query base against a gap I, a reference base against a gap D;
 * its rates fitted to the pair's first fills) gives each cell of a gap's band the posterior probability
 * P that its query and reference bases are aligned, by forward and backward; the gap's columns become
 * the gamma-centroid path, the one with the most of (gamma + 1) P - 1 over its aligned pairs (P alone
 * for gamma inf): pairs too uncertain are left as an insertion and a deletion. Both anchors hold: the
 * path runs from the cell after one to the cell before the next, in M at both ends.
 *
 * Cell (i, j): i query bases and j reference bases of the gap taken; the band is align_fill's (band_of).
 * Emissions are over the background's (a pair 4 (1 - sigma) if equal and ACGT, 4 sigma / 3 otherwise;
 * a lone base 1); rows are rescaled to sum 1 as they are made, which leaves P unchanged: P(i, j) is
 * F_M B_M over the row's sum of F_M B_M and F_I B_I, each query base being in M or I exactly once.
 * Both backends run this code on the host (no device twin yet), so their columns are the same. */
#include "cpu.h"
#include "scoring.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    const uint8_t *q, *rf, *rr;
    const int64_t *qpos, *rpos, *dx, *dy, *at;
    const int8_t *strand;
    int64_t n;
    double sigma, delta, epsilon, gamma;
    int match, mismatch, go, ge, band;
    int64_t *score, *columns, *counts;
    uint8_t *ops;
    int64_t next;
    int failed;
} posterior_job;

#define UNREACHED (-1e300)

/* One gap: its columns written at ops (in order), its counts, and its score under the integer scores. */
static int64_t posterior_gap(const posterior_job *p, int64_t g, double *bm, double *bx, uint8_t *dir, double *row) {
    const uint8_t *q = p->q + p->qpos[g], *r = (p->strand[g] ? p->rr : p->rf) + p->rpos[g];
    const int64_t dx = p->dx[g], dy = p->dy[g];
    int64_t lo, hi;
    band_of(dx, dy, p->band, &lo, &hi);
    const int64_t w = hi - lo + 1;
    const double same = 4 * (1 - p->sigma), other = 4 * p->sigma / 3, d = p->delta, e = p->epsilon;
    const double t_mm = 1 - 2 * d, t_gm = 1 - e;
    double *by = row, *fm0 = row + w, *fi0 = row + 2 * w, *fd0 = row + 3 * w, *fm = row + 4 * w, *fi = row + 5 * w,
           *fd = row + 6 * w, *a0 = row + 7 * w, *a = row + 8 * w;
#define EMIT(i, j) (q[(i) - 1] == r[(j) - 1] && q[(i) - 1] < 4 ? same : other)
    /* backward, rows dx down to 0; a cell's diagonal neighbour has its d, the one below d - 1, the right one d + 1 */
    for (int64_t i = dx; i >= 0; i--) {
        double *m = bm + i * w, *x = bx + i * w, sum = 0;
        const double *m1 = bm + (i + 1) * w, *x1 = bx + (i + 1) * w;
        for (int64_t k = 0; k < w; k++)
            m[k] = x[k] = by[k] = 0;
        const int64_t j0 = i + lo > 0 ? i + lo : 0, j1 = i + hi < dy ? i + hi : dy;
        for (int64_t j = j1; j >= j0; j--) {
            const int64_t k = j - i - lo;
            if (i == dx && j == dy) {
                m[k] = t_mm, x[k] = by[k] = t_gm;
            } else {
                const double diag = i < dx && j < dy ? EMIT(i + 1, j + 1) * m1[k] : 0;
                const double down = i < dx && k > 0 ? x1[k - 1] : 0;
                const double right = j < j1 ? by[k + 1] : 0;
                m[k] = t_mm * diag + d * down + d * right;
                x[k] = t_gm * diag + e * down;
                by[k] = t_gm * diag + e * right;
            }
            sum += m[k] + x[k] + by[k];
        }
        const double scale = 1 / sum;
        for (int64_t k = 0; k < w; k++)
            m[k] *= scale, x[k] *= scale;
    }
    /* forward, rows 0 to dx, each row's posteriors and the centroid's row as soon as it is made */
    const int mea = isinf(p->gamma);
    for (int64_t i = 0; i <= dx; i++) {
        const int64_t j0 = i + lo > 0 ? i + lo : 0, j1 = i + hi < dy ? i + hi : dy;
        uint8_t *dr = dir + i * w;
        double sum = 0, z = 0;
        for (int64_t k = 0; k < w; k++)
            fm[k] = fi[k] = fd[k] = 0, a[k] = UNREACHED;
        for (int64_t j = j0; j <= j1; j++) {
            const int64_t k = j - i - lo;
            if (i == 0) {
                fm[k] = j == 0;
                fd[k] = j > 0 ? d * fm[k - 1] + e * fd[k - 1] : 0;
            } else {
                fm[k] = j > 0 ? EMIT(i, j) * (t_mm * fm0[k] + t_gm * (fi0[k] + fd0[k])) : 0;
                fi[k] = k + 1 < w ? d * fm0[k + 1] + e * fi0[k + 1] : 0;
                fd[k] = j > j0 ? d * fm[k - 1] + e * fd[k - 1] : 0;
            }
            sum += fm[k] + fi[k] + fd[k];
            z += fm[k] * bm[i * w + k] + fi[k] * bx[i * w + k];
        }
        const double per_z = 1 / z, scale = 1 / sum;
        for (int64_t j = j0; j <= j1; j++) {
            const int64_t k = j - i - lo;
            double best = UNREACHED;
            uint8_t from = 2;
            if (i == 0 && j == 0) {
                best = 0, from = 0;
            } else {
                if (i > 0 && j > 0 && a0[k] > UNREACHED) {
                    const double post = fm[k] * bm[i * w + k] * per_z;
                    best = a0[k] + (mea ? post : (p->gamma + 1) * post - 1), from = 0;
                }
                if (i > 0 && k + 1 < w && a0[k + 1] > best)
                    best = a0[k + 1], from = 1;
                if (j > j0 && a[k - 1] > best)
                    best = a[k - 1], from = 2;
            }
            a[k] = best;
            dr[k] = from;
        }
        for (int64_t k = 0; k < w; k++) {
            fm0[k] = fm[k] * scale, fi0[k] = fi[k] * scale, fd0[k] = fd[k] * scale;
            a0[k] = a[k];
        }
    }
#undef EMIT
    /* the centroid's columns, traced back from (dx, dy) */
    uint8_t *ops = p->ops + p->at[g];
    int64_t *c4 = p->counts + 4 * g, i = dx, j = dy, k = 0, score = 0, run = 0;
    c4[0] = c4[1] = c4[2] = c4[3] = 0;
    while (i > 0 || j > 0) {
        const uint8_t from = dir[i * w + (j - i - lo)];
        const uint8_t op = from == 0 ? (q[i - 1] == r[j - 1] && q[i - 1] < 4 ? 0 : 1) : from == 1 ? 2 : 3;
        ops[k++] = op;
        c4[op]++;
        i -= from != 2;
        j -= from != 1;
    }
    for (int64_t t = 0; t < k / 2; t++) {
        const uint8_t v = ops[t];
        ops[t] = ops[k - 1 - t];
        ops[k - 1 - t] = v;
    }
    for (int64_t t = 0; t < k; t++) {  /* gap_open + gap_extend a run's first column, gap_extend the others */
        const uint8_t op = ops[t];
        run = op >= 2 && t > 0 && ops[t - 1] == op ? run + 1 : (op >= 2);
        score += op == 0 ? p->match : op == 1 ? -p->mismatch : run == 1 ? -p->go : -p->ge;
    }
    p->columns[g] = k;
    return score;
}

static void posterior_part(void *arg, int t, int threads) {
    posterior_job *p = (posterior_job *)arg;
    (void)t, (void)threads;
    size_t cap = 0, wcap = 0;
    double *b = NULL, *row = NULL;
    uint8_t *dir = NULL;
    for (;;) {
        const int64_t g = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (g >= p->n)
            break;
        int64_t lo, hi;
        band_of(p->dx[g], p->dy[g], p->band, &lo, &hi);
        const size_t w = (size_t)(hi - lo + 1), cells = (size_t)(p->dx[g] + 2) * w;
        if (cells > cap || w > wcap) {
            free(b), free(row), free(dir);
            cap = cells > cap ? cells : cap;
            wcap = w > wcap ? w : wcap;
            b = malloc(2 * cap * sizeof(double));
            row = malloc(9 * wcap * sizeof(double));
            dir = malloc(cap);
            if (!b || !row || !dir) {
                __atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
                break;
            }
        }
        p->score[g] = posterior_gap(p, g, b, b + cap, dir, row);
    }
    free(b), free(row), free(dir);
}

PyObject *py_align_posterior(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer b[13];
    double sigma, delta, epsilon, gamma;
    int match, mismatch, go, ge, band, threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*ddddiiiiiw*w*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
                          &b[6], &b[7], &b[8], &sigma, &delta, &epsilon, &gamma, &match, &mismatch, &go, &ge, &band,
                          &b[9], &b[10], &b[11], &b[12], &threads))
        return NULL;
    const int64_t n = b[3].len / 8;
    if (!(band >= 0 && sigma > 0 && sigma < 0.75 && delta > 0 && 2 * delta < 1 && epsilon > 0 && epsilon < 1 &&
          gamma > 0)) {
        PyErr_SetString(PyExc_ValueError, "align_posterior: a rate or gamma out of range");
        return release_buffers(b, 13, 0);
    }
    if (!gap_buffers_ok(b, "align_posterior"))
        return release_buffers(b, 13, 0);
    posterior_job p = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf, b[7].buf, b[8].buf, n,
                       sigma, delta, epsilon, gamma, match, mismatch, go + ge, ge, band, b[9].buf, b[10].buf,
                       b[11].buf, b[12].buf, 0, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(posterior_part, &p, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    if (p.failed)
        PyErr_NoMemory();
    return release_buffers(b, 13, !p.failed);
}
