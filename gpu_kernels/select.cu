// select.cu: rows kept by a test, written in order, in three launches and none of CuPy's kernels:
//   *_count: block b tests its TILE rows and writes how many it keeps to counts[b];
//   place:   one block turns counts[0..blocks) into exclusive offsets, the total in counts[blocks];
//   *_write: block b tests its rows again and writes the kept ones from counts[b] on, in order.
// Two selections, the engine's steps between seeds and HSPs (diagonals.py, hsps.py):
//   seeds_*: sorted diagonal keys -> the seeds a tile keeps: owned (query position >= q0 and reference
//            position >= r0) and not shadowed (no seed 1 to 2k-1 bases before on the diagonal), decoded
//            to (query, reference) positions; seeds_count also counts the owned ones.
//   hsps_*:  extended seeds -> the HSPs at least min_len long and min_identity percent identical, as raw
//            table columns (reference coordinates from the seed's diagonal).
// BLOCK and SELECT_ITEMS come from kernels.py as -D macros.
#define TILE (BLOCK * SELECT_ITEMS)
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

typedef long long i64;
typedef unsigned long long u64;

// The sum of v over the block (every thread gets it); scratch holds WARPS values.
__device__ i64 block_sum(i64 v, i64* scratch)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL_MASK, v, o);
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
    __syncthreads();
    i64 total = 0;
    for (int w = 0; w < WARPS; ++w) total += scratch[w];
    __syncthreads();
    return total;
}

// Where this thread's kept row goes among the block's kept rows of this round, and how many the
// round keeps (warp ballots; scratch holds WARPS counts).
__device__ int block_place(bool kept, int* scratch, int* round_total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned ballot = __ballot_sync(FULL_MASK, kept);
    if (lane == 0) scratch[warp] = __popc(ballot);
    __syncthreads();
    int before = 0, total = 0;
    for (int w = 0; w < WARPS; ++w) {
        before += w < warp ? scratch[w] : 0;
        total += scratch[w];
    }
    __syncthreads();
    *round_total = total;
    return before + __popc(ballot & ((1u << lane) - 1u));
}

extern "C" __global__ void place(i64* __restrict__ counts, i64 blocks)
{
    // one block: thread t sums a contiguous run of counts, the runs' sums are scanned, then each
    // thread rewrites its run as offsets
    __shared__ i64 sums[BLOCK];
    const i64 per = (blocks + BLOCK - 1) / BLOCK;
    const i64 lo = threadIdx.x * per, hi = lo + per < blocks ? lo + per : blocks;
    i64 mine = 0;
    for (i64 i = lo; i < hi; ++i) mine += counts[i];
    sums[threadIdx.x] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        i64 run = 0;
        for (int t = 0; t < BLOCK; ++t) {
            const i64 s = sums[t];
            sums[t] = run;
            run += s;
        }
        counts[blocks] = run;
    }
    __syncthreads();
    i64 at = sums[threadIdx.x];
    for (i64 i = lo; i < hi; ++i) {
        const i64 c = counts[i];
        counts[i] = at;
        at += c;
    }
}

// Seed i of the sorted keys: its positions, whether the tile owns it, and whether it is kept.
__device__ bool seed_kept(const u64* keys, i64 i, u64 width, i64 rtotal, i64 q0, i64 r0, u64 shadow,
                          i64* q, i64* r, bool* owned)
{
    const u64 key = keys[i];
    *q = (i64)(key % width);
    *r = *q - (i64)(key / width) + rtotal;
    *owned = *q >= q0 && *r >= r0;
    return *owned && (i == 0 || key - keys[i - 1] >= shadow);
}

extern "C" __global__ void seeds_count(const u64* __restrict__ keys, i64 n, u64 width, i64 rtotal, i64 q0, i64 r0,
                                       u64 shadow, u64* __restrict__ owned_total, i64* __restrict__ counts)
{
    __shared__ i64 scratch[WARPS];
    const i64 base = (i64)blockIdx.x * TILE;
    i64 kept = 0, owned = 0;
    for (int j = 0; j < SELECT_ITEMS; ++j) {
        const i64 i = base + (i64)j * BLOCK + threadIdx.x;
        if (i < n) {
            i64 q, r;
            bool own;
            kept += seed_kept(keys, i, width, rtotal, q0, r0, shadow, &q, &r, &own);
            owned += own;
        }
    }
    kept = block_sum(kept, scratch);
    owned = block_sum(owned, scratch);
    if (threadIdx.x == 0) {
        counts[blockIdx.x] = kept;
        if (owned) atomicAdd(owned_total, (u64)owned);
    }
}

extern "C" __global__ void seeds_write(const u64* __restrict__ keys, i64 n, u64 width, i64 rtotal, i64 q0, i64 r0,
                                       u64 shadow, const i64* __restrict__ offsets, i64* __restrict__ sq,
                                       i64* __restrict__ sr)
{
    __shared__ int scratch[WARPS];
    const i64 base = (i64)blockIdx.x * TILE;
    i64 at = offsets[blockIdx.x];
    for (int j = 0; j < SELECT_ITEMS; ++j) {
        const i64 i = base + (i64)j * BLOCK + threadIdx.x;
        i64 q = 0, r = 0;
        bool own;
        const bool kept = i < n && seed_kept(keys, i, width, rtotal, q0, r0, shadow, &q, &r, &own);
        int round;
        const int slot = block_place(kept, scratch, &round);
        if (kept) {
            sq[at + slot] = q;
            sr[at + slot] = r;
        }
        at += round;
    }
}

// Whether HSP i is long and identical enough: the float64 test of hsps.passes, operation for operation.
__device__ bool hsp_passes(const i64* qstart, const i64* qend, const int* ids, i64 i, i64 min_len, double min_identity)
{
    const i64 length = qend[i] - qstart[i];
    return length >= min_len && (double)ids[i] * 100.0 >= min_identity * (double)length;
}

extern "C" __global__ void hsps_count(const i64* __restrict__ qstart, const i64* __restrict__ qend,
                                      const int* __restrict__ ids, i64 n, i64 min_len, double min_identity,
                                      i64* __restrict__ counts)
{
    __shared__ i64 scratch[WARPS];
    const i64 base = (i64)blockIdx.x * TILE;
    i64 kept = 0;
    for (int j = 0; j < SELECT_ITEMS; ++j) {
        const i64 i = base + (i64)j * BLOCK + threadIdx.x;
        if (i < n) kept += hsp_passes(qstart, qend, ids, i, min_len, min_identity);
    }
    kept = block_sum(kept, scratch);
    if (threadIdx.x == 0) counts[blockIdx.x] = kept;
}

extern "C" __global__ void hsps_write(const i64* __restrict__ qstart, const i64* __restrict__ qend,
                                      const int* __restrict__ score, const int* __restrict__ ids,
                                      const i64* __restrict__ sq, const i64* __restrict__ sr, i64 n, i64 min_len,
                                      double min_identity, const i64* __restrict__ offsets,
                                      i64* __restrict__ out_qstart, i64* __restrict__ out_qend,
                                      i64* __restrict__ out_rstart, i64* __restrict__ out_rend,
                                      i64* __restrict__ out_score, i64* __restrict__ out_ids)
{
    __shared__ int scratch[WARPS];
    const i64 base = (i64)blockIdx.x * TILE;
    i64 at = offsets[blockIdx.x];
    for (int j = 0; j < SELECT_ITEMS; ++j) {
        const i64 i = base + (i64)j * BLOCK + threadIdx.x;
        const bool kept = i < n && hsp_passes(qstart, qend, ids, i, min_len, min_identity);
        int round;
        const int slot = block_place(kept, scratch, &round);
        if (kept) {
            const i64 o = at + slot, shift = sr[i] - sq[i];  // the seed's diagonal: r - q
            out_qstart[o] = qstart[i];
            out_qend[o] = qend[i];
            out_rstart[o] = qstart[i] + shift;
            out_rend[o] = qend[i] + shift;
            out_score[o] = score[i];
            out_ids[o] = ids[i];
        }
        at += round;
    }
}

// Words (words.py): words_*: the windows whose word is all ACGT (valid[i]) -> their keys and positions
// (i + at); window_*: sorted words whose position lies in [lo, hi) -> their keys and positions.
extern "C" __global__ void words_count(const unsigned char* __restrict__ valid, i64 n, i64* __restrict__ counts)
{
    __shared__ i64 scratch[WARPS];
    const i64 base = (i64)blockIdx.x * TILE;
    i64 kept = 0;
    for (int j = 0; j < SELECT_ITEMS; ++j) {
        const i64 i = base + (i64)j * BLOCK + threadIdx.x;
        if (i < n) kept += valid[i] != 0;
    }
    kept = block_sum(kept, scratch);
    if (threadIdx.x == 0) counts[blockIdx.x] = kept;
}

// The rows kept (kept(i)) written in order as words: their keys and their positions (position(i)).
template <typename Kept, typename Position>
__device__ void write_words(i64 n, Kept kept_at, Position position, const u64* __restrict__ keys,
                            const i64* __restrict__ offsets, u64* __restrict__ out_keys, i64* __restrict__ out_pos)
{
    __shared__ int scratch[WARPS];
    const i64 base = (i64)blockIdx.x * TILE;
    i64 to = offsets[blockIdx.x];
    for (int j = 0; j < SELECT_ITEMS; ++j) {
        const i64 i = base + (i64)j * BLOCK + threadIdx.x;
        const bool kept = i < n && kept_at(i);
        int round;
        const int slot = block_place(kept, scratch, &round);
        if (kept) {
            out_keys[to + slot] = keys[i];
            out_pos[to + slot] = position(i);
        }
        to += round;
    }
}

extern "C" __global__ void words_write(const unsigned char* __restrict__ valid, i64 n, const u64* __restrict__ keys,
                                       i64 at, const i64* __restrict__ offsets, u64* __restrict__ out_keys,
                                       i64* __restrict__ out_pos)
{
    write_words(n, [=](i64 i) { return valid[i] != 0; }, [=](i64 i) { return i + at; }, keys, offsets, out_keys,
                out_pos);
}

// keep_write: the words whose keep[i] is set (counted by words_count) -> their keys and positions, in order.
extern "C" __global__ void keep_write(const unsigned char* __restrict__ keep, i64 n, const u64* __restrict__ keys,
                                      const i64* __restrict__ pos, const i64* __restrict__ offsets,
                                      u64* __restrict__ out_keys, i64* __restrict__ out_pos)
{
    write_words(n, [=](i64 i) { return keep[i] != 0; }, [=](i64 i) { return pos[i]; }, keys, offsets, out_keys,
                out_pos);
}

extern "C" __global__ void window_count(const i64* __restrict__ pos, i64 n, i64 lo, i64 hi, i64* __restrict__ counts)
{
    __shared__ i64 scratch[WARPS];
    const i64 base = (i64)blockIdx.x * TILE;
    i64 kept = 0;
    for (int j = 0; j < SELECT_ITEMS; ++j) {
        const i64 i = base + (i64)j * BLOCK + threadIdx.x;
        if (i < n) kept += pos[i] >= lo && pos[i] < hi;
    }
    kept = block_sum(kept, scratch);
    if (threadIdx.x == 0) counts[blockIdx.x] = kept;
}

extern "C" __global__ void window_write(const i64* __restrict__ pos, i64 n, i64 lo, i64 hi,
                                        const u64* __restrict__ keys, const i64* __restrict__ offsets,
                                        u64* __restrict__ out_keys, i64* __restrict__ out_pos)
{
    write_words(n, [=](i64 i) { return pos[i] >= lo && pos[i] < hi; }, [=](i64 i) { return pos[i]; }, keys, offsets,
                out_keys, out_pos);
}

// gather1/4/8: out[i] = in[order[i]] for values of 1, 4 or 8 bytes (arrays.gather: values[order],
// the rows of a table by index, without CuPy's take kernel, which is compiled for each dtype and,
// on arrays past 2 GB, again for 64-bit indexing).
template <typename T>
__device__ void gather_rows(const T* __restrict__ in, const i64* __restrict__ order, i64 n, T* __restrict__ out)
{
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
        out[i] = in[order[i]];
}

extern "C" __global__ void gather1(const unsigned char* in, const i64* order, i64 n, unsigned char* out)
{
    gather_rows(in, order, n, out);
}

extern "C" __global__ void gather4(const unsigned int* in, const i64* order, i64 n, unsigned int* out)
{
    gather_rows(in, order, n, out);
}

extern "C" __global__ void gather8(const u64* in, const i64* order, i64 n, u64* out)
{
    gather_rows(in, order, n, out);
}
