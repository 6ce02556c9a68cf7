// Gapped alignments on the device (align.py, align_chains_cupy): align.c's anchors and gap fills,
// the same integer DP and the same traceback choices, so both give the same columns.
//
// align_anchors: a thread a chain block; its runs of at least min_anchor identical ACGT columns,
//   counted (fill 0) or written where the counts' sums say (fill 1).
// align_fill: a thread a gap between two anchors; the banded Gotoh DP row by row along the query, a
//   direction byte a cell in dir (at the gap's dir_at: (dx + 1) x the band's width), the rows of H
//   and F in rows (at row_at: twice the width), then the traceback into ops (at the gap's at).
// Positions index the query codes and the codes of the gap's reference strand (rr: the reverse
// complement). Launch: 1-D grid-stride loops, BLOCK threads a block.

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

extern "C" __global__ void align_fill(const unsigned char* q, const unsigned char* rf, const unsigned char* rr,
                                      const long long* qpos, const long long* rpos, const long long* gdx,
                                      const long long* gdy, const long long* at, const long long* dir_at,
                                      const long long* row_at, const signed char* strand, long long n, int match,
                                      int mismatch, int gap_open, int gap_extend, long long band, long long* score,
                                      long long* columns, long long* counts, unsigned char* ops_all,
                                      unsigned char* dir_all, int* rows_all) {
    for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < n;
         g += (long long)gridDim.x * blockDim.x) {
        const unsigned char* qs = q + qpos[g];
        const unsigned char* rs = (strand[g] ? rr : rf) + rpos[g];
        const long long dx = gdx[g], dy = gdy[g];
        long long lo, hi;
        band_of(dx, dy, band, &lo, &hi);
        const long long w = hi - lo + 1;
        const int go = gap_open + gap_extend, ge = gap_extend;
        unsigned char* dir = dir_all + dir_at[g];
        int* hrow = rows_all + row_at[g];
        int* frow = hrow + w;
        for (long long d = 0; d < w; d++)
            hrow[d] = frow[d] = NEG;
        for (long long i = 0; i <= dx; i++) {
            int e = NEG, hleft = NEG;
            const long long j0 = i + lo > 0 ? i + lo : 0, j1 = i + hi < dy ? i + hi : dy;
            unsigned char* row = dir + i * w;
            for (long long j = j0; j <= j1; j++) {
                const long long d = j - i - lo;
                int h, fv;
                if (i == 0 && j == 0) {
                    hrow[d] = 0;
                    frow[d] = NEG;
                    row[d] = 0;
                    hleft = 0;
                    e = NEG;
                    continue;
                }
                const int diag = i > 0 && j > 0 ? hrow[d] + column_score(qs[i - 1], rs[j - 1], match, mismatch) : NEG;
                const unsigned char bits = cell(j > j0, i > 0 && d + 1 < w, hleft, &e, d + 1 < w ? hrow[d + 1] : NEG,
                                                d + 1 < w ? frow[d + 1] : NEG, diag, go, ge, &h, &fv);
                hrow[d] = h;
                frow[d] = fv;
                row[d] = bits;
                hleft = h;
            }
            for (long long d = 0; d < j0 - i - lo; d++)
                hrow[d] = frow[d] = NEG;
            for (long long d = j1 - i - lo + 1; d < w; d++)
                hrow[d] = frow[d] = NEG;
        }
        score[g] = hrow[dy - dx - lo];
        unsigned char* ops = ops_all + at[g];
        long long i = dx, j = dy, k = 0;
        long long* c4 = counts + 4 * g;
        c4[0] = c4[1] = c4[2] = c4[3] = 0;
        int state = 0;
        while (i > 0 || j > 0) {
            const unsigned char bits = dir[i * w + (j - i - lo)];
            if (state == 0) {
                const int from = bits & 3;
                if (from == 0) {
                    const unsigned char a = qs[i - 1], c = rs[j - 1];
                    const unsigned char op = a == c && a < 4 ? 0 : 1;
                    ops[k++] = op;
                    c4[op]++;
                    i--;
                    j--;
                } else {
                    state = from;
                }
            } else if (state == 1) {
                ops[k++] = 3;
                c4[3]++;
                state = bits & E_OPEN ? 0 : 1;
                j--;
            } else {
                ops[k++] = 2;
                c4[2]++;
                state = bits & F_OPEN ? 0 : 2;
                i--;
            }
        }
        for (long long t = 0; t < k / 2; t++) {
            const unsigned char v = ops[t];
            ops[t] = ops[k - 1 - t];
            ops[k - 1 - t] = v;
        }
        columns[g] = k;
    }
}
