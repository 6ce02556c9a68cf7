// fasta.cu: FASTA record bodies encoded on the device (fasta.py's encode_fasta_cupy), by fasta.c's rule:
// bytes whose table entry is SKIP (line breaks, blanks) dropped, every other byte replaced by its
// entry (INVALID: no sequence letter, which the caller turns into an error before anything is
// written). The bodies come cut into pieces (lo, hi) of at most a few KB, each inside one body, the
// pieces of a record consecutive; a warp takes a piece, its lanes a byte each, 32 bytes a step.

#include "codes.h"

// The table in shared memory: a byte's entry is read once for each byte of the file.
__device__ __forceinline__ void load_table(unsigned char* shared, const unsigned char* __restrict__ table)
{
    for (int i = threadIdx.x; i < 256; i += blockDim.x) shared[i] = table[i];
    __syncthreads();
}

// Each piece's symbols (bytes kept), ACGT among them, and first bad byte (its offset in data; -1: none).
extern "C" __global__ void count_pieces(const unsigned char* __restrict__ data, const long long* __restrict__ pieces,
                                        long long n, const unsigned char* __restrict__ table,
                                        long long* __restrict__ symbols, long long* __restrict__ acgt,
                                        long long* __restrict__ bad)
{
    __shared__ unsigned char codes[256];
    load_table(codes, table);
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    for (long long p = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; p < n; p += warps) {
        const long long lo = pieces[2 * p], hi = pieces[2 * p + 1];
        unsigned int kept = 0, letters = 0;
        long long first = hi;  // no bad byte
        for (long long x = lo + lane; x < hi; x += 32) {
            const unsigned char v = codes[data[x]];
            kept += v != SKIP;
            letters += v < N_CODE;
            if (v == INVALID && x < first) first = x;
        }
        for (int o = 16; o; o >>= 1) {
            kept += __shfl_down_sync(0xffffffffu, kept, o);
            letters += __shfl_down_sync(0xffffffffu, letters, o);
            const long long other = __shfl_down_sync(0xffffffffu, first, o);
            first = other < first ? other : first;
        }
        if (lane == 0) {
            symbols[p] = kept;
            acgt[p] = letters;
            bad[p] = first < hi ? first : -1;
        }
    }
}

// Each record's symbols, ACGT and first bad byte (-1: none), over its pieces first[r] .. first[r + 1] - 1.
extern "C" __global__ void record_counts(const long long* __restrict__ first, long long records,
                                         const long long* __restrict__ symbols, const long long* __restrict__ acgt,
                                         const long long* __restrict__ bad, long long* __restrict__ lengths,
                                         long long* __restrict__ record_acgt, long long* __restrict__ record_bad)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < records; r += stride) {
        long long length = 0, letters = 0, wrong = -1;
        for (long long p = first[r]; p < first[r + 1]; ++p) {
            length += symbols[p];
            letters += acgt[p];
            if (wrong < 0) wrong = bad[p];
        }
        lengths[r] = length;
        record_acgt[r] = letters;
        record_bad[r] = wrong;
    }
}

// Where each piece's codes go: its record's start (starts), then after the codes of the record's
// earlier pieces. Overwrites symbols with those places.
extern "C" __global__ void place_pieces(const long long* __restrict__ first, long long records,
                                        const long long* __restrict__ starts, long long* __restrict__ symbols)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < records; r += stride) {
        long long at = starts[r];
        for (long long p = first[r]; p < first[r + 1]; ++p) {
            const long long kept = symbols[p];
            symbols[p] = at;
            at += kept;
        }
    }
}

// Each piece's codes written from at[p] on (place_pieces): a step's kept bytes placed by the count of
// kept lanes below (the ballot), so the warp writes them in order without gaps.
extern "C" __global__ void write_pieces(const unsigned char* __restrict__ data, const long long* __restrict__ pieces,
                                        long long n, const unsigned char* __restrict__ table,
                                        const long long* __restrict__ at, unsigned char* __restrict__ out)
{
    __shared__ unsigned char codes[256];
    load_table(codes, table);
    const int lane = threadIdx.x & 31;
    const unsigned int below = (1u << lane) - 1;
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    for (long long p = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; p < n; p += warps) {
        const long long hi = pieces[2 * p + 1];
        long long to = at[p];
        for (long long base = pieces[2 * p]; base < hi; base += 32) {
            const long long x = base + lane;
            const unsigned char v = x < hi ? codes[data[x]] : (unsigned char)SKIP;
            const unsigned int kept = __ballot_sync(0xffffffffu, v != SKIP);
            if (v != SKIP) out[to + __popc(kept & below)] = v;
            to += __popc(kept);
        }
    }
}

// Codes [starts[i], starts[i] + lengths[i]) of each span set to value, a warp a span (matches.py's
// _blanked: skipped or whole-looked-up query records made borders).
extern "C" __global__ void fill_spans(unsigned char* __restrict__ codes, const long long* __restrict__ starts,
                                      const long long* __restrict__ lengths, long long n, unsigned char value)
{
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    for (long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < n; i += warps)
        for (long long x = starts[i] + lane; x < starts[i] + lengths[i]; x += 32) codes[x] = value;
}
