// matches.cu: maximal exact matches from their left ends (the rule of matches.c, on the device).
//
// Words (3 bits a symbol, no border inside) come from match_keys, at the end; query and reference
// words are sorted by key, and the reference words of one key further by the symbol before them
// (rprev: BORDER where a record starts). A query word's candidates are the reference words of its
// key less the run whose symbol before equals its own: those pairs extend to the left (a border
// never does), so they are skipped unread. Each candidate pair is walked right to the first
// difference or border and kept when at least min_match long; its slot comes from the counter
// `found`, and it is written when the slot is below capacity (the caller runs again with room for
// all of them otherwise).
//
// Two kernels, since a few query words (the start of an N gap or of a long microsatellite) have
// tens of thousands of candidates, each walked for thousands of bases, and would keep one thread
// busy for seconds: mem_light (1-D grid-stride over query words, BLOCK threads a block) walks the
// candidates of words with at most MEM_LIGHT of them and writes the count of the others to heavy[i]
// (0 otherwise); mem_heavy (one block of BLOCK threads per item) walks MEM_CHUNK candidates of one
// heavy word, items listed by the caller.

// The first index in [lo, hi) of sorted values whose value is not below `value`.
template <typename T, typename V>
__device__ __forceinline__ long long lower_bound(const T* __restrict__ values, long long lo, long long hi, V value)
{
    while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (values[mid] < value) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// A query word's candidates: reference words [lo, skip) and [skip_end, hi).
struct Candidates {
    long long lo, skip, skip_end, hi;
    __device__ long long count() const { return (skip - lo) + (hi - skip_end); }
    __device__ long long at(long long t) const { return t < skip - lo ? lo + t : skip_end + (t - (skip - lo)); }
};

__device__ __forceinline__ Candidates candidates(const unsigned char* __restrict__ qcodes,
                                                 const unsigned long long* __restrict__ rkeys,
                                                 const unsigned char* __restrict__ rprev, long long nr,
                                                 unsigned long long key, long long q)
{
    Candidates c;
    c.lo = lower_bound(rkeys, 0, nr, key);
    c.hi = (c.lo == nr || rkeys[c.lo] != key) ? c.lo : (key == ~0ULL ? nr : lower_bound(rkeys, c.lo, nr, key + 1));
    c.skip = c.skip_end = c.hi;
    const unsigned char before = q > 0 ? qcodes[q - 1] : BORDER;
    if (before != BORDER && c.lo < c.hi) {
        c.skip = lower_bound(rprev, c.lo, c.hi, (unsigned int)before);
        c.skip_end = lower_bound(rprev, c.skip, c.hi, before + 1u);
    }
    return c;
}

// Eight codes from p (any alignment) as the bytes of one integer, first code lowest.
__device__ __forceinline__ unsigned long long load8(const unsigned char* __restrict__ p)
{
    unsigned long long v = 0;
#pragma unroll
    for (int b = 0; b < 8; ++b) v |= (unsigned long long)p[b] << (8 * b);
    return v;
}

// Length of the match of (q, r), whose first k codes are equal: to the first difference or border.
// Eight codes a step (independent loads) where both sides have eight left, then one at a time.
__device__ __forceinline__ long long walk(const unsigned char* __restrict__ qcodes, long long qsize,
                                          const unsigned char* __restrict__ rcodes, long long rsize,
                                          long long q, long long r, int k)
{
    const unsigned long long ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    long long length = k;
    while (q + length + 8 <= qsize && r + length + 8 <= rsize) {
        const unsigned long long a = load8(qcodes + q + length), b = load8(rcodes + r + length);
        // a byte of stop is nonzero where the codes differ or the query code is a border
        const unsigned long long border = a ^ (ones * BORDER);
        const unsigned long long at_border = (border - ones) & ~border & highs;  // high bit set where a byte is 0
        const unsigned long long stop = (a ^ b) | at_border;
        if (stop) return length + (__ffsll((long long)stop) - 1) / 8;
        length += 8;
    }
    while (q + length < qsize && r + length < rsize) {
        const unsigned char a = qcodes[q + length];
        if (a != rcodes[r + length] || a == BORDER) break;
        ++length;
    }
    return length;
}

__device__ __forceinline__ void keep(long long q, long long r, long long length, long long capacity,
                                     unsigned long long* __restrict__ found, long long* __restrict__ out_q,
                                     long long* __restrict__ out_r, long long* __restrict__ out_len)
{
    const unsigned long long at = atomicAdd(found, 1ULL);
    if ((long long)at < capacity) {
        out_q[at] = q;
        out_r[at] = r;
        out_len[at] = length;
    }
}

extern "C" __global__ void mem_light(const unsigned char* __restrict__ qcodes, long long qsize,
                                     const unsigned char* __restrict__ rcodes, long long rsize,
                                     const unsigned long long* __restrict__ qkeys,
                                     const long long* __restrict__ qpos, long long nq,
                                     const unsigned long long* __restrict__ rkeys,
                                     const unsigned char* __restrict__ rprev,
                                     const long long* __restrict__ rpos, long long nr, int k, long long min_match,
                                     long long capacity, unsigned long long* __restrict__ found,
                                     long long* __restrict__ out_q, long long* __restrict__ out_r,
                                     long long* __restrict__ out_len, long long* __restrict__ heavy)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nq; i += stride) {
        const long long q = qpos[i];
        const Candidates c = candidates(qcodes, rkeys, rprev, nr, qkeys[i], q);
        const long long n = c.count();
        heavy[i] = n > MEM_LIGHT ? n : 0;
        if (n > MEM_LIGHT) continue;
        for (long long t = 0; t < n; ++t) {
            const long long r = rpos[c.at(t)];
            const long long length = walk(qcodes, qsize, rcodes, rsize, q, r, k);
            if (length >= min_match) keep(q, r, length, capacity, found, out_q, out_r, out_len);
        }
    }
}

extern "C" __global__ void mem_heavy(const unsigned char* __restrict__ qcodes, long long qsize,
                                     const unsigned char* __restrict__ rcodes, long long rsize,
                                     const unsigned long long* __restrict__ qkeys,
                                     const long long* __restrict__ qpos,
                                     const unsigned long long* __restrict__ rkeys,
                                     const unsigned char* __restrict__ rprev,
                                     const long long* __restrict__ rpos, long long nr, int k, long long min_match,
                                     long long capacity, unsigned long long* __restrict__ found,
                                     long long* __restrict__ out_q, long long* __restrict__ out_r,
                                     long long* __restrict__ out_len, const long long* __restrict__ item_word,
                                     const long long* __restrict__ item_first)
{
    const long long i = item_word[blockIdx.x];
    const long long q = qpos[i];
    const Candidates c = candidates(qcodes, rkeys, rprev, nr, qkeys[i], q);
    const long long first = item_first[blockIdx.x];
    const long long last = min(first + MEM_CHUNK, c.count());
    for (long long t = first + threadIdx.x; t < last; t += blockDim.x) {
        const long long r = rpos[c.at(t)];
        const long long length = walk(qcodes, qsize, rcodes, rsize, q, r, k);
        if (length >= min_match) keep(q, r, length, capacity, found, out_q, out_r, out_len);
    }
}

// Words of k symbols (3 bits each, the first symbol highest) at every start i < n; valid[i] when
// none of its symbols is a border. 1-D grid-stride loop, BLOCK threads a block.
extern "C" __global__ void match_keys(const unsigned char* __restrict__ codes, long long n, int k,
                                      unsigned long long* __restrict__ keys, bool* __restrict__ valid)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned long long key = 0;
        bool ok = true;
        for (int j = 0; j < k; ++j) {
            const unsigned char c = codes[i + j];
            ok = ok && c != BORDER;
            key = (key << 3) | c;
        }
        keys[i] = key;
        valid[i] = ok;
    }
}

// Whole records (matches.py, whole_index_cupy and whole_record_matches_cupy; matches.c has the hash):
// a query record exactly min_match long is looked up once, by the hash of its codes, among the hashes
// of every reference window of that length, and each hit compared base by base.
#include "codes.h"
#define WINDOWS_A_THREAD 64

// hashes[p], valid[p] of every window of `length` codes: a thread rolls the hash along 64 windows.
extern "C" __global__ void window_hashes(const unsigned char* __restrict__ codes, long long n, long long length,
                                         unsigned long long* __restrict__ hashes, unsigned char* __restrict__ valid)
{
    const long long windows = n - length + 1, parts = (windows + WINDOWS_A_THREAD - 1) / WINDOWS_A_THREAD;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < parts; t += (long long)gridDim.x * blockDim.x) {
        const long long lo = t * WINDOWS_A_THREAD, hi = min(lo + WINDOWS_A_THREAD, windows);
        unsigned long long top = 1, h = 0;
        long long border = -1;
        for (long long j = 0; j < length; ++j) {
            const unsigned char c = codes[lo + j];
            h = h * HASH_BASE + hash_symbol(c);
            if (c == BORDER)
                border = lo + j;
            if (j)
                top *= HASH_BASE;
        }
        for (long long p = lo;; ++p) {
            hashes[p] = h;
            valid[p] = border < p;
            if (p + 1 >= hi)
                break;
            const unsigned char c = codes[p + length];
            h = (h - hash_symbol(codes[p]) * top) * HASH_BASE + hash_symbol(c);
            if (c == BORDER)
                border = p + length;
        }
    }
}

__device__ __forceinline__ unsigned char record_code(const unsigned char* __restrict__ codes, long long start,
                                                     long long length, int strand, long long j)
{
    if (!strand)
        return codes[start + j];
    const unsigned char c = codes[start + length - 1 - j];
    return c < 4 ? 3 - c : c;  // N and the border are their own complements
}

// A warp a query record (strand 1: its reverse complement): its hash (lane l sums the symbols j = l,
// l + 32, ... times powers[j] = B^(length-1-j)), the run of equal reference hashes, each one compared
// 32 codes at a time. counts[i] = its hits when out is null; else its hits go to out from counts[i].
extern "C" __global__ void whole_hits(const unsigned char* __restrict__ qcodes, const long long* __restrict__ starts,
                                      long long records, long long length, int strand,
                                      const unsigned long long* __restrict__ powers,
                                      const unsigned long long* __restrict__ rkeys, const long long* __restrict__ rpos,
                                      long long nr, const unsigned char* __restrict__ rcodes,
                                      long long* __restrict__ counts, long long* __restrict__ out)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * blockDim.x / 32;
    for (long long q = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32; q < records; q += warps) {
        const long long start = starts[q];
        unsigned long long h = 0;
        for (long long j = lane; j < length; j += 32)
            h += hash_symbol(record_code(qcodes, start, length, strand, j)) * powers[j];
        for (int offset = 16; offset > 0; offset >>= 1)
            h += __shfl_xor_sync(full, h, offset);
        const long long a = lower_bound(rkeys, 0LL, nr, h);
        long long hits = 0, at = out ? counts[q] : 0;
        for (long long k = a; k < nr && rkeys[k] == h; ++k) {
            const unsigned char* r = rcodes + rpos[k];
            bool same = true;
            for (long long j0 = 0; j0 < length && same; j0 += 32) {
                const long long j = j0 + lane;
                same = __all_sync(full, j >= length || r[j] == record_code(qcodes, start, length, strand, j));
            }
            if (!same)
                continue;  // another string of the same hash
            if (out && lane == 0)
                out[at + hits] = rpos[k];
            ++hits;
        }
        if (!out && lane == 0)
            counts[q] = hits;
    }
}
