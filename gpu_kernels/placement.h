/* Chain placement's helpers, defined once for the host (placement.c) and the device (chains.cu): a
 * block column's score (an N scores n_score) and the tandem runs a piece's ends are moved past
 * (docs/DEFINITIONS.md "What a chain is", 6; tests/oracle_chains.refine). Both twins include this file;
 * kernels.source puts its text in place of the include for NVRTC and for the fatbins' digests. BORDER,
 * N_CODE, TANDEM_UNIT and TANDEM_FLANK come from kernels.py's defines, for both. */
#ifndef GPU_KERNELS_PLACEMENT_H
#define GPU_KERNELS_PLACEMENT_H

#ifdef __CUDACC__
#define PLACEMENT_FN __device__ __forceinline__
#define PLACEMENT_CALL __device__
typedef long long placement_i64;
#else
#include <stdint.h>
#define PLACEMENT_FN static inline
#define PLACEMENT_CALL static
typedef int64_t placement_i64;
#endif

/* A block column's score: match or mismatch, n_score where either side is N. */
PLACEMENT_FN placement_i64 block_score(unsigned char a, unsigned char b, placement_i64 match, placement_i64 mismatch,
                                       placement_i64 n_score) {
    if (a == N_CODE || b == N_CODE)
        return n_score;
    return a == b ? match : mismatch;
}

/* Whether query base i repeats the one unit before it (borders and N stop a tandem run). */
PLACEMENT_FN int repeats(const unsigned char *q, placement_i64 i, int unit) { return (q[i] < 4) & (q[i] == q[i - unit]); }

/* The run [*u, *v) of query bases that repeat the one unit before them around i (one of them). */
PLACEMENT_FN void repeat_run(const unsigned char *q, placement_i64 i, int unit, placement_i64 *u, placement_i64 *v) {
    for (*u = i; repeats(q, *u - 1, unit); (*u)--)
        ;
    for (*v = i + 1; repeats(q, *v, unit); (*v)++)
        ;
}

/* The tandem runs (units of 1 to TANDEM_UNIT, at least `least` bases) that hold query position x:
 * whether any does, and where the first of them starts and the last ends. A run of a unit holds x
 * when its repeated bases reach into [x, x + unit]. */
PLACEMENT_CALL int tandem_span(const unsigned char *q, placement_i64 x, placement_i64 least, placement_i64 *start,
                               placement_i64 *end) {
    int found = 0;
    for (int unit = 1; unit <= TANDEM_UNIT; unit++) {
        for (placement_i64 i = x; i <= x + unit;) {
            if (!repeats(q, i, unit)) {
                i++;
                continue;
            }
            placement_i64 u, v;
            repeat_run(q, i, unit, &u, &v);
            if (v - u + unit >= least) {
                *start = found && *start < u - unit ? *start : u - unit;
                *end = found && *end > v ? *end : v;
                found = 1;
            }
            i = v + 1;
        }
    }
    return found;
}

/* Whether a tandem run holds any query position in [lo, hi): a run of a unit holds one there when
 * least - unit (`need`) of its repeated bases in a row reach into [lo, hi - 1 + unit]. Such a row has
 * `need` of them within need - 1 of that stretch, so one base in every `need` is looked at there, and
 * the row found is followed only from a repeated one (most windows hold no run). The stretch ends at
 * the borders of the record of [lo, hi): no run holds a border, and a long `least` would reach past
 * them, out of the codes. */
PLACEMENT_CALL int any_tandem(const unsigned char *q, placement_i64 lo, placement_i64 hi, placement_i64 least) {
    placement_i64 first = lo, last = hi;
    while (first > lo - least + 2 && q[first - 1] != BORDER)
        first--;
    while (last < hi + least - 1 && q[last] != BORDER)
        last++;
    for (int unit = 1; unit <= TANDEM_UNIT; unit++) {
        const placement_i64 need = least - unit;
        const placement_i64 end = hi + unit + need - 1 < last ? hi + unit + need - 1 : last;
        for (placement_i64 i = lo - need + 1 > first ? lo - need + 1 : first; i < end; i += need) {
            if (!repeats(q, i, unit))
                continue;
            placement_i64 u, v;
            repeat_run(q, i, unit, &u, &v);
            if (v - u >= need && u <= hi - 1 + unit && v > lo)
                return 1;
        }
    }
    return 0;
}

/* A piece [*from, *to) with its ends moved past tandem runs: its start to the first with none in the
 * TANDEM_FLANK columns from it, its end to the last with none in the TANDEM_FLANK before it. Whether
 * anything is left. */
PLACEMENT_CALL int past_tandems(const unsigned char *q, placement_i64 least, placement_i64 *from, placement_i64 *to) {
    placement_i64 a = *from, z = *to, s, e;
    if (!any_tandem(q, a, a + TANDEM_FLANK < z ? a + TANDEM_FLANK : z, least) &&
        !any_tandem(q, z - TANDEM_FLANK > a ? z - TANDEM_FLANK : a, z, least))
        return 1;
    for (placement_i64 t = a; t < a + TANDEM_FLANK && t < z;) {
        if (tandem_span(q, t, least, &s, &e))
            a = t = e;
        else
            t++;
    }
    if (a >= z)
        return 0;
    for (placement_i64 t = z - 1; t >= z - TANDEM_FLANK && t >= a;) {
        if (tandem_span(q, t, least, &s, &e))
            z = s, t = s - 1;
        else
            t--;
    }
    *from = a, *to = z;
    return z > a;
}

#endif
