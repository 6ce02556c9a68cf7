// Parquet DELTA_BINARY_PACKED data, one page per row group: blocks of DELTA_BLOCK deltas, each
// with its minimum delta (zigzag varint), the bit widths of its MINIBLOCKS miniblocks (one byte
// each) and the miniblocks' deltas less the minimum, bit-packed little-endian. Deltas wrap in
// the column's physical width (narrow: INT32, else INT64), as Parquet's readers undo them.
// pages.py has the NumPy twin and the page layout.
#define MINIBLOCK (DELTA_BLOCK / MINIBLOCKS)

__device__ __forceinline__ unsigned long long zigzag(long long v) {
    return ((unsigned long long)v << 1) ^ (unsigned long long)(v >> 63);
}

__device__ __forceinline__ int varint_len(unsigned long long v) {
    int n = 1;
    while (v >= 0x80) { v >>= 7; ++n; }
    return n;
}

// The delta of value i against value i - 1, wrapped to 32 bits for a narrow (INT32) column.
__device__ __forceinline__ long long delta(const long long* values, long long i, int narrow) {
    long long d = (long long)((unsigned long long)values[i] - (unsigned long long)values[i - 1]);
    return narrow ? (long long)(int)d : d;
}

// The value range [lo, hi) of block b: the deltas of values lo..hi-1 (each against the value before).
__device__ __forceinline__ void block_range(long long b, long long n, long long group_rows, long long per_group,
                                            long long* lo, long long* hi) {
    long long g = b / per_group, j = b % per_group;
    long long first = g * group_rows;
    long long end = min(first + group_rows, n);
    *lo = first + 1 + j * DELTA_BLOCK;
    *hi = min(*lo + DELTA_BLOCK, end);
}

// One thread a block: its minimum delta, its miniblocks' bit widths (a byte each) and its size in bytes (0 past a group's deltas).
extern "C" __global__ void delta_blocks(const long long* values, long long n, long long group_rows, long long per_group,
                                        long long count, int narrow, long long* mins, unsigned int* widths, long long* sizes) {
    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < count; b += (long long)gridDim.x * blockDim.x) {
        long long lo, hi;
        block_range(b, n, group_rows, per_group, &lo, &hi);
        if (lo >= hi) { mins[b] = 0; widths[b] = 0; sizes[b] = 0; continue; }
        long long low = 0x7fffffffffffffffLL;
        for (long long i = lo; i < hi; ++i) low = min(low, delta(values, i, narrow));
        unsigned int packed = 0;
        long long size = varint_len(zigzag(low)) + MINIBLOCKS;
        for (int m = 0; m < MINIBLOCKS; ++m) {
            long long s = lo + (long long)m * MINIBLOCK;
            if (s >= hi) break;
            long long e = min(s + MINIBLOCK, hi);
            unsigned long long top = 0;
            for (long long i = s; i < e; ++i)
                top |= (unsigned long long)delta(values, i, narrow) - (unsigned long long)low;
            int w = top ? 64 - __clzll((long long)top) : 0;
            packed |= (unsigned int)w << (8 * m);
            size += 4 * w;
        }
        mins[b] = low;
        widths[b] = packed;
        sizes[b] = size;
    }
}

// One thread a block: the block's bytes at its offset.
extern "C" __global__ void delta_pack(const long long* values, long long n, long long group_rows, long long per_group,
                                      long long count, int narrow, const long long* mins, const unsigned int* widths,
                                      const long long* offsets, unsigned char* out) {
    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < count; b += (long long)gridDim.x * blockDim.x) {
        long long lo, hi;
        block_range(b, n, group_rows, per_group, &lo, &hi);
        if (lo >= hi) continue;
        unsigned char* p = out + offsets[b];
        unsigned long long z = zigzag(mins[b]);
        while (z >= 0x80) { *p++ = (unsigned char)(z | 0x80); z >>= 7; }
        *p++ = (unsigned char)z;
        unsigned int packed = widths[b];
        for (int m = 0; m < MINIBLOCKS; ++m) *p++ = (unsigned char)(packed >> (8 * m));
        for (int m = 0; m < MINIBLOCKS; ++m) {
            long long s = lo + (long long)m * MINIBLOCK;
            if (s >= hi) break;
            int w = (packed >> (8 * m)) & 0xff;
            if (!w) continue;
            unsigned long long acc = 0;  // bits not yet written, fewer than 8 at the top of the loop
            int held = 0;
            for (int t = 0; t < MINIBLOCK; ++t) {
                long long i = s + t;
                unsigned long long u = i < hi ? (unsigned long long)delta(values, i, narrow) - (unsigned long long)mins[b] : 0ULL;
                int done = 0;
                while (done < w) {
                    int take = min(64 - held, w - done);
                    unsigned long long bits = take == 64 ? u : (u >> done) & ((1ULL << take) - 1);
                    acc |= bits << held;
                    held += take;
                    done += take;
                    while (held >= 8) {
                        *p++ = (unsigned char)acc;
                        acc = held == 8 ? 0 : acc >> 8;
                        held -= 8;
                    }
                }
            }
        }
    }
}
