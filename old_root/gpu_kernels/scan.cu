// scan.cu: inclusive running maximum of int64 values, in two launches per level.
//
// block_max_scan: 1-D grid, BLOCK threads a block, each block scans SCAN_TILE = BLOCK * SCAN_ITEMS
// values (SCAN_ITEMS a thread, a warp shuffle scan, then the warp totals) and writes its total to
// totals[b]. BLOCK and SCAN_ITEMS come from gpu_kernels/kernels.py as -D macros.
// add_carry: after the caller has scanned totals (recursively), block b > 0 raises its values
// to at least the scanned total of block b - 1.
// any_false: found[0] = 1 if some mask[i] is 0 (arrays.every on the device).
// count_true: total[0] += the number of nonzero mask[i] (arrays.count; total zeroed by the caller).
// any_tie, any_descent, sum_difference: below, for arrays.has_ties, arrays.is_sorted, arrays.sum_difference.
#define SCAN_THREADS BLOCK
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)
#define FULL_MASK 0xffffffffu
#define SCAN_LOWEST (-9223372036854775807LL - 1)

extern "C" __global__ void block_max_scan(const long long* __restrict__ in, long long* __restrict__ out,
                                          long long* __restrict__ totals, long long n)
{
    __shared__ long long warp_tops[SCAN_THREADS / 32];
    const long long base = (long long)blockIdx.x * SCAN_TILE + (long long)threadIdx.x * SCAN_ITEMS;
    long long v[SCAN_ITEMS];
    long long run = SCAN_LOWEST;
    for (int j = 0; j < SCAN_ITEMS; ++j) {
        const long long p = base + j;
        v[j] = p < n ? in[p] : SCAN_LOWEST;
        run = run > v[j] ? run : v[j];
        v[j] = run;
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long scan = run;
    for (int o = 1; o < 32; o <<= 1) {
        const long long t = __shfl_up_sync(FULL_MASK, scan, o);
        if (lane >= o && t > scan) scan = t;
    }
    if (lane == 31) warp_tops[warp] = scan;
    __syncthreads();
    long long carry = SCAN_LOWEST;
    for (int w = 0; w < warp; ++w) carry = carry > warp_tops[w] ? carry : warp_tops[w];
    long long before = __shfl_up_sync(FULL_MASK, scan, 1);
    if (lane == 0) before = SCAN_LOWEST;
    before = before > carry ? before : carry;
    for (int j = 0; j < SCAN_ITEMS; ++j) {
        const long long p = base + j;
        if (p < n) out[p] = v[j] > before ? v[j] : before;
    }
    if (threadIdx.x == SCAN_THREADS - 1) {
        long long top = SCAN_LOWEST;
        for (int w = 0; w < SCAN_THREADS / 32; ++w) top = top > warp_tops[w] ? top : warp_tops[w];
        totals[blockIdx.x] = top;
    }
}

extern "C" __global__ void add_carry(long long* __restrict__ out, const long long* __restrict__ scanned_totals, long long n)
{
    if (blockIdx.x == 0) return;
    const long long carry = scanned_totals[blockIdx.x - 1];
    const long long base = (long long)blockIdx.x * SCAN_TILE;
    for (int j = threadIdx.x; j < SCAN_TILE; j += blockDim.x) {
        const long long p = base + j;
        if (p < n && out[p] < carry) out[p] = carry;
    }
}

extern "C" __global__ void any_false(const bool* __restrict__ mask, long long n, int* __restrict__ found)
{
    // grid-stride; a thread that finds a false value stores 1 (every writer writes the same value)
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        if (!mask[i]) {
            *found = 1;
            return;
        }
    }
}

extern "C" __global__ void count_true(const bool* __restrict__ mask, long long n, unsigned long long* __restrict__ total)
{
    unsigned long long mine = 0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        mine += mask[i] ? 1 : 0;
    for (int o = 16; o > 0; o >>= 1) mine += __shfl_down_sync(FULL_MASK, mine, o);
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd(total, mine);
}

// any_tie: found[0] = 1 if some values[i] == values[i + 1] (whether a sorted key has ties).
extern "C" __global__ void any_tie(const long long* __restrict__ values, long long n, int* __restrict__ found)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i + 1 < n; i += (long long)gridDim.x * blockDim.x)
        if (values[i] == values[i + 1]) { *found = 1; return; }
}

// any_descent: found[0] = 1 if some values[i] > values[i + 1] (whether values are not in ascending order).
extern "C" __global__ void any_descent(const long long* __restrict__ values, long long n, int* __restrict__ found)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i + 1 < n; i += (long long)gridDim.x * blockDim.x)
        if (values[i] > values[i + 1]) { *found = 1; return; }
}

// sum_difference: total[0] += the sum of high[i] - low[i] (the bases in a table's HSPs; total zeroed by the caller).
extern "C" __global__ void sum_difference(const long long* __restrict__ high, const long long* __restrict__ low,
                                          long long n, unsigned long long* __restrict__ total)
{
    long long sum = 0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        sum += high[i] - low[i];
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(FULL_MASK, sum, o);
    if ((threadIdx.x & 31) == 0 && sum) atomicAdd(total, (unsigned long long)sum);
}
