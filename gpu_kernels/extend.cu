// extend.cu: base-exact GECKO extension, one warp per run of seeds.
//
// Launch: 1-D grid, 128 threads a block (4 warps); warp w takes seeds [w*run, (w+1)*run).
// The 32 lanes read 32 consecutive bases of the seed's diagonal at once; a shuffle prefix sum
// gives the score after every base of the chunk, a ballot the first base where the walk stops
// (score < 0, a BORDER code, or with xdrop the score more than xdrop below its best), and a
// max reduction with a ballot the first best position inside the chunk: ends are exact.
// Skip rule (only with xdrop = 0): seeds arrive sorted by diagonal, then query position; a seed
// lying inside an HSP of an earlier seed of its diagonal that passes min_len and min_identity
// gives an HSP inside that one (DESIGN.md's filter keeps seeds of one diagonal >= 2k apart, so
// the earlier walk enters the seed with score >= k*match and dominates it on both sides), which
// the containment filter would drop: the warp marks it skipped (status 0) instead of walking.
// chunks counts the 32-base chunks read, for the benchmark's byte count.
// Invariants: every record has >= 32 BORDER (5) codes on each side, so a chunk that starts
// inside a record never leaves the array; seeds are all-ACGT k-mers inside one record.
#define BORDER 5
#define FULL 0xffffffffu
#define NEG_INF (-2147483647 - 1)

struct Walk {
    int best;        // best score reached
    long long len;   // bases from the start of the walk to the best position
    int ids;         // identities among those bases
    long long chunks;  // 32-base chunks read
};

__device__ Walk walk(const unsigned char* __restrict__ q, const unsigned char* __restrict__ r, long long qpos,
                     long long rpos, int step, int score, int match, int mismatch, int n_score, int xdrop, int lane)
{
    Walk w = {score, 0, 0, 0};
    int ids = 0;
    int peak = score;
    long long walked = 0;
    while (true) {
        const long long at = walked + lane;
        const unsigned a = q[qpos + step * at];
        const unsigned b = r[rpos + step * at];
        const bool stop = a == BORDER || b == BORDER;
        ++w.chunks;
        int s = (a > 3 || b > 3) ? n_score : (a == b ? match : mismatch);
        if (stop) s = 0;
        // score and identity prefix sums in one scan: identities in the high half, the score
        // (|sum| < 2^15 since |scores| <= 1000) in the low half, borrowed through when negative
        int packed = ((a == b && a < 4) ? 65536 : 0) + s;
        for (int o = 1; o < 32; o <<= 1) {
            const int t = __shfl_up_sync(FULL, packed, o);
            if (lane >= o) packed += t;
        }
        const int chunk_score = (int)(short)(packed & 0xffff);
        const int run = score + chunk_score;
        const int run_ids = ids + ((packed - chunk_score) >> 16);
        bool dead = stop || run < 0;
        if (xdrop) {
            int top_so_far = run;
            for (int o = 1; o < 32; o <<= 1) {
                const int t = __shfl_up_sync(FULL, top_so_far, o);
                if (lane >= o && t > top_so_far) top_so_far = t;
            }
            if (peak > top_so_far) top_so_far = peak;
            dead = dead || top_so_far - run > xdrop;
            peak = __shfl_sync(FULL, top_so_far, 31);
        }
        const unsigned dead_mask = __ballot_sync(FULL, dead);
        const int end = dead_mask ? __ffs(dead_mask) - 1 : 32;
        const int cand = lane < end ? run : NEG_INF;
        const int top = __reduce_max_sync(FULL, cand);
        if (top > w.best) {  // uniform across the warp
            const int first = __ffs(__ballot_sync(FULL, cand == top)) - 1;
            w.best = top;
            w.len = walked + first + 1;
            w.ids = __shfl_sync(FULL, run_ids, first);
        }
        if (dead_mask) break;
        score = __shfl_sync(FULL, run, 31);
        ids = __shfl_sync(FULL, run_ids, 31);
        walked += 32;
    }
    return w;
}

extern "C" __global__ void extend_runs(const unsigned char* __restrict__ q, const unsigned char* __restrict__ r,
                                       const long long* __restrict__ seed_q, const long long* __restrict__ seed_r,
                                       long long n_seeds, int run, int k, int match, int mismatch, int n_score,
                                       int xdrop, long long min_len, double min_identity,
                                       long long* __restrict__ qstart, long long* __restrict__ qend,
                                       int* __restrict__ score, int* __restrict__ identities,
                                       unsigned char* __restrict__ status, unsigned long long* __restrict__ chunks)
{
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long first = warp * run;
    const long long last = first + run < n_seeds ? first + run : n_seeds;
    bool have = false;             // a passing HSP on prev_diag from this warp
    long long prev_diag = 0, prev_end = 0;
    for (long long i = first; i < last; ++i) {
        const long long sq = seed_q[i], sr = seed_r[i];
        const long long diag = sq - sr;
        if (xdrop == 0 && have && diag == prev_diag && sq + k <= prev_end) {
            if (lane == 0) status[i] = 0;
            continue;
        }
        const Walk right = walk(q, r, sq + k, sr + k, 1, k * match, match, mismatch, n_score, xdrop, lane);
        const Walk left = walk(q, r, sq - 1, sr - 1, -1, right.best, match, mismatch, n_score, xdrop, lane);
        const long long qs = sq - left.len, qe = sq + k + right.len;
        const int ids = k + left.ids + right.ids;
        if (lane == 0) {
            atomicAdd(chunks, (unsigned long long)(left.chunks + right.chunks));
            qstart[i] = qs;
            qend[i] = qe;
            score[i] = left.best;
            identities[i] = ids;
            status[i] = 1;
        }
        const long long length = qe - qs;
        const bool passes = length >= min_len && ids * 100.0 >= min_identity * (double)length;
        if (diag != prev_diag) have = false;
        if (passes && (!have || qe > prev_end)) {
            have = true;
            prev_diag = diag;
            prev_end = qe;
        }
    }
}
