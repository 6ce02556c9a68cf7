// Gapped alignments on the device (align.py, align_chains_cupy): align.c's anchors, gap fills and
// ends' extensions, the same integer DP and the same traceback choices, so both give the same columns.
//
// align_anchors: a thread a chain block; its runs of at least min_anchor identical ACGT columns,
//   counted (fill 0) or written where the counts' sums say (fill 1).
// align_fill: a warp a gap between two anchors; the banded Gotoh DP in runs of 32 rows along the query,
//   a lane a row, each lane two cells behind the one before, whose H and F it takes by a shuffle (lane
//   0 reads the run before's last row from rows: at row_at, two runs' rows of H and F, four times the
//   band's width); a direction byte a cell in dir (at the gap's dir_at: (dx + 1) x the width), then
//   lane 0's traceback into ops (at the gap's at).
// Positions index the query codes and the codes of the gap's reference strand (rr: the reverse
// complement). Launch: 1-D grid-stride loops (over threads, or over warps for align_fill), BLOCK
// threads a block.

#include "scoring.h"

extern "C" __global__ void align_anchors(const unsigned char* q, const unsigned char* rf, const unsigned char* rr,
                                         const long long* qpos, const long long* rpos, const long long* len,
                                         const signed char* strand, long long n, long long min_anchor,
                                         long long* count, int fill, long long* ax, long long* ay,
                                         long long* alen) {
    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < n;
         b += (long long)gridDim.x * blockDim.x) {
        const unsigned char* qs = q + qpos[b];
        const unsigned char* rs = (strand[b] ? rr : rf) + rpos[b];
        long long found = 0, at = fill ? count[b] : 0, run = 0;
        for (long long i = 0; i <= len[b]; i++) {
            if (i < len[b] && qs[i] == rs[i] && qs[i] < 4) {
                run++;
                continue;
            }
            if (run >= min_anchor && !periodic(qs + i - run, run)) {
                if (fill) {
                    ax[at + found] = qpos[b] + i - run;
                    ay[at + found] = rpos[b] + i - run;
                    alen[at + found] = run;
                }
                found++;
            }
            run = 0;
        }
        if (!fill)
            count[b] = found;
    }
}

#define ALL 0xffffffffu

extern "C" __global__ void align_fill(const unsigned char* q, const unsigned char* rf, const unsigned char* rr,
                                      const long long* qpos, const long long* rpos, const long long* gdx,
                                      const long long* gdy, const long long* at, const long long* dir_at,
                                      const long long* row_at, const signed char* strand, long long n, int match,
                                      int mismatch, int gap_open, int gap_extend, long long band, long long* score,
                                      long long* columns, long long* counts, unsigned char* ops_all,
                                      unsigned char* dir_all, int* rows_all) {
    const int lane = threadIdx.x % WARP;
    const long long warps = (long long)gridDim.x * (blockDim.x / WARP);
    const int go = gap_open + gap_extend, ge = gap_extend;
    for (long long g = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / WARP; g < n; g += warps) {
        const gap_band b = gap_of(q, rf, rr, qpos, rpos, gdx, gdy, strand, g, band);
        const unsigned char *qs = b.q, *rs = b.r;
        const long long dx = b.dx, dy = b.dy, lo = b.lo, hi = b.hi, w = b.w;
        unsigned char* dir = dir_all + dir_at[g];
        int* carry = rows_all + row_at[g];  // two runs' last rows: H, then F
        for (long long top = 0, run = 0; top <= dx; top += WARP, run++) {
            const long long i = top + lane;
            const long long j0 = i + lo > 0 ? i + lo : 0, j1 = i + hi < dy ? i + hi : dy;
            const int* before = carry + (run & 1) * 2 * w;  // row top - 1
            int* after = carry + ((run + 1) & 1) * 2 * w;
            int e = NEG, hleft = NEG, kept_h = NEG, pub_h = NEG, pub_f = NEG;
            for (long long s = 0; s < w + 2 * (WARP - 1); s++) {
                // lane - 1's row (i - 1): its cell k + 1 made the step before, its cell k the step before that
                const int got_h = __shfl_up_sync(ALL, pub_h, 1), got_f = __shfl_up_sync(ALL, pub_f, 1);
                const long long k = s - 2 * lane, j = i + lo + k;
                pub_h = pub_f = NEG;
                if (i <= dx && k >= 0 && k < w) {
                    int h = NEG, fv = NEG;
                    if (j >= j0 && j <= j1) {
                        const int first = lane == 0;
                        const int up = i == 0 ? NEG : first ? before[k] : kept_h;
                        const int up_h = i == 0 || k + 1 >= w ? NEG : first ? before[k + 1] : got_h;
                        const int up_f = i == 0 || k + 1 >= w ? NEG : first ? before[w + k + 1] : got_f;
                        if (i == 0 && j == 0) {
                            h = 0, fv = NEG, hleft = 0, e = NEG;
                            dir[k] = 0;
                        } else {
                            const int diag = i > 0 && j > 0 ? up + column_score(qs[i - 1], rs[j - 1], match, mismatch)
                                                            : NEG;
                            dir[i * w + k] = cell(j > j0, i > 0 && k + 1 < w, hleft, &e, up_h, up_f, diag, go, ge, &h,
                                                  &fv);
                            hleft = h;
                        }
                        if (i == dx && j == dy)
                            score[g] = h;
                    }
                    pub_h = h, pub_f = fv;
                    if (lane == WARP - 1)
                        after[k] = h, after[w + k] = fv;
                }
                kept_h = got_h;
            }
            __syncwarp();
        }
        if (lane == 0)
            columns[g] = fill_trace(dir, w, lo, dx, dy, qs, rs, 1, ops_all + at[g], counts + COUNT_KINDS * g);
        __syncwarp();
    }
}

// align_extend: a thread an alignment's end (align.c's align_extend, through scoring.h's extend_rows), in two
//   passes: the first (dir_all unused) finds each end's best cell (score, dq, dr); the second computes the
//   rows up to that cell's again, writing their direction bytes (at the end's dir_at: (dq + 1) x (2 band +
//   1)), and traces its path back into ops (at the end's at). Ends first .. first + n - 1; rows_all: two
//   rows of 2 band + 1 ints a thread of the launch.
extern "C" __global__ void align_extend(const unsigned char* q, const unsigned char* rf, const unsigned char* rr,
                                        const long long* qpos, const long long* rpos, const signed char* step,
                                        const long long* lq, const long long* lr, const signed char* strand,
                                        const long long* at, long long first, long long n, int match, int mismatch,
                                        int gap_open, int gap_extend, long long band, int xdrop, int pass,
                                        long long* score, long long* dq, long long* dr, long long* counts,
                                        unsigned char* ops, const long long* dir_at, unsigned char* dir_all,
                                        int* rows_all) {
    const long long w = 2 * band + 1, threads = (long long)gridDim.x * blockDim.x;
    const long long me = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    int* hrow = rows_all + me * 2 * w;
    for (long long t = me; t < n; t += threads) {
        const long long e = first + t;
        const unsigned char *qs = q + qpos[e], *rs = (strand[e] ? rr : rf) + rpos[e];
        long long bi, bj;
        if (pass == 0) {
            score[e] = extend_rows(qs, rs, step[e], lq[e], lr[e], band, match, mismatch, gap_open + gap_extend,
                                   gap_extend, xdrop, hrow, hrow + w, 0, &bi, &bj);
            dq[e] = bi;
            dr[e] = bj;
        } else {
            unsigned char* dir = dir_all + dir_at[t];
            extend_rows(qs, rs, step[e], dq[e], lr[e], band, match, mismatch, gap_open + gap_extend, gap_extend,
                        xdrop, hrow, hrow + w, dir, &bi, &bj);
            fill_trace(dir, w, -band, bi, bj, qs, rs, step[e], ops + at[e], counts + COUNT_KINDS * e);
        }
    }
}
