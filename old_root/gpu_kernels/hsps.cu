// hsps.cu: the HSP table's steps after deduplication (hsps.py, coverage.py), one launch each.
//   to_records:  raw HSPs of one strand (concatenated axes) -> record indices and record coordinates on
//                the forward reference axis, in the stored types of a table whose records are shorter
//                than 2^31 bases (int32 record indices, score and identities; int8 strand).
//   union_gains: rows sorted by (group, start), reach = the running maximum of group * span + end;
//                adds to covered[group] the bases each row adds to the union of the rows before it.
//   pack1/4/8:   key = key * span + column, for a signed integer column of 1, 4 or 8 bytes (hsps.packed_keys).
//   beyond_reach: keep[i] = row i is the first, or its end passes the reach of the rows before it
//                (hsps.drop_contained's test).
//   complete_columns: length = qend - qstart and rend = rstart + length (hsps.complete).
// Grid-stride loops; BLOCK comes from kernels.py as a -D macro.
#define FULL_MASK 0xffffffffu

typedef long long i64;

// The last index i with starts[i] <= x (starts ascending, starts[0] <= x): searchsorted(side="right") - 1.
__device__ i64 record_of(const i64* starts, i64 count, i64 x)
{
    i64 lo = 0, hi = count;  // the answer lies in [lo, hi)
    while (hi - lo > 1) {
        const i64 mid = (lo + hi) >> 1;
        if (starts[mid] <= x) lo = mid; else hi = mid;
    }
    return lo;
}

extern "C" __global__ void to_records(const i64* __restrict__ qstart, const i64* __restrict__ qend,
                                      const i64* __restrict__ rstart, const i64* __restrict__ rend,
                                      const i64* __restrict__ score, const i64* __restrict__ ids, i64 n,
                                      const i64* __restrict__ qstarts, i64 nq, const i64* __restrict__ rstarts,
                                      i64 nr, int strand, i64 rtotal, int* __restrict__ out_qrec,
                                      int* __restrict__ out_rrec, i64* __restrict__ out_qstart,
                                      i64* __restrict__ out_qend, i64* __restrict__ out_rstart,
                                      signed char* __restrict__ out_strand, int* __restrict__ out_score,
                                      int* __restrict__ out_ids)
{
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        const i64 q = record_of(qstarts, nq, qstart[i]);
        // the reverse strand's coordinates back from the reverse complement of the whole concatenation
        const i64 r0 = strand ? rtotal - rend[i] : rstart[i];
        const i64 r = record_of(rstarts, nr, r0);
        out_qrec[i] = (int)q;
        out_rrec[i] = (int)r;
        out_qstart[i] = qstart[i] - qstarts[q];
        out_qend[i] = qend[i] - qstarts[q];
        out_rstart[i] = r0 - rstarts[r];
        out_strand[i] = (signed char)strand;
        out_score[i] = (int)score[i];
        out_ids[i] = (int)ids[i];
    }
}

extern "C" __global__ void union_gains(const i64* __restrict__ group, const i64* __restrict__ start,
                                       const i64* __restrict__ end, const i64* __restrict__ reach, i64 span, i64 n,
                                       i64* __restrict__ covered)
{
    // whole warps run every round (rows past n add nothing), so a warp whose rows share one group,
    // the usual case, adds its sum with one atomic
    const i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 base = (i64)blockIdx.x * blockDim.x; base < n; base += stride) {
        const i64 i = base + threadIdx.x;
        i64 g = -1, gain = 0;
        if (i < n) {
            g = group[i];
            // the furthest end of the group's earlier rows (0 for a group's first row)
            const i64 before = (i == 0 || group[i - 1] != g) ? 0 : reach[i - 1] - g * span;
            const i64 from = start[i] > before ? start[i] : before;
            gain = end[i] > from ? end[i] - from : 0;
        }
        const i64 first = __shfl_sync(FULL_MASK, g, 0);
        if (__all_sync(FULL_MASK, g == first || g < 0)) {
            for (int o = 16; o > 0; o >>= 1) gain += __shfl_down_sync(FULL_MASK, gain, o);
            if ((threadIdx.x & 31) == 0 && gain) atomicAdd((unsigned long long*)&covered[first], (unsigned long long)gain);
        } else if (gain) {
            atomicAdd((unsigned long long*)&covered[g], (unsigned long long)gain);
        }
    }
}

template <typename T>
__device__ void pack_column(i64* __restrict__ key, const T* __restrict__ column, i64 span, i64 n)
{
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
        key[i] = key[i] * span + (i64)column[i];
}

extern "C" __global__ void pack1(i64* key, const signed char* column, i64 span, i64 n) { pack_column(key, column, span, n); }
extern "C" __global__ void pack4(i64* key, const int* column, i64 span, i64 n) { pack_column(key, column, span, n); }
extern "C" __global__ void pack8(i64* key, const i64* column, i64 span, i64 n) { pack_column(key, column, span, n); }

extern "C" __global__ void beyond_reach(const i64* __restrict__ end, const i64* __restrict__ reach, i64 n,
                                        bool* __restrict__ keep)
{
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
        keep[i] = i == 0 || end[i] > reach[i - 1];
}

extern "C" __global__ void complete_columns(const i64* __restrict__ qstart, const i64* __restrict__ qend,
                                            const i64* __restrict__ rstart, i64 n, i64* __restrict__ length,
                                            i64* __restrict__ rend)
{
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        const i64 len = qend[i] - qstart[i];
        length[i] = len;
        rend[i] = rstart[i] + len;
    }
}
