// extend.cu: base-exact, identity-aware ungapped extension, one warp per run of seeds.
//
// The rule (gpu_kernels/extend.py's docstring has it in full): each side of a seed is walked on
// its own from score k * match; the walk stops when the score drops below 0, falls more than xdrop
// below the side's best (xdrop 0: never), or meets a BORDER code; the side's end moves to the n-th
// base only where the score beats the side's best and (2 * ids + k) * 100 >= min_identity * (2 * n + k).
//
// Launch: 1-D grid, EXTEND_THREADS threads a block; warp w takes seeds [w*run, (w+1)*run).
// The warp reads a chunk of 32 * PER_LANE consecutive bases of the seed's diagonal at once,
// PER_LANE a lane: each lane sums its bases, one shuffle scan over the lanes gives the score and
// identities after every base of the chunk; a max scan of the scores at identity-clearing bases
// gives the side's best before every base (for the X-drop), a ballot the first base where the walk
// stops, and a REDUX max with a ballot the first best identity-clearing position inside the
// chunk: ends are exact, not multiples of the chunk.
// Invariants: every record has >= 32 * PER_LANE BORDER codes on each side (kernels.py asserts it),
// so a chunk that starts inside a record never leaves the array; seeds are all-ACGT k-mers inside
// one record. BORDER and PER_LANE come from gpu_kernels/kernels.py as -D macros.
#define FULL 0xffffffffu
#define NEG_INF (-2147483647 - 1)
#define CHUNK (32 * PER_LANE)

struct Walk {
    int best;          // best score reached
    long long len;     // bases from the start of the walk to the best position
    int ids;           // identities among those bases
};

// Scores and identities travel packed in one int: identities in the high half, the score in the
// low half (borrowed through when negative). |score| <= 255 a base keeps a chunk's sum in 16 bits.
__device__ __forceinline__ int low_score(int packed) { return (int)(short)(packed & 0xffff); }

__device__ Walk walk(const unsigned char* __restrict__ q, const unsigned char* __restrict__ r, long long qpos,
                     long long rpos, int step, int k, int match, int mismatch, int n_score, int xdrop,
                     double min_identity, int lane)
{
    int score = k * match;
    Walk w = {score, 0, 0};
    int ids = 0;
    long long walked = 0;
    while (true) {
        const long long at = walked + lane * PER_LANE;
        int packed[PER_LANE];
        bool stop[PER_LANE];
        int acc = 0;
#pragma unroll
        for (int j = 0; j < PER_LANE; ++j) {
            const unsigned a = q[qpos + step * (at + j)];
            const unsigned b = r[rpos + step * (at + j)];
            stop[j] = a == BORDER || b == BORDER;
            int s = (a > 3 || b > 3) ? n_score : (a == b ? match : mismatch);
            if (stop[j]) s = 0;
            acc += ((a == b && a < 4) ? 65536 : 0) + s;
            packed[j] = acc;
        }
        int incl = acc;
        for (int o = 1; o < 32; o <<= 1) {
            const int t = __shfl_up_sync(FULL, incl, o);
            if (lane >= o) incl += t;
        }
        const int before = incl - acc;
        int run[PER_LANE], run_ids[PER_LANE], cand[PER_LANE];
#pragma unroll
        for (int j = 0; j < PER_LANE; ++j) {
            const int p = before + packed[j];
            const int cs = low_score(p);
            run[j] = score + cs;
            run_ids[j] = ids + ((p - cs) >> 16);
            const long long n = at + j + 1;
            const bool ok = (double)(2LL * run_ids[j] + k) * 100.0 >= min_identity * (double)(2 * n + k);
            cand[j] = ok ? run[j] : NEG_INF;
        }
        int first_dead = PER_LANE;
        if (xdrop) {
            // the side's best before each base: w.best, then the max of earlier identity-clearing scores
            int local[PER_LANE];
            int m = NEG_INF;
#pragma unroll
            for (int j = 0; j < PER_LANE; ++j) { m = cand[j] > m ? cand[j] : m; local[j] = m; }
            int scan = m;
            for (int o = 1; o < 32; o <<= 1) {
                const int t = __shfl_up_sync(FULL, scan, o);
                if (lane >= o && t > scan) scan = t;
            }
            int prior = __shfl_up_sync(FULL, scan, 1);
            if (lane == 0 || prior < w.best) prior = w.best;
#pragma unroll
            for (int j = 0; j < PER_LANE; ++j) {
                const int top_so_far = local[j] > prior ? local[j] : prior;
                if (first_dead == PER_LANE && (stop[j] || run[j] < 0 || top_so_far - run[j] > xdrop)) first_dead = j;
            }
        } else {
#pragma unroll
            for (int j = 0; j < PER_LANE; ++j)
                if (first_dead == PER_LANE && (stop[j] || run[j] < 0)) first_dead = j;
        }
        const unsigned dead_mask = __ballot_sync(FULL, first_dead < PER_LANE);
        const int end_lane = dead_mask ? __ffs(dead_mask) - 1 : 32;
        const int limit = lane < end_lane ? PER_LANE : (lane == end_lane ? first_dead : 0);
        int top_here = NEG_INF, top_j = 0, top_ids = 0;
#pragma unroll
        for (int j = 0; j < PER_LANE; ++j)
            if (j < limit && cand[j] > top_here) { top_here = cand[j]; top_j = j; top_ids = run_ids[j]; }
        const int top = __reduce_max_sync(FULL, top_here);
        if (top > w.best) {  // uniform across the warp
            const int lane_at = __ffs(__ballot_sync(FULL, top_here == top)) - 1;
            w.best = top;
            w.len = walked + lane_at * PER_LANE + __shfl_sync(FULL, top_j, lane_at) + 1;
            w.ids = __shfl_sync(FULL, top_ids, lane_at);
        }
        if (dead_mask) break;
        score = __shfl_sync(FULL, run[PER_LANE - 1], 31);
        ids = __shfl_sync(FULL, run_ids[PER_LANE - 1], 31);
        walked += CHUNK;
    }
    return w;
}

extern "C" __global__ void extend_runs(const unsigned char* __restrict__ q, const unsigned char* __restrict__ r,
                                       const long long* __restrict__ seed_q, const long long* __restrict__ seed_r,
                                       long long n_seeds, int run, int k, int match, int mismatch, int n_score,
                                       int xdrop, double min_identity, long long* __restrict__ qstart,
                                       long long* __restrict__ qend,
                                       int* __restrict__ score, int* __restrict__ identities)
{
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long first = warp * run;
    const long long last = first + run < n_seeds ? first + run : n_seeds;
    for (long long i = first; i < last; ++i) {
        const long long sq = seed_q[i], sr = seed_r[i];
        const Walk right = walk(q, r, sq + k, sr + k, 1, k, match, mismatch, n_score, xdrop, min_identity, lane);
        const Walk left = walk(q, r, sq - 1, sr - 1, -1, k, match, mismatch, n_score, xdrop, min_identity, lane);
        if (lane == 0) {
            qstart[i] = sq - left.len;
            qend[i] = sq + k + right.len;
            score[i] = left.best + right.best - k * match;
            identities[i] = k + left.ids + right.ids;
        }
    }
}
