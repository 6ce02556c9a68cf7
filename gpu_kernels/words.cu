// words.cu: k-mer keys of every window of a code array, 2 bits a base.
//
// Launch: 1-D grid of ceil(n_windows / BLOCK) blocks, BLOCK threads; thread t of block b handles
// the window starting at b*BLOCK + t. The block stages its BLOCK + k - 1 codes in shared memory once,
// so each code is read from device memory once per block rather than k times.
// Invariants: codes holds n_windows + k - 1 bytes; valid[w] = 1 exactly when all k codes are
// A, C, G or T (< 4); keys[w] is the packed k-mer, first base in the highest bits.
// BLOCK and BORDER come from gpu_kernels/kernels.py as -D macros.

extern "C" __global__ void word_keys(const unsigned char* __restrict__ codes, long long n_windows, int k,
                                     unsigned long long* __restrict__ keys, unsigned char* __restrict__ valid)
{
    __shared__ unsigned char tile[BLOCK + 32];
    const long long base = (long long)blockIdx.x * BLOCK;
    const long long n_codes = n_windows + k - 1;
    for (int i = threadIdx.x; i < BLOCK + k - 1; i += blockDim.x) {
        const long long p = base + i;
        tile[i] = p < n_codes ? codes[p] : BORDER;
    }
    __syncthreads();
    const long long w = base + threadIdx.x;
    if (w >= n_windows) return;
    unsigned long long key = 0;
    unsigned bad = 0;
    for (int j = 0; j < k; ++j) {
        const unsigned c = tile[threadIdx.x + j];
        bad |= c & 4u;          // N (4) and BORDER (5) both have bit 2 set
        key = (key << 2) | (c & 3u);
    }
    keys[w] = key;
    valid[w] = bad == 0;
}

// Fast mode's filter (words.py drop_frequent): keep[i] = 1 for every word of a run (one key in one
// record, the words sorted by key, ties by position) of at most max_freq words. A thread takes each run
// start it meets and counts at most max_freq + 1 words of the run, so a run of a million copies costs its
// first thread no more than a short one; keep is zero before. record: searchsorted(starts, p, "right").
__device__ __forceinline__ long long record_of(const long long* __restrict__ starts, long long records, long long p)
{
    long long lo = 0, hi = records;
    while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (starts[mid] <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

extern "C" __global__ void frequent_keep(const unsigned long long* __restrict__ keys, const long long* __restrict__ pos,
                                         long long n, const long long* __restrict__ starts, long long records,
                                         long long max_freq, unsigned char* __restrict__ keep)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const unsigned long long key = keys[i];
        const long long record = record_of(starts, records, pos[i]);
        if (i > 0 && keys[i - 1] == key && record_of(starts, records, pos[i - 1]) == record)
            continue;  // not a run's first word
        long long run = 1;
        while (run <= max_freq && i + run < n && keys[i + run] == key && record_of(starts, records, pos[i + run]) == record)
            ++run;
        if (run > max_freq)
            continue;  // more than max_freq copies: all dropped
        for (long long t = 0; t < run; ++t)
            keep[i + t] = 1;
    }
}
