// Which HSPs some chain link touches (chains.py, chain_hsps_cupy): chains.c's candidate scan without
// the DP. Thread i scans its diagonal bucket, back from its own place in byb, and the buckets on
// either side (their HSPs before i in the DP order), while an HSP there can still end within max_gap
// before i (x >= floor: x_i - max_gap - the longest HSP), and marks both HSPs of every valid link.
// An HSP no link touches is a chain alone or in none; so is every HSP the DP leaves alone.
// Launch: 1-D grid-stride loop over the n HSPs (in the DP order), BLOCK threads a block.
// byb: the HSPs by (group, bucket), the DP order within; place[i]: i's position in byb; run_lo[k],
// run_hi[k]: the bounds in byb of the run of one (group, bucket) holding position k. Marks are
// plain stores of 1: threads racing on one HSP write the same byte.

__device__ __forceinline__ bool linkable(const long long* x, const long long* xe, const long long* y,
                                         const long long* ye, long long j, long long i, long long max_gap,
                                         long long max_shift) {
    if (!(x[j] < x[i] && y[j] < y[i] && xe[j] < xe[i] && ye[j] < ye[i]))
        return false;
    const long long dx = x[i] - xe[j], dy = y[i] - ye[j];
    const long long shift = dx > dy ? dx - dy : dy - dx;
    if (dx > max_gap || dy > max_gap || shift > max_shift)
        return false;
    long long overlap = 0;
    if (-dx > overlap)
        overlap = -dx;
    if (-dy > overlap)
        overlap = -dy;
    return overlap < xe[i] - x[i];
}

// The first position in [lo, hi) of byb whose HSP is not before i in the DP order.
__device__ __forceinline__ long long before(const long long* byb, long long lo, long long hi, long long i) {
    while (lo < hi) {
        const long long m = lo + (hi - lo) / 2;
        if (byb[m] < i)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

extern "C" __global__ void chain_linked(const long long* x, const long long* xe, const long long* y,
                                        const long long* ye, const long long* group, const long long* bucket,
                                        const long long* byb, const long long* place, const long long* run_lo,
                                        const long long* run_hi, long long n, long long max_gap, long long max_shift,
                                        long long longest, unsigned char* linked) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const long long p = place[i], a = run_lo[p], b = run_hi[p];
        const long long floor_x = x[i] - max_gap - longest;
        long long ranges[3][2] = {{a, p}, {0, 0}, {0, 0}};
        if (a > 0 && group[byb[a - 1]] == group[i] && bucket[byb[a - 1]] == bucket[i] - 1) {
            ranges[1][0] = run_lo[a - 1];
            ranges[1][1] = before(byb, run_lo[a - 1], a, i);
        }
        if (b < n && group[byb[b]] == group[i] && bucket[byb[b]] == bucket[i] + 1) {
            ranges[2][0] = b;
            ranges[2][1] = before(byb, b, run_hi[b], i);
        }
        bool any = false;
        for (int r = 0; r < 3; ++r)
            for (long long k = ranges[r][1] - 1; k >= ranges[r][0]; --k) {
                const long long j = byb[k];
                if (x[j] < floor_x)
                    break;
                if (linkable(x, xe, y, ye, j, i, max_gap, max_shift)) {
                    linked[j] = 1;
                    any = true;
                }
            }
        if (any)
            linked[i] = 1;
    }
}
