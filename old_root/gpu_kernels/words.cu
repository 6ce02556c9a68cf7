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
