/* A chain's link from HSP j to HSP i, defined once for the host (chains.c) and the device (chains.cu):
 * whether j can precede i (every coordinate of j before i's, gaps within max_gap, the diagonal moved
 * at most max_shift, the overlap shorter than i), and what i then adds: its score trimmed by the
 * overlap (scores are >= 0: the floor) less the gap's cost. The same arithmetic as
 * tests/oracle_chains.link; docs/DEFINITIONS.md "What a chain is". Both twins include this file;
 * kernels.source puts its text in place of the include for NVRTC and for the fatbins' digests. */
#ifndef GPU_KERNELS_LINK_H
#define GPU_KERNELS_LINK_H

#ifdef __CUDACC__
#define LINK_FN __device__ __forceinline__
typedef long long link_i64;
#else
#include <stdint.h>
#define LINK_FN static inline
typedef int64_t link_i64;
#endif

/* Whether HSP j (x, xe, y, ye: query start and end, reference start and end) can precede HSP i; the
 * overlap of the two at *overlap where it can. */
LINK_FN int linkable(const link_i64 *x, const link_i64 *xe, const link_i64 *y, const link_i64 *ye, link_i64 j,
                     link_i64 i, link_i64 max_gap, link_i64 max_shift, link_i64 *overlap) {
    if (!(x[j] < x[i] && y[j] < y[i] && xe[j] < xe[i] && ye[j] < ye[i]))
        return 0;
    const link_i64 dx = x[i] - xe[j], dy = y[i] - ye[j];
    const link_i64 shift = dx > dy ? dx - dy : dy - dx;
    if (dx > max_gap || dy > max_gap || shift > max_shift)
        return 0;
    link_i64 most = 0;
    if (-dx > most)
        most = -dx;
    if (-dy > most)
        most = -dy;
    *overlap = most;
    return most < xe[i] - x[i];
}

/* What HSP i (score, length) adds after a linkable HSP j: dx, dy the gap from j's end to i's start on
 * each sequence (negative where they overlap). */
LINK_FN link_i64 link_add(link_i64 score, link_i64 length, link_i64 overlap, link_i64 dx, link_i64 dy,
                          link_i64 gap_open, link_i64 gap_extend, link_i64 gap_base) {
    const link_i64 shift = dx > dy ? dx - dy : dy - dx;
    const link_i64 gap = (dx < dy ? dx : dy) + overlap;
    return score * (length - overlap) / length - ((shift ? gap_open : 0) + shift * gap_extend + gap * gap_base / 100);
}

#endif
