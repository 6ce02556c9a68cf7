// Spaced seeds on the device (spaced.py): a thread a window or a seed; the rules are spaced.h's,
// which spaced.c includes too.
#include "spaced.h"

// The key of every window start 0..n-span and whether it is valid.
extern "C" __global__ void spaced_keys(const unsigned char *codes, long long size, unsigned long long care, int span,
                                       unsigned long long *keys, unsigned char *valid) {
    const long long n = size - span + 1;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        unsigned long long key = 0;
        valid[i] = (unsigned char)window_key(codes, size, i, care, span, &key);
        keys[i] = key;
    }
}

// The seeds of query windows [q0, q1): counted into counts[i - q0] (counts given), or written from
// offsets[i - q0] on into sq and sr (counts NULL). The shadowed ones are left out as they are extended.
extern "C" __global__ void spaced_hits(const unsigned char *qcodes, long long qsize, long long q0, long long q1,
                                       unsigned long long care, int span, int transition,
                                       const unsigned long long *rkeys, const long long *buckets, int shift,
                                       const long long *rpos, long long *counts, const long long *offsets,
                                       long long *sq, long long *sr) {
    const int variants = transition ? __popcll(care) + 1 : 1;
    for (long long i = q0 + blockIdx.x * (long long)blockDim.x + threadIdx.x; i < q1;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned long long key;
        long long n = 0, at = counts ? 0 : offsets[i - q0];
        if (window_key(qcodes, qsize, i, care, span, &key))
            for (int v = 0; v < variants; v++) {
                long long a, b;
                key_range(rkeys, buckets, shift, variant_key(key, v), &a, &b);
                if (!counts)
                    for (long long j = a; j < b; j++)
                        sq[at] = i, sr[at] = rpos[j], at++;
                n += b - a;
            }
        if (counts)
            counts[i - q0] = n;
    }
}

// Each seed's HSP (spaced_hsp), or score -1 where another seed shadows it (spaced.h shadowed, read
// from the seed codes qseed and rseed and the reference index), or SPACED_LONG where a side's walk went
// past SPACED_WALK bases: a warp walks as long as its longest walk, so the few long ones (a homologous
// seed's walk runs the HSP's length, a chance seed's a few dozen bases) are walked apart, 32 a warp
// (spaced_extend_long), not each beside 31 idle lanes.
extern "C" __global__ void spaced_extend(const unsigned char *qcodes, long long qsize, const unsigned char *rcodes,
                                         long long rsize, const unsigned char *qseed, const unsigned char *rseed,
                                         const long long *sq, const long long *sr, long long n,
                                         unsigned long long care, int span, int transition,
                                         const unsigned long long *rkeys, const long long *buckets, int shift,
                                         const long long *rpos, int xdrop, int entropy, long long threshold,
                                         long long *qstart, long long *qend, long long *score, long long *ids) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        if (shadowed(qseed, qsize, rseed, rsize, sq[i], sr[i], care, span, transition, rkeys, rpos, buckets, shift)) {
            score[i] = -1, qstart[i] = qend[i] = ids[i] = 0;
            continue;
        }
        if (!spaced_hsp(qcodes, qsize, rcodes, rsize, sq[i], sr[i], span, xdrop, entropy, threshold, SPACED_WALK,
                        &score[i], &qstart[i], &qend[i], &ids[i]))
            score[i] = SPACED_LONG;
    }
}

// The HSPs of the seeds listed in which (those spaced_extend left SPACED_LONG), walked to their ends.
extern "C" __global__ void spaced_extend_long(const unsigned char *qcodes, long long qsize, const unsigned char *rcodes,
                                              long long rsize, const long long *sq, const long long *sr,
                                              const long long *which, long long m, int span, int xdrop, int entropy,
                                              long long threshold, long long *qstart, long long *qend, long long *score,
                                              long long *ids) {
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < m; j += (long long)gridDim.x * blockDim.x) {
        const long long i = which[j];
        spaced_hsp(qcodes, qsize, rcodes, rsize, sq[i], sr[i], span, xdrop, entropy, threshold, 0, &score[i],
                   &qstart[i], &qend[i], &ids[i]);
    }
}
