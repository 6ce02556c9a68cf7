// seeds.cu: the diagonal key of every seed, written straight from the seed groups.
//
// Launch: 1-D grid-stride loop over seeds, BLOCK threads a block (BLOCK from kernels.py). Seed i belongs to group
// group[i] (from a prefix sum of group-start markers, so every thread does the same work
// however frequent a key is); within its group it is the pair (local / rcount, local % rcount)
// of the group's query and reference words. Consecutive threads write consecutive keys.
// Key: (q - r + rtotal) * width + q, width > qtotal + 2k (see diagonals.py).
extern "C" __global__ void seed_keys(const int* __restrict__ group, const long long* __restrict__ offsets,
                                     const long long* __restrict__ qfirst, const long long* __restrict__ rfirst,
                                     const long long* __restrict__ rcount, const long long* __restrict__ qpos,
                                     const long long* __restrict__ rpos, long long total, long long rtotal,
                                     unsigned long long width, unsigned long long* __restrict__ keys)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        const int g = group[i];
        const long long local = i - offsets[g];
        const long long rc = rcount[g];
        const long long row = local / rc;
        const long long q = qpos[qfirst[g] + row];
        const long long r = rpos[rfirst[g] + (local - row * rc)];
        keys[i] = (unsigned long long)(q - r + rtotal) * width + (unsigned long long)q;
    }
}

// mark_starts: marks[offsets[g]] = 1 for every group g > 0 (seeds.seed_group_index: a prefix sum of
// the marks gives each seed its group; CuPy's scatter would be compiled again for arrays past 2 GB).
extern "C" __global__ void mark_starts(const long long* __restrict__ offsets, long long groups, int* __restrict__ marks)
{
    for (long long g = 1 + (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += (long long)gridDim.x * blockDim.x)
        marks[offsets[g]] = 1;
}
