// matches.cu: maximal exact matches from their left ends (the rule of matches.c, on the device).
//
// Launch: 1-D grid-stride loop over query words, BLOCK threads a block. Query and reference words
// (3 bits a symbol, no border inside) are sorted by key. Thread i finds its key's range in the
// reference keys (two binary searches) and visits every reference word there: a pair starts a MEM
// only when the symbols before the two words differ or one of them is a border; the match is then
// walked right to the first difference or border and kept when at least min_match long. Called
// twice: first (write 0) to count each query word's MEMs (counts), then (write 1), with offsets
// from an exclusive scan of the counts, to write them (out_q, out_r, out_len).
extern "C" __global__ void mem_starts(const unsigned char* __restrict__ qcodes, long long qsize,
                                      const unsigned char* __restrict__ rcodes, long long rsize,
                                      const unsigned long long* __restrict__ qkeys,
                                      const long long* __restrict__ qpos, long long nq,
                                      const unsigned long long* __restrict__ rkeys,
                                      const long long* __restrict__ rpos, long long nr, int k, long long min_match,
                                      int write, long long* __restrict__ counts,
                                      const long long* __restrict__ offsets,
                                      long long* __restrict__ out_q, long long* __restrict__ out_r,
                                      long long* __restrict__ out_len)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nq; i += stride) {
        const unsigned long long key = qkeys[i];
        long long lo = 0, hi = nr;
        while (lo < hi) {
            const long long mid = (lo + hi) >> 1;
            if (rkeys[mid] < key) lo = mid + 1; else hi = mid;
        }
        const long long q = qpos[i];
        const unsigned char before = q > 0 ? qcodes[q - 1] : BORDER;
        long long found = 0, at = write ? offsets[i] : 0;
        for (long long j = lo; j < nr && rkeys[j] == key; ++j) {
            const long long r = rpos[j];
            if (r > 0 && before != BORDER && rcodes[r - 1] == before) continue;  // not left-maximal
            long long length = k;
            while (q + length < qsize && r + length < rsize) {
                const unsigned char a = qcodes[q + length];
                if (a != rcodes[r + length] || a == BORDER) break;
                ++length;
            }
            if (length < min_match) continue;
            if (write) {
                out_q[at] = q;
                out_r[at] = r;
                out_len[at] = length;
                ++at;
            }
            ++found;
        }
        if (!write) counts[i] = found;
    }
}
