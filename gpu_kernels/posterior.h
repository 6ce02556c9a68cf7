/* Posterior decoding of one gap between anchors, defined once for the host (posterior.c) and the device
 * (posterior.cu), as scoring.h is for the fills: both twins include this file, so their columns stay the
 * same (tests/test_posterior.py), the device's built with --fmad=false so that no product and sum fuse
 * where the host rounds them apart. tests/oracle_posterior.py is the oracle.
 *
 * A pair HMM (states M, a query base against a gap I, a reference base against a gap D; its rates fitted
 * to the pair's first fills) gives each cell of a gap's band the posterior probability P that its query
 * and reference bases are aligned, by forward and backward; the gap's columns become the gamma-centroid
 * path, the one with the most of (gamma + 1) P - 1 over its aligned pairs (P alone for gamma inf): pairs
 * too uncertain are left as an insertion and a deletion. Both anchors hold: the path runs from the cell
 * after one to the cell before the next, in M at both ends.
 *
 * Cell (i, j): i query bases and j reference bases of the gap taken; the band is align_fill's (band_of).
 * Emissions are over the background's (a pair 4 (1 - sigma) if equal and ACGT, 1 if either is N,
 * 4 sigma / 3 otherwise; a lone base 1); rows are rescaled to sum 1 as they are made, which leaves P unchanged: P(i, j) is
 * F_M B_M over the row's sum of F_M B_M and F_I B_I, each query base being in M or I exactly once.
 * Rows are rescaled (to sum 1) every POSTERIOR_ROWS rows, the last of each run of them from the gap's
 * start (forward) or end (backward): the device makes a run's rows at once, a lane a row, each a
 * couple of cells behind the one before (posterior.cu), and a row's sum is known only once it is
 * made. Any scale of a row leaves its P unchanged; the rows between stay within a double's range. */
#ifndef GPU_KERNELS_POSTERIOR_H
#define GPU_KERNELS_POSTERIOR_H

#include "scoring.h"

#ifndef __CUDACC__
#include <math.h>
#endif

#define UNREACHED (-1e300)
/* rows made at once on the device (a warp's lanes), and between two rescaled rows */
#define POSTERIOR_ROWS 32

/* The pair HMM: emissions of an equal ACGT pair and of any other, gap open (d) and extension (e), and the
 * transitions M -> M and gap -> M. */
typedef struct {
    double same, other, d, e, t_mm, t_gm, gamma;
    int mea;            /* gamma inf: the pairs' expected number alone */
    scoring_i64 widest; /* the widest band decoded (posterior_decoded) */
} pair_hmm;

/* A band's cells of one row span a gap run of up to its width, each of its columns a factor e: past
 * POSTERIOR_RANGE the row's far cells underflow (rows are rescaled, the cells within one are not), its
 * posteriors are 0 / 0 and the centroid's path would leave the band. The widest band kept clear of it,
 * counted by products (rounded alike on the host and the device). */
#define POSTERIOR_RANGE 1e-200

SCORING_FN pair_hmm pair_hmm_of(double sigma, double delta, double epsilon, double gamma) {
    pair_hmm h;
    h.same = 4 * (1 - sigma), h.other = 4 * sigma / 3, h.d = delta, h.e = epsilon;
    h.t_mm = 1 - 2 * delta, h.t_gm = 1 - epsilon, h.gamma = gamma, h.mea = isinf(gamma);
    double v = 1;
    for (h.widest = 0; v > POSTERIOR_RANGE && h.widest < ((scoring_i64)1 << 40); h.widest++)
        v *= epsilon;
    return h;
}

/* Whether a gap of band width w is decoded by its posteriors; a wider one keeps its first fill's
 * columns (the twins and the oracle alike). */
SCORING_FN int posterior_decoded(const pair_hmm *h, scoring_i64 w) {
    return w <= h->widest;
}

SCORING_FN double emission(const pair_hmm *h, unsigned char a, unsigned char c) {
    return a > 3 || c > 3 ? 1.0 : a == c ? h->same : h->other;  /* an N: unknown, the background's */
}

/* Backward, a cell from those after it: diag, the emission of the next pair times (i + 1, j + 1)'s M;
 * down, (i + 1, j)'s I; right, (i, j + 1)'s D side; last: the cell (dx, dy) itself. */
SCORING_FN void backward_cell(const pair_hmm *h, int last, double diag, double down, double right, double *m, double *x,
                              double *y) {
    if (last) {
        *m = h->t_mm, *x = *y = h->t_gm;
    } else {
        *m = h->t_mm * diag + h->d * down + h->d * right;
        *x = h->t_gm * diag + h->e * down;
        *y = h->t_gm * diag + h->e * right;
    }
}

/* Forward, a cell (i, j) from those before it: m0, i0, d0, (i - 1, j - 1)'s M, I, D (the cell above in
 * the band); mr, ir, (i - 1, j)'s M and I (above right in the band); ml, dl, (i, j - 1)'s M and D. */
SCORING_FN void forward_cell(const pair_hmm *h, scoring_i64 i, scoring_i64 j, int has_above_right, int has_left,
                             double emit, double m0, double i0, double d0, double mr, double ir, double ml, double dl,
                             double *fm, double *fi, double *fd) {
    if (i == 0) {
        *fm = j == 0;
        *fi = 0;
    } else {
        *fm = j > 0 ? emit * (h->t_mm * m0 + h->t_gm * (i0 + d0)) : 0;
        *fi = has_above_right ? h->d * mr + h->e * ir : 0;
    }
    *fd = has_left ? h->d * ml + h->e * dl : 0;
}

/* The centroid's cell (i, j) from (i - 1, j - 1), (i - 1, j) and (i, j - 1) (a0, ar, al: UNREACHED where
 * there is none) and the pair's posterior fm B_M (fmbm) over the row's normaliser (per_z): its best
 * gain, and where it came from (0 the diagonal, 1 above, 2 the left), the diagonal first. */
SCORING_FN double centroid_cell(const pair_hmm *h, scoring_i64 i, scoring_i64 j, double a0, double ar, double al,
                                double fmbm, double per_z, unsigned char *from) {
    double best = UNREACHED;
    *from = 2;
    if (i == 0 && j == 0) {
        *from = 0;
        return 0;
    }
    if (i > 0 && j > 0 && a0 > UNREACHED) {
        const double post = fmbm * per_z;
        best = a0 + (h->mea ? post : (h->gamma + 1) * post - 1), *from = 0;
    }
    if (i > 0 && ar > best)
        best = ar, *from = 1;
    if (al > best)
        best = al, *from = 2;
    return best;
}

/* The centroid's columns, traced back from (dx, dy) through dir (a byte a cell of the band, w wide from
 * diagonal lo), written at ops in order with their counts (COUNT_KINDS) at c4 and their number at columns; returns
 * their score under the integer scores (go: opening a gap with its first base, ge each further base). */
SCORING_FN scoring_i64 posterior_trace(const unsigned char *q, const unsigned char *r, scoring_i64 dx, scoring_i64 dy,
                                       scoring_i64 lo, scoring_i64 w, const unsigned char *dir, int match,
                                       int mismatch, int go, int ge, unsigned char *ops, scoring_i64 *c4,
                                       scoring_i64 *columns) {
    scoring_i64 i = dx, j = dy, k = 0, score = 0, run = 0;
    c4[0] = c4[1] = c4[2] = c4[3] = c4[4] = 0;
    while (i > 0 || j > 0) {
        const unsigned char from = dir[i * w + (j - i - lo)];
        const unsigned char op = from == 0 ? (q[i - 1] == r[j - 1] && q[i - 1] < 4 ? 0 : 1) : from == 1 ? 2 : 3;
        ops[k++] = op;
        c4[op]++;
        c4[4] += from == 0 && (q[i - 1] > 3 || r[j - 1] > 3);
        i -= from != 2;
        j -= from != 1;
    }
    for (scoring_i64 t = 0; t < k / 2; t++) {
        const unsigned char v = ops[t];
        ops[t] = ops[k - 1 - t];
        ops[k - 1 - t] = v;
    }
    for (scoring_i64 t = 0; t < k; t++) {  /* gap_open + gap_extend a run's first column, gap_extend the others */
        const unsigned char op = ops[t];
        run = op >= 2 && t > 0 && ops[t - 1] == op ? run + 1 : (op >= 2);
        score += op == 0 ? match : op == 1 ? -mismatch : run == 1 ? -go : -ge;
    }
    score += (scoring_i64)mismatch * c4[4];  /* an N column scores 0 (column_score) */
    *columns = k;
    return score;
}

#endif
