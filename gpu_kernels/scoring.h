/* Alignment scoring, defined once for the host (align.c) and the device (align.cu): a column's score,
 * one cell of the affine-gap (Gotoh) recurrence with the traceback's choices, the band of a gap, a
 * gap's pieces and band as the fills take them, the fills' traceback, an end's X-drop extension, and the
 * microsatellite test of
 * anchors. Both twins include this file, so that their columns stay the same (tests/test_gpu_stages.py);
 * kernels.source puts its text in place of the include for NVRTC and for the fatbins' digests.
 * docs/DEFINITIONS.md, "What an alignment is", gives the rules; tests/oracle_align.py is the oracle. */
#ifndef GPU_KERNELS_SCORING_H
#define GPU_KERNELS_SCORING_H

#ifdef __CUDACC__
#define SCORING_FN __device__ __forceinline__
typedef long long scoring_i64;
#else
#include <stdint.h>
#define SCORING_FN static inline
typedef int64_t scoring_i64;
#endif

/* off the band: far below any reachable score, with room to subtract costs */
#define NEG (-(1 << 30))
/* a cell's direction bits: where H came from (the diagonal is 0), whether E and F opened there */
#define FROM_E 1
#define FROM_F 2
#define E_OPEN 4
#define F_OPEN 8
/* the longest unit a microsatellite repeats */
#define MAX_PERIOD 6
/* a gap's or an end's columns counted by kind: =, X, I, D, and of the X those holding an N */
#define COUNT_KINDS 5

/* A column's score: match for equal ACGT bases, -mismatch for other bases, 0 where either is N (an
 * assembly gap's base is unknown: evidence neither for nor against homology, so that an alignment
 * crosses a gap where both sides go on collinearly). */
SCORING_FN int column_score(unsigned char a, unsigned char c, int match, int mismatch) {
    return a > 3 || c > 3 ? 0 : a == c ? match : -mismatch;
}

/* One cell (tests/oracle_align.cell): E from the cell on the left (hleft, e; none at a row's first
 * cell), F from the cell above (above_h, above_f; none off the row before), H the best of the
 * diagonal (diag: the cell before plus the column's score, NEG where none), E and F, the diagonal
 * first, then E. go: opening a gap with its first base; ge: each further base. Writes h and fv,
 * updates e; returns the direction bits. */
SCORING_FN unsigned char cell(int has_left, int has_above, int hleft, int *e, int above_h, int above_f, int diag,
                              int go, int ge, int *h, int *fv) {
    unsigned char bits = 0;
    if (has_left) {
        const int open = hleft - go, ext = *e - ge;
        *e = open >= ext ? open : ext;
        bits |= open >= ext ? E_OPEN : 0;
    } else {
        *e = NEG;
        bits |= E_OPEN;
    }
    if (has_above) {
        const int open = above_h - go, ext = above_f - ge;
        *fv = open >= ext ? open : ext;
        bits |= open >= ext ? F_OPEN : 0;
    } else {
        *fv = NEG;
        bits |= F_OPEN;
    }
    if (diag >= *e && diag >= *fv) {
        *h = diag;
    } else if (*e >= *fv) {
        *h = *e;
        bits |= FROM_E;
    } else {
        *h = *fv;
        bits |= FROM_F;
    }
    return bits;
}

/* The band of a gap of dx query and dy reference bases: the diagonals j - i in [lo, hi], band wider
 * than the gap's own diagonal span on each side, within the gap. */
SCORING_FN void band_of(scoring_i64 dx, scoring_i64 dy, scoring_i64 band, scoring_i64 *lo, scoring_i64 *hi) {
    *lo = (dy - dx < 0 ? dy - dx : 0) - band;
    *hi = (dy - dx > 0 ? dy - dx : 0) + band;
    if (*lo < -dx)
        *lo = -dx;
    if (*hi > dy)
        *hi = dy;
}

/* A gap between two anchors as the fills take it (align_fill, align_posterior): its query bases, its
 * reference bases on its strand (rr: the reverse complement's codes), its sizes and its band. */
typedef struct {
    const unsigned char *q, *r;
    scoring_i64 dx, dy, lo, hi, w;
} gap_band;

SCORING_FN gap_band gap_of(const unsigned char *q, const unsigned char *rf, const unsigned char *rr,
                           const scoring_i64 *qpos, const scoring_i64 *rpos, const scoring_i64 *gdx,
                           const scoring_i64 *gdy, const signed char *strand, scoring_i64 g, scoring_i64 band) {
    gap_band b;
    b.q = q + qpos[g], b.r = (strand[g] ? rr : rf) + rpos[g], b.dx = gdx[g], b.dy = gdy[g];
    band_of(b.dx, b.dy, band, &b.lo, &b.hi);
    b.w = b.hi - b.lo + 1;
    return b;
}

/* The path from (i, j) back to (0, 0) through the direction bytes (row i at dir + i * w, cell j at
 * j - i - lo), its columns written at ops from (0, 0) on and counted by kind (COUNT_KINDS); returns how many. The
 * query's base of row i is q[step * (i - 1)], the reference's of column j r[step * (j - 1)]. */
SCORING_FN scoring_i64 fill_trace(const unsigned char *dir, scoring_i64 w, scoring_i64 lo, scoring_i64 i, scoring_i64 j,
                                  const unsigned char *q, const unsigned char *r, scoring_i64 step, unsigned char *ops,
                                  scoring_i64 *counts) {
    scoring_i64 n = 0;
    int state = 0; /* 0 H, 1 E, 2 F */
    counts[0] = counts[1] = counts[2] = counts[3] = counts[4] = 0;
    while (i > 0 || j > 0) {
        const unsigned char bits = dir[i * w + (j - i - lo)];
        if (state == 0) {
            const int from = bits & 3;
            if (from == 0) {
                const unsigned char a = q[step * (i - 1)], c = r[step * (j - 1)];
                const unsigned char op = a == c && a < 4 ? 0 : 1;
                ops[n++] = op;
                counts[op]++;
                counts[4] += a > 3 || c > 3;
                i--;
                j--;
            } else {
                state = from;
            }
        } else if (state == 1) {
            ops[n++] = 3;
            counts[3]++;
            state = bits & E_OPEN ? 0 : 1;
            j--;
        } else {
            ops[n++] = 2;
            counts[2]++;
            state = bits & F_OPEN ? 0 : 2;
            i--;
        }
    }
    for (scoring_i64 k = 0; k < n / 2; k++) {
        const unsigned char t = ops[k];
        ops[k] = ops[n - 1 - k];
        ops[n - 1 - k] = t;
    }
    return n;
}

/* An alignment's end extended with an X-drop (docs/DEFINITIONS.md, "What an alignment is", 6;
 * tests/oracle_align.extend): rows i = 0 .. last_row along the query bases q[step * (i - 1)], cells
 * |j - i| <= band with j <= lr along the reference's r[step * (j - 1)]; no row after one whose best is
 * more than xdrop below the best so far. hrow, frow: scratch of 2 band + 1 ints each; dir: a direction
 * byte a cell (row i at dir + i * (2 band + 1)), or none (0). The best cell (the highest, the first of
 * equal ones in row order; (0, 0) where none beats 0) at *bi, *bj; returns its score. Run again to
 * last_row = *bi, it computes the same rows: the device's second pass writes the directions so. */
SCORING_FN int extend_rows(const unsigned char *q, const unsigned char *r, scoring_i64 step, scoring_i64 last_row,
                           scoring_i64 lr, scoring_i64 band, int match, int mismatch, int go, int ge, int xdrop,
                           int *hrow, int *frow, unsigned char *dir, scoring_i64 *bi, scoring_i64 *bj) {
    const scoring_i64 lo = -band, w = 2 * band + 1;
    int best = 0;
    *bi = *bj = 0;
    for (scoring_i64 d = 0; d < w; d++)
        hrow[d] = frow[d] = NEG;
    for (scoring_i64 i = 0; i <= last_row; i++) {
        int e = NEG, hleft = NEG, row_best = NEG;
        const scoring_i64 j0 = i + lo > 0 ? i + lo : 0, j1 = i - lo < lr ? i - lo : lr;
        for (scoring_i64 j = j0; j <= j1; j++) {
            const scoring_i64 d = j - i - lo;
            int h = 0, fv = NEG;
            unsigned char bits = 0;
            if (i == 0 && j == 0) {
                e = NEG;
            } else {
                const unsigned char a = i > 0 ? q[step * (i - 1)] : 0, c = j > 0 ? r[step * (j - 1)] : 0;
                const int diag = i > 0 && j > 0 ? hrow[d] + column_score(a, c, match, mismatch) : NEG;
                bits = cell(j > j0, i > 0 && d + 1 < w, hleft, &e, d + 1 < w ? hrow[d + 1] : NEG,
                            d + 1 < w ? frow[d + 1] : NEG, diag, go, ge, &h, &fv);
            }
            if (dir)
                dir[i * w + d] = bits;
            hrow[d] = h;
            frow[d] = fv;
            hleft = h;
            if (h > row_best)
                row_best = h;
            if (h > best) {
                best = h;
                *bi = i;
                *bj = j;
            }
        }
        for (scoring_i64 d = 0; d < j0 - i - lo && d < w; d++)
            hrow[d] = frow[d] = NEG;
        for (scoring_i64 d = j1 - i - lo + 1 > 0 ? j1 - i - lo + 1 : 0; d < w; d++)
            hrow[d] = frow[d] = NEG;
        if (row_best < best - xdrop)
            break;
    }
    return best;
}

/* Whether a run of n bases repeats a unit of at most MAX_PERIOD bases throughout (a microsatellite). */
SCORING_FN int periodic(const unsigned char *s, scoring_i64 n) {
    for (scoring_i64 p = 1; p <= MAX_PERIOD && p < n; p++) {
        scoring_i64 i = 0;
        while (i + p < n && s[i] == s[i + p])
            i++;
        if (i + p >= n)
            return 1;
    }
    return 0;
}

#endif
