// groups.cu: seed groups straight from the two sorted word lists, in one pass over the query words.
//
// Launch: 1-D grid-stride loop over query words, BLOCK threads a block (BLOCK from kernels.py). Thread i starts a group when
// its key differs from word i-1: it counts the run of equal query keys (qcount), then finds the
// key's range in the sorted reference keys with a lower-bound and an upper-bound binary search
// (rfirst, rcount). Every other thread writes rcount = 0, so a compaction on rcount > 0 leaves
// exactly the keys present on both sides, in key order (the same groups as seeds.seed_groups).
extern "C" __global__ void group_starts(const unsigned long long* __restrict__ qkeys, long long nq,
                                        const unsigned long long* __restrict__ rkeys, long long nr,
                                        long long* __restrict__ qcount, long long* __restrict__ rfirst,
                                        long long* __restrict__ rcount)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nq; i += stride) {
        const unsigned long long key = qkeys[i];
        if (i > 0 && qkeys[i - 1] == key) {
            rcount[i] = 0;
            continue;
        }
        long long j = i + 1;
        while (j < nq && qkeys[j] == key) ++j;
        long long lo = 0, hi = nr;
        while (lo < hi) {
            const long long mid = (lo + hi) >> 1;
            if (rkeys[mid] < key) lo = mid + 1; else hi = mid;
        }
        const long long first = lo;
        hi = nr;
        while (lo < hi) {
            const long long mid = (lo + hi) >> 1;
            if (rkeys[mid] <= key) lo = mid + 1; else hi = mid;
        }
        qcount[i] = j - i;
        rfirst[i] = first;
        rcount[i] = lo - first;
    }
}
