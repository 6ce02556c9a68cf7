// Posterior decoding of the gaps between anchors on the device (posterior.py, posterior_pass_cupy): the
// host twin's (posterior.c) rows, cells and sums, made by a warp a gap, so both give the same columns.
//
// align_posterior: a warp a gap. Its rows go in runs of WARP (32, posterior.h's POSTERIOR_ROWS), a lane a row: lane t makes
// its row's cells one a step, two cells behind lane t - 1, whose cells it takes by a shuffle (lane 0
// reads the run before's last row from memory). Each lane sums its own row in the host's order, so the
// sums, scales and posteriors are the host's to the last bit (--fmad=false: kernels.nvcc_options).
// Three passes of runs: backward (rows dx down to 0, each row right to left), forward (rows 0 to dx, left
// to right: each row's normaliser and F_M B_M of each cell kept), then the centroid (rows 0 to dx, left
// to right, its direction bytes); lane 0 traces the columns back. A gap's doubles at scratch_at:
// B_M, B_I and F_M B_M of every cell ((dx + 1) x the band's width w each), two runs' last rows of F_M,
// F_I, F_D and the gains (8 w), each row's 1 / z (dx + 1); its direction bytes at dir_at ((dx + 1) w).
// Positions index the query codes and the codes of the gap's reference strand (rr: the reverse
// complement). Launch: 1-D grid-stride over warps, BLOCK threads a block.

#include "posterior.h"

static_assert(WARP == POSTERIOR_ROWS, "the host rescales the rows where a warp's run of them ends");

#define ALL 0xffffffffu

// steps a run takes: the last lane starts 2 (WARP - 1) steps after the first
#define STEPS(w) ((w) + 2 * (WARP - 1))

__device__ void backward_pass(const pair_hmm* h, const unsigned char* qs, const unsigned char* rs, long long dx,
                              long long dy, long long lo, long long hi, long long w, double* bm, double* bx,
                              int lane) {
    for (long long top = dx; top >= 0; top -= WARP) {
        const long long i = top - lane;
        const long long j0 = i + lo > 0 ? i + lo : 0, j1 = i + hi < dy ? i + hi : dy;
        double sum = 0, right = 0, kept_m = 0, pub_m = 0, pub_x = 0;
        for (long long s = 0; s < STEPS(w); s++) {
            // lane - 1's row (i + 1): its cell k - 1 made the step before, its cell k the step before that
            const double got_m = __shfl_up_sync(ALL, pub_m, 1), got_x = __shfl_up_sync(ALL, pub_x, 1);
            const long long k = w - 1 - (s - 2 * lane), j = i + lo + k;
            pub_m = pub_x = 0;
            if (i >= 0 && k >= 0 && k < w) {
                double m = 0, x = 0, y = 0;
                if (j >= j0 && j <= j1) {
                    const double* m1 = bm + (i + 1) * w;
                    const double* x1 = bx + (i + 1) * w;
                    const double below_m = lane ? kept_m : i < dx ? m1[k] : 0;
                    const double below_x = lane ? got_x : i < dx && k > 0 ? x1[k - 1] : 0;
                    backward_cell(h, i == dx && j == dy, i < dx && j < dy ? emission(h, qs[i], rs[j]) * below_m : 0,
                                  i < dx && k > 0 ? below_x : 0, j < j1 ? right : 0, &m, &x, &y);
                    sum += m + x + y;
                }
                bm[i * w + k] = m, bx[i * w + k] = x;
                right = y;
                pub_m = m, pub_x = x;
            }
            kept_m = got_m;
        }
        // the run's last row (lane WARP - 1's) rescaled, as the host rescales it, before the next run reads it
        const double scale = __shfl_sync(ALL, 1 / sum, WARP - 1);
        __syncwarp();
        const long long last = top - (WARP - 1);
        if (last >= 0)
            for (long long k = lane; k < w; k += WARP)
                bm[last * w + k] *= scale, bx[last * w + k] *= scale;
        __syncwarp();
    }
}

__device__ void forward_pass(const pair_hmm* h, const unsigned char* qs, const unsigned char* rs, long long dx,
                             long long dy, long long lo, long long hi, long long w, const double* bm,
                             const double* bx, double* fmbm, double* carry, double* per_z, int lane) {
    for (long long top = 0, run = 0; top <= dx; top += WARP, run++) {
        const long long i = top + lane;
        const long long j0 = i + lo > 0 ? i + lo : 0, j1 = i + hi < dy ? i + hi : dy;
        const double* before = carry + (run & 1) * 4 * w;  // F_M, F_I, F_D of row top - 1
        double* after = carry + ((run + 1) & 1) * 4 * w;
        double sum = 0, z = 0, left_m = 0, left_d = 0, kept_m = 0, kept_i = 0, kept_d = 0, pub_m = 0, pub_i = 0,
               pub_d = 0;
        for (long long s = 0; s < STEPS(w); s++) {
            // lane - 1's row (i - 1): its cell k + 1 made the step before, its cell k the step before that
            const double got_m = __shfl_up_sync(ALL, pub_m, 1), got_i = __shfl_up_sync(ALL, pub_i, 1),
                         got_d = __shfl_up_sync(ALL, pub_d, 1);
            const long long k = s - 2 * lane, j = i + lo + k;
            pub_m = pub_i = pub_d = 0;
            if (i <= dx && k >= 0 && k < w) {
                double fm = 0, fi = 0, fd = 0;
                if (j >= j0 && j <= j1) {
                    const int on_right = k + 1 < w, first = lane == 0 && i > 0;
                    const double m0 = first ? before[k] : kept_m, i0 = first ? before[w + k] : kept_i,
                                 d0 = first ? before[2 * w + k] : kept_d;
                    const double mr = !on_right ? 0 : first ? before[k + 1] : got_m;
                    const double ir = !on_right ? 0 : first ? before[w + k + 1] : got_i;
                    forward_cell(h, i, j, on_right, j > j0, i > 0 && j > 0 ? emission(h, qs[i - 1], rs[j - 1]) : 0,
                                 i > 0 ? m0 : 0, i > 0 ? i0 : 0, i > 0 ? d0 : 0, i > 0 ? mr : 0, i > 0 ? ir : 0,
                                 j > j0 ? left_m : 0, j > j0 ? left_d : 0, &fm, &fi, &fd);
                    sum += fm + fi + fd;
                    z += fm * bm[i * w + k] + fi * bx[i * w + k];
                    fmbm[i * w + k] = fm * bm[i * w + k];
                }
                left_m = fm, left_d = fd;
                pub_m = fm, pub_i = fi, pub_d = fd;
                if (lane == WARP - 1)
                    after[k] = fm, after[w + k] = fi, after[2 * w + k] = fd;
            }
            kept_m = got_m, kept_i = got_i, kept_d = got_d;
        }
        if (i <= dx)
            per_z[i] = 1 / z;
        const double scale = __shfl_sync(ALL, 1 / sum, WARP - 1);
        __syncwarp();
        if (top + WARP - 1 <= dx)
            for (long long k = lane; k < w; k += WARP)
                after[k] *= scale, after[w + k] *= scale, after[2 * w + k] *= scale;
        __syncwarp();
    }
}

__device__ void centroid_pass(const pair_hmm* h, long long dx, long long dy, long long lo, long long hi, long long w,
                              const double* fmbm, const double* per_z, double* carry, unsigned char* dir, int lane) {
    for (long long top = 0, run = 0; top <= dx; top += WARP, run++) {
        const long long i = top + lane;
        const long long j0 = i + lo > 0 ? i + lo : 0, j1 = i + hi < dy ? i + hi : dy;
        const double* before = carry + (run & 1) * 4 * w + 3 * w;  // the gains of row top - 1
        double* after = carry + ((run + 1) & 1) * 4 * w + 3 * w;
        double left = UNREACHED, kept = UNREACHED, pub = UNREACHED;
        for (long long s = 0; s < STEPS(w); s++) {
            const double got = __shfl_up_sync(ALL, pub, 1);
            const long long k = s - 2 * lane, j = i + lo + k;
            pub = UNREACHED;
            if (i <= dx && k >= 0 && k < w) {
                double a = UNREACHED;
                if (j >= j0 && j <= j1) {
                    const int first = lane == 0 && i > 0;
                    const double a0 = i == 0 ? UNREACHED : first ? before[k] : kept;
                    const double ar = i == 0 || k + 1 >= w ? UNREACHED : first ? before[k + 1] : got;
                    a = centroid_cell(h, i, j, a0, ar, j > j0 ? left : UNREACHED, fmbm[i * w + k], per_z[i],
                                      dir + i * w + k);
                }
                left = a;
                pub = a;
                if (lane == WARP - 1)
                    after[k] = a;
            }
            kept = got;
        }
        __syncwarp();
    }
}

extern "C" __global__ void align_posterior(const unsigned char* q, const unsigned char* rf, const unsigned char* rr,
                                           const long long* qpos, const long long* rpos, const long long* gdx,
                                           const long long* gdy, const long long* at, const long long* scratch_at,
                                           const long long* dir_at, const signed char* strand, long long n,
                                           double sigma, double delta, double epsilon, double gamma, int match,
                                           int mismatch, int gap_open, int gap_extend, long long band,
                                           long long* score, long long* columns, long long* counts,
                                           unsigned char* ops_all, double* scratch_all, unsigned char* dir_all) {
    const int lane = threadIdx.x % WARP;
    const long long warps = (long long)gridDim.x * (blockDim.x / WARP);
    const pair_hmm h = pair_hmm_of(sigma, delta, epsilon, gamma);
    for (long long g = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / WARP; g < n; g += warps) {
        const gap_band b = gap_of(q, rf, rr, qpos, rpos, gdx, gdy, strand, g, band);
        const unsigned char *qs = b.q, *rs = b.r;
        const long long dx = b.dx, dy = b.dy, lo = b.lo, hi = b.hi, w = b.w;
        if (!posterior_decoded(&h, w))  // the whole warp's gap: its first fill kept
            continue;
        double* bm = scratch_all + scratch_at[g];
        double* bx = bm + (dx + 1) * w;
        double* fmbm = bx + (dx + 1) * w;
        double* carry = fmbm + (dx + 1) * w;
        double* per_z = carry + 8 * w;
        unsigned char* dir = dir_all + dir_at[g];
        backward_pass(&h, qs, rs, dx, dy, lo, hi, w, bm, bx, lane);
        forward_pass(&h, qs, rs, dx, dy, lo, hi, w, bm, bx, fmbm, carry, per_z, lane);
        centroid_pass(&h, dx, dy, lo, hi, w, fmbm, per_z, carry, dir, lane);
        if (lane == 0)
            score[g] = posterior_trace(qs, rs, dx, dy, lo, w, dir, match, mismatch, gap_open + gap_extend, gap_extend,
                                       ops_all + at[g], counts + COUNT_KINDS * g, columns + g);
        __syncwarp();
    }
}
