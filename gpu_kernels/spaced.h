/* Spaced seeds and their HSPs (spaced.py), written once for the host (spaced.c) and the device
 * (spaced.cu): a window's key, the lookup of its hits among the reference's sorted keys, and one
 * seed's ungapped extension under HOXD70 with its X-drop, score threshold and low-complexity
 * adjustment. tests/oracle_spaced.py is the same rule written plainly. */
#ifndef GPU_KERNELS_SPACED_H
#define GPU_KERNELS_SPACED_H

#ifdef __CUDACC__
#define SPACED_FN __device__ __forceinline__
typedef long long spaced_i64;
typedef unsigned long long spaced_u64;
#else
#include <stdint.h>
#define SPACED_FN static inline
typedef int64_t spaced_i64;
typedef uint64_t spaced_u64;
#endif

#if !defined(N_CODE) || !defined(BORDER)
#error "N_CODE and BORDER come from kernels.py as -D options"
#endif

/* A non-ACGT base against anything (LASTZ's fill score for N) */
#define SPACED_N_SCORE (-100)

/* HOXD70 (Chiaromonte, Yap and Miller 2002), LASTZ's default substitution scores, rows and columns
 * A C G T; transitions (A-G, C-T) cost far less than transversions. Each fits a signed byte: the 16
 * are packed in two 64-bit words (a * 4 + b's byte), so that a column's score is read from registers,
 * not from a table in a thread's local memory. */
#define HOXD70_BYTE(v, at) ((spaced_u64)((v) & 0xff) << (8 * (at)))
#define HOXD70_LOW (HOXD70_BYTE(91, 0) | HOXD70_BYTE(-114, 1) | HOXD70_BYTE(-31, 2) | HOXD70_BYTE(-123, 3) | \
                    HOXD70_BYTE(-114, 4) | HOXD70_BYTE(100, 5) | HOXD70_BYTE(-125, 6) | HOXD70_BYTE(-31, 7))
#define HOXD70_HIGH (HOXD70_BYTE(-31, 0) | HOXD70_BYTE(-125, 1) | HOXD70_BYTE(100, 2) | HOXD70_BYTE(-114, 3) | \
                     HOXD70_BYTE(-123, 4) | HOXD70_BYTE(-31, 5) | HOXD70_BYTE(-114, 6) | HOXD70_BYTE(91, 7))
SPACED_FN int hoxd70(unsigned char a, unsigned char b) {
    if (a > 3 || b > 3)
        return SPACED_N_SCORE;
    const unsigned at = (unsigned)a * 4 + b;
    const int byte = (int)(((at < 8 ? HOXD70_LOW : HOXD70_HIGH) >> (8 * (at & 7))) & 0xff);
    return (byte ^ 0x80) - 0x80;  /* the byte read as signed */
}

/* The key of the window starting at i: the codes at its care positions (bit j of care: position j),
 * 2 bits each, the first highest. 0 where the window leaves the codes, crosses a border, or holds a
 * non-ACGT base at a care position; 1 with *key set otherwise. */
SPACED_FN int window_key(const unsigned char *codes, spaced_i64 size, spaced_i64 i, spaced_u64 care, int span,
                         spaced_u64 *key) {
    if (i < 0 || i + span > size)
        return 0;
    spaced_u64 k = 0;
    for (int j = 0; j < span; j++) {
        const unsigned char c = codes[i + j];
        if (c == BORDER)
            return 0;
        if ((care >> j) & 1) {
            if (c > 3)
                return 0;
            k = (k << 2) | c;
        }
    }
    *key = k;
    return 1;
}

/* The key a lookup asks for: variant 0 the window's own, variant v >= 1 the window's with a transition
 * at its v-th care position from the last (A<->G and C<->T flip a code's high bit). */
SPACED_FN spaced_u64 variant_key(spaced_u64 key, int v) {
    return v ? key ^ ((spaced_u64)2 << (2 * (v - 1))) : key;
}

/* The first index of keys[0..n) (sorted) not below key (upper: not at or below key). */
SPACED_FN spaced_i64 key_bound(const spaced_u64 *keys, spaced_i64 n, spaced_u64 key, int upper) {
    spaced_i64 lo = 0, hi = n;
    while (lo < hi) {
        const spaced_i64 mid = lo + (hi - lo) / 2;
        if (keys[mid] < key || (upper && keys[mid] == key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* [*a, *b): the indexes of keys[0..n) (sorted) equal to key, searched within the bucket of key's top
 * bits: buckets[t] is the first index whose key >> shift is t or more. */
SPACED_FN void key_range(const spaced_u64 *keys, const spaced_i64 *buckets, int shift, spaced_u64 key, spaced_i64 *a,
                         spaced_i64 *b) {
    const spaced_u64 top = key >> shift;
    const spaced_i64 lo = buckets[top], n = buckets[top + 1] - lo;
    *a = lo + key_bound(keys + lo, n, key, 0);
    *b = lo + key_bound(keys + lo, n, key, 1);
}

/* Whether the windows at q and r make a seed: inside their codes, no border, and at every care position
 * two ACGT bases that are equal or (transition set, once) a transition apart. The positions are read
 * in order, so that most pairs are refused at their first care positions. */
SPACED_FN int pair_is_seed(const unsigned char *qc, spaced_i64 qn, const unsigned char *rc, spaced_i64 rn,
                           spaced_i64 q, spaced_i64 r, spaced_u64 care, int span, int transition) {
    if (q < 0 || r < 0 || q + span > qn || r + span > rn)
        return 0;
    int used = 0;
    for (int j = 0; j < span; j++) {
        const unsigned char a = qc[q + j], b = rc[r + j];
        if (a == BORDER || b == BORDER)
            return 0;
        if (!((care >> j) & 1) || a == b) {
            if (((care >> j) & 1) && a > 3)
                return 0;
            continue;
        }
        if (a > 3 || b > 3 || !transition || used || (a ^ b) != 2)
            return 0;
        used = 1;
    }
    return 1;
}

/* Whether the seed (q, r) is shadowed: 1 to span bases before it on its diagonal the windows make a seed
 * too, its reference word kept in the index (keys with positions in order within a key, buckets and
 * shift as key_range reads them). That seed's extension runs through this one's, as an exact k-mer's
 * look-back (docs/DEFINITIONS.md). */
SPACED_FN int shadowed(const unsigned char *qc, spaced_i64 qn, const unsigned char *rc, spaced_i64 rn, spaced_i64 q,
                       spaced_i64 r, spaced_u64 care, int span, int transition, const spaced_u64 *keys,
                       const spaced_i64 *pos, const spaced_i64 *buckets, int shift) {
    for (int d = 1; d <= span; d++) {
        if (!pair_is_seed(qc, qn, rc, rn, q - d, r - d, care, span, transition))
            continue;
        spaced_u64 key;
        window_key(rc, rn, r - d, care, span, &key);
        spaced_i64 lo, end;
        key_range(keys, buckets, shift, key, &lo, &end);
        spaced_i64 hi = end;
        while (lo < hi) {  /* the positions of one key are in order */
            const spaced_i64 mid = lo + (hi - lo) / 2;
            if (pos[mid] < r - d)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < end && pos[lo] == r - d)
            return 1;
    }
    return 0;
}

/* One side of a seed walked from (q, r) on by step (1 or -1) with X-drop: the best running score and
 * the bases that reach it (the first of a tie). The walk stops at a border or either side's end; with
 * limit above 0, after limit bases, *bases -1 then (a walk not ended). */
SPACED_FN spaced_i64 walk_side(const unsigned char *qc, spaced_i64 qn, const unsigned char *rc, spaced_i64 rn,
                               spaced_i64 q, spaced_i64 r, int step, int xdrop, int limit, spaced_i64 *bases) {
    spaced_i64 s = 0, best = 0, at = 0;
    for (spaced_i64 n = 1;; n++, q += step, r += step) {
        if (q < 0 || r < 0 || q >= qn || r >= rn || qc[q] == BORDER || rc[r] == BORDER)
            break;
        if (limit > 0 && n > limit) {
            *bases = -1;
            return best;
        }
        s += hoxd70(qc[q], rc[r]);
        if (s > best) {
            best = s;
            at = n;
        } else if (s < best - xdrop) {
            break;
        }
    }
    *bases = at;
    return best;
}

/* A score scaled down where the HSP's query bases are low in diversity: with c the counts of A, C, G,
 * T (scaled down alike past 2^20 bases) and m their sum, the Gini-Simpson index 1 - sum(c^2)/m^2 is
 * 0.75 for even bases, 0.5 for a dinucleotide repeat, 0 for one base; the score is kept whole at 0.7
 * and above and falls linearly to nothing at 0.4 (integers only, so that both twins agree). */
SPACED_FN spaced_i64 diversity_scaled(spaced_i64 score, const spaced_i64 *count) {
    int shift = 0;
    while (((count[0] + count[1] + count[2] + count[3]) >> shift) >= ((spaced_i64)1 << 20))
        shift++;
    spaced_i64 m = 0, squares = 0;
    for (int b = 0; b < 4; b++) {
        const spaced_i64 c = count[b] >> shift;
        m += c;
        squares += c * c;
    }
    if (score <= 0 || m == 0)
        return score;
    const spaced_i64 num = 10 * (m * m - squares) - 4 * m * m, den = 3 * m * m;
    if (num >= den)
        return score;
    if (num <= 0)
        return 0;
    return score * (num * 1024 / den) / 1024;
}

/* The HSP of the seed at (q, r): the seed's window scored, both sides walked on (walk_side); its query
 * span [*qs, *qe), its identical ACGT columns *ids, and its score *score (diversity_scaled where entropy
 * is set). A score below threshold is left as walked, *ids 0: scaling only lowers a score, so the seed
 * is dropped either way, and the HSP's columns are not read again (most seeds of two distant genomes
 * are chance hits, their walks a few dozen columns a side). 0 returned, and nothing written, where a
 * side's walk passed limit bases (limit above 0: spaced.cu walks the long ones apart); 1 otherwise. */
SPACED_FN int spaced_hsp(const unsigned char *qc, spaced_i64 qn, const unsigned char *rc, spaced_i64 rn, spaced_i64 q,
                         spaced_i64 r, int span, int xdrop, int entropy, spaced_i64 threshold, int limit,
                         spaced_i64 *score_out, spaced_i64 *qs, spaced_i64 *qe, spaced_i64 *ids) {
    spaced_i64 score = 0, right, left;
    for (int j = 0; j < span; j++)
        score += hoxd70(qc[q + j], rc[r + j]);
    score += walk_side(qc, qn, rc, rn, q + span, r + span, 1, xdrop, limit, &right);
    if (right < 0)
        return 0;
    score += walk_side(qc, qn, rc, rn, q - 1, r - 1, -1, xdrop, limit, &left);
    if (left < 0)
        return 0;
    *qs = q - left;
    *qe = q + span + right;
    *ids = 0;
    *score_out = score;
    if (score < threshold)
        return 1;
    /* each base's count in a register of its own (an array indexed by the base would live in memory) */
    spaced_i64 ca = 0, cc = 0, cg = 0, ct = 0, same = 0;
    for (spaced_i64 i = *qs; i < *qe; i++) {
        const unsigned char a = qc[i], b = rc[r - q + i];
        ca += a == 0, cc += a == 1, cg += a == 2, ct += a == 3;
        same += a < 4 && a == b;
    }
    *ids = same;
    const spaced_i64 count[4] = {ca, cc, cg, ct};
    *score_out = entropy ? diversity_scaled(score, count) : score;
    return 1;
}

#endif
