/* The one-to-one backbone of chains on the device: backbone.c's two rounds, the same choices.
 *
 * A warp takes a list of chains in order, as one thread of backbone.c does: for each chain its lanes
 * count the chain's aligned bases and those already covered (its blocks' words of the covers, a lane
 * a word), the shuffles sum them, and every lane makes the same choice; a chain kept has its words
 * set. The rule (backbone.c `rejected`) reads only the sums over all its blocks: covered counts only
 * grow along the blocks, so the early stop of the host's loop gives the same answer.
 *
 * The first round: a warp a record pair (a group), the groups taken from a counter, each warp with
 * covers of its own over the longest query and reference records, cleared after each group. The
 * second: one warp over the first round's chains, on the genomes laid end to end.
 *
 * Covers are read from L2 (__ldcg) and set by atomics, a lane's writes seen by the other lanes after
 * __syncwarp. */
typedef long long i64;
typedef unsigned long long u64;

#define LANES 32
#define FULL 0xffffffffu

struct Chains {
    const i64 *starts, *x0, *xe, *y0, *ye;  /* chain c's blocks: [starts[c], starts[c + 1]) */
    const signed char *strand;
    const i64 *qrec, *rrec, *rlens, *qoff, *roff;
    i64 min_new;  /* kept also where this many of its bases on each genome are uncovered (0: never) */
};

/* Block k of chain c on one side (query: 0, reference: 1): [lo, hi) on its record, or on the genome
 * laid end to end (laid). */
__device__ __forceinline__ void side_of(const Chains &s, i64 c, i64 k, int side, int laid, i64 &lo, i64 &hi) {
    if (side == 0) {
        const i64 base = laid ? s.qoff[s.qrec[c]] : 0;
        lo = base + s.x0[k];
        hi = base + s.xe[k];
    } else {
        const i64 base = laid ? s.roff[s.rrec[c]] : 0, rlen = s.rlens[s.rrec[c]];
        lo = base + (s.strand[c] ? rlen - s.ye[k] : s.y0[k]);
        hi = base + (s.strand[c] ? rlen - s.y0[k] : s.ye[k]);
    }
}

/* The bits of word w that [lo, hi) holds. */
__device__ __forceinline__ u64 word_mask(i64 w, i64 lo, i64 hi) {
    u64 mask = ~0ULL;
    if (w == (lo >> 6))
        mask &= ~0ULL << (lo & 63);
    if (w == ((hi - 1) >> 6)) {
        const int e = (int)((hi - 1) & 63);
        mask &= e == 63 ? ~0ULL : ((1ULL << (e + 1)) - 1);
    }
    return mask;
}

/* A walk over the words of chain c's blocks on one side, a lane a word (the lanes stride over the
 * words of every block laid end to end): op 0 counts the covered bases the lane saw, 1 sets them,
 * 2 clears them. Every lane walks the blocks' bounds; words of blocks that share one are visited once
 * a block. */
__device__ i64 walk(const Chains &s, i64 c, int side, int laid, u64 *bits, int op, int lane) {
    const i64 first = s.starts[c], last = s.starts[c + 1];
    i64 covered = 0, k = first, before = 0, lo = 0, hi = 0, w0 = 0, words = 0;
    if (k < last) {
        side_of(s, c, k, side, laid, lo, hi);
        w0 = lo >> 6;
        words = hi > lo ? ((hi - 1) >> 6) - w0 + 1 : 0;
    }
    for (i64 j = lane;; j += LANES) {
        while (k < last && j >= before + words) {
            before += words;
            if (++k < last) {
                side_of(s, c, k, side, laid, lo, hi);
                w0 = lo >> 6;
                words = hi > lo ? ((hi - 1) >> 6) - w0 + 1 : 0;
            }
        }
        if (k >= last)
            break;
        const i64 w = w0 + (j - before);
        const u64 mask = word_mask(w, lo, hi);
        if (op == 0)
            covered += __popcll(__ldcg(bits + w) & mask);
        else if (op == 1)
            atomicOr(bits + w, mask);
        else
            atomicAnd(bits + w, ~mask);
    }
    return covered;
}

__device__ __forceinline__ i64 warp_sum(i64 v) {
    for (int d = LANES / 2; d; d >>= 1)
        v += __shfl_xor_sync(FULL, v, d);
    return v;
}

/* Chain c against the covers q and r: 1 where kept (its words then set), as backbone.c's choose. */
__device__ signed char take(const Chains &s, i64 c, int laid, u64 *q, u64 *r, int lane) {
    const i64 first = s.starts[c], last = s.starts[c + 1];
    if (first == last)
        return 0;  /* no aligned base: nothing new on either genome */
    i64 qlen = 0, rlen = 0;
    for (i64 k = first + lane; k < last; k += LANES) {
        qlen += s.xe[k] - s.x0[k];
        rlen += s.ye[k] - s.y0[k];
    }
    qlen = warp_sum(qlen);
    rlen = warp_sum(rlen);
    const i64 qcov = warp_sum(walk(s, c, 0, laid, q, 0, lane)), rcov = warp_sum(walk(s, c, 1, laid, r, 0, lane));
    const i64 least = s.min_new > 0 ? s.min_new : 0x7fffffffffffffffLL;
    if ((2 * qcov >= qlen || 2 * rcov >= rlen) && (qlen - qcov < least || rlen - rcov < least))
        return 0;
    walk(s, c, 0, laid, q, 1, lane);
    walk(s, c, 1, laid, r, 1, lane);
    __syncwarp();
    return 1;
}

#define CHAIN_ARGS                                                                                            \
    const i64 *starts, const i64 *x0, const i64 *xe, const i64 *y0, const i64 *ye, const signed char *strand, \
        const i64 *qrec, const i64 *rrec, const i64 *rlens, const i64 *qoff, const i64 *roff, i64 min_new
#define CHAINS {starts, x0, xe, y0, ye, strand, qrec, rrec, rlens, qoff, roff, min_new}

/* The first round: group g's chains order[bounds[g], bounds[g + 1]) taken in order, first[c] written;
 * a warp (block) a group at a time, with covers of qwords and rwords words of its own (zero at the start,
 * left zero). */
extern "C" __global__ void backbone_first(CHAIN_ARGS, const i64 *order, const i64 *bounds, i64 groups, u64 *qcover,
                                          u64 *rcover, i64 qwords, i64 rwords, unsigned long long *next,
                                          signed char *first) {
    const Chains s = CHAINS;
    const int lane = threadIdx.x;
    u64 *q = qcover + (i64)blockIdx.x * qwords, *r = rcover + (i64)blockIdx.x * rwords;
    for (;;) {
        i64 g = 0;
        if (lane == 0)
            g = (i64)atomicAdd(next, 1ULL);
        g = __shfl_sync(FULL, g, 0);
        if (g >= groups)
            return;
        for (i64 d = bounds[g]; d < bounds[g + 1]; d++) {
            const signed char kept = take(s, order[d], 0, q, r, lane);
            if (lane == 0)
                first[order[d]] = kept;
        }
        __syncwarp();
        for (i64 d = bounds[g]; d < bounds[g + 1]; d++)
            if (__ldcg(first + order[d])) {
                walk(s, order[d], 0, 0, q, 2, lane);
                walk(s, order[d], 1, 0, r, 2, lane);
            }
        __syncwarp();
    }
}

/* The second round: chains ids[0, m) taken in order on the genomes laid end to end, keep[c] written;
 * one warp. */
extern "C" __global__ void backbone_second(CHAIN_ARGS, const i64 *ids, i64 m, u64 *q, u64 *r, signed char *keep) {
    const Chains s = CHAINS;
    const int lane = threadIdx.x;
    for (i64 d = 0; d < m; d++) {
        const signed char kept = take(s, ids[d], 1, q, r, lane);
        if (lane == 0)
            keep[ids[d]] = kept;
    }
}
