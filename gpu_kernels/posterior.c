/* Posterior decoding of the gaps between anchors on the host (posterior.py's posterior_pass): posterior.h's
 * posterior_gap for each gap, on threads that take gaps off a shared counter; posterior.cu is the device
 * twin. */
#include "cpu.h"
#include "posterior.h"

#include <stdlib.h>

typedef struct {
    const uint8_t *q, *rf, *rr;
    const int64_t *qpos, *rpos, *dx, *dy, *at;
    const int8_t *strand;
    int64_t n;
    pair_hmm h;
    int match, mismatch, go, ge, band;
    int64_t *score, *columns, *counts;
    uint8_t *ops;
    int64_t next;
    int failed;
} posterior_job;

/* The doubles a gap's decoding takes on the host: B_M and B_I of every cell, and nine rows. */
static int64_t posterior_doubles(int64_t dx, int64_t w) {
    return 2 * (dx + 1) * w + 9 * w;
}

/* One gap (q: its query bases, r: its reference bases on the gap's strand, dx and dy of them), row after
 * row: its columns at ops, counts at c4, their number at columns; returns their integer score. */
static int64_t posterior_gap(const uint8_t *q, const uint8_t *r, int64_t dx, int64_t dy, int64_t band,
                             const pair_hmm *h, int match, int mismatch, int go, int ge, double *scratch,
                             uint8_t *dir, uint8_t *ops, int64_t *c4, int64_t *columns) {
    int64_t lo, hi;
    band_of(dx, dy, band, &lo, &hi);
    const int64_t w = hi - lo + 1;
    double *bm = scratch, *bx = scratch + (dx + 1) * w, *row = scratch + 2 * (dx + 1) * w;
    double *by = row, *fm0 = row + w, *fi0 = row + 2 * w, *fd0 = row + 3 * w, *fm = row + 4 * w, *fi = row + 5 * w,
           *fd = row + 6 * w, *a0 = row + 7 * w, *a = row + 8 * w;
    /* backward, rows dx down to 0; a cell's diagonal neighbour has its k, the one below k - 1, the right one k + 1 */
    for (int64_t i = dx; i >= 0; i--) {
        double *m = bm + i * w, *x = bx + i * w, sum = 0;
        const double *m1 = bm + (i + 1) * w, *x1 = bx + (i + 1) * w;  /* read only where i < dx */
        for (int64_t k = 0; k < w; k++)
            m[k] = x[k] = by[k] = 0;
        const int64_t j0 = i + lo > 0 ? i + lo : 0, j1 = i + hi < dy ? i + hi : dy;
        for (int64_t j = j1; j >= j0; j--) {
            const int64_t k = j - i - lo;
            backward_cell(h, i == dx && j == dy, i < dx && j < dy ? emission(h, q[i], r[j]) * m1[k] : 0,
                          i < dx && k > 0 ? x1[k - 1] : 0, j < j1 ? by[k + 1] : 0, m + k, x + k, by + k);
            sum += m[k] + x[k] + by[k];
        }
        if ((dx - i) % POSTERIOR_ROWS == POSTERIOR_ROWS - 1) {
            const double scale = 1 / sum;
            for (int64_t k = 0; k < w; k++)
                m[k] *= scale, x[k] *= scale;
        }
    }
    /* forward, rows 0 to dx, each row's posteriors and the centroid's row as soon as it is made */
    for (int64_t k = 0; k < w; k++)  /* row 0 reads none of them */
        fm0[k] = fi0[k] = fd0[k] = 0, a0[k] = UNREACHED;
    for (int64_t i = 0; i <= dx; i++) {
        const int64_t j0 = i + lo > 0 ? i + lo : 0, j1 = i + hi < dy ? i + hi : dy;
        uint8_t *dr = dir + i * w;
        double sum = 0, z = 0;
        for (int64_t k = 0; k < w; k++)
            fm[k] = fi[k] = fd[k] = 0, a[k] = UNREACHED;
        for (int64_t j = j0; j <= j1; j++) {
            const int64_t k = j - i - lo, right = k + 1 < w;
            forward_cell(h, i, j, right, j > j0, i > 0 && j > 0 ? emission(h, q[i - 1], r[j - 1]) : 0, fm0[k], fi0[k],
                         fd0[k], right ? fm0[k + 1] : 0, right ? fi0[k + 1] : 0, j > j0 ? fm[k - 1] : 0,
                         j > j0 ? fd[k - 1] : 0, fm + k, fi + k, fd + k);
            sum += fm[k] + fi[k] + fd[k];
            z += fm[k] * bm[i * w + k] + fi[k] * bx[i * w + k];
        }
        const double per_z = 1 / z;
        for (int64_t j = j0; j <= j1; j++) {
            const int64_t k = j - i - lo;
            a[k] = centroid_cell(h, i, j, a0[k], k + 1 < w ? a0[k + 1] : UNREACHED, j > j0 ? a[k - 1] : UNREACHED,
                                 fm[k] * bm[i * w + k], per_z, dr + k);
        }
        const double scale = i % POSTERIOR_ROWS == POSTERIOR_ROWS - 1 ? 1 / sum : 1;
        for (int64_t k = 0; k < w; k++) {
            fm0[k] = fm[k] * scale, fi0[k] = fi[k] * scale, fd0[k] = fd[k] * scale;
            a0[k] = a[k];
        }
    }
    return posterior_trace(q, r, dx, dy, lo, w, dir, match, mismatch, go, ge, ops, c4, columns);
}

static void posterior_part(void *arg, int t, int threads) {
    posterior_job *p = (posterior_job *)arg;
    (void)t, (void)threads;
    int64_t cap = 0, dcap = 0;
    double *scratch = NULL;
    uint8_t *dir = NULL;
    for (;;) {
        const int64_t g = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (g >= p->n)
            break;
        int64_t lo, hi;
        band_of(p->dx[g], p->dy[g], p->band, &lo, &hi);
        if (!posterior_decoded(&p->h, hi - lo + 1))
            continue;
        const int64_t w = hi - lo + 1, doubles = posterior_doubles(p->dx[g], w), cells = (p->dx[g] + 1) * w;
        if (doubles > cap || cells > dcap) {
            free(scratch), free(dir);
            cap = doubles > cap ? doubles : cap;
            dcap = cells > dcap ? cells : dcap;
            scratch = malloc((size_t)cap * sizeof(double));
            dir = malloc((size_t)dcap);
            if (!scratch || !dir) {
                __atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
                break;
            }
        }
        p->score[g] = posterior_gap(p->q + p->qpos[g], (p->strand[g] ? p->rr : p->rf) + p->rpos[g], p->dx[g],
                                    p->dy[g], p->band, &p->h, p->match, p->mismatch, p->go, p->ge, scratch, dir,
                                    p->ops + p->at[g], p->counts + COUNT_KINDS * g, p->columns + g);
    }
    free(scratch), free(dir);
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
                       pair_hmm_of(sigma, delta, epsilon, gamma), match, mismatch, go + ge, ge, band, b[9].buf, b[10].buf,
                       b[11].buf, b[12].buf, 0, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(posterior_part, &p, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    if (p.failed)
        PyErr_NoMemory();
    return release_buffers(b, 13, !p.failed);
}
