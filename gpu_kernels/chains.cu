// Chains on the device (chains.py, chain_hsps_cupy): chains.c's DP and best-first extraction, with the
// work split by the connected components of the link graph, which share nothing.
//
// HSPs come in the DP order (group, x, ...). A predecessor j of i lies on a diagonal within max_shift of
// i's, so in i's diagonal bucket or a neighbour: byb lists the HSPs by (group, bucket), the DP order
// within; place[i] is i's position in byb; run_lo[k], run_hi[k] bound the run of one (group, bucket)
// holding position k. Each of the three buckets is scanned back from i's place while an HSP there can
// still end within max_gap before i (x >= floor: x_i - max_gap - the longest HSP): chains.c's scan.
// The scans read the HSPs' coordinates gathered into the bucket order (xb, xeb, yb, yeb: x, xe, y, ye at
// each position of byb; cellb: group * span + bucket - the lowest bucket), so a scan reads them in a row;
// chain_components takes a thread a position, so neighbouring threads scan neighbouring runs (a
// thread an HSP reading through byb took 5x longer on the 150 Mbp pair's 363 M HSPs).
//
// chain_components: every valid link j -> i marks both linked (a first pass over all HSPs: those some
//   link touches, with those scoring min_chain_score alone, are the HSPs a chain can hold) or unites j
//   and i (a lock-free union-find over DP indices: a larger root is hooked onto a smaller one by
//   compare-and-swap, so a component's root is its first HSP, and finds halve their paths). The
//   union-find runs over the HSPs a chain can hold, a few times fewer than all, whose parents fit the
//   caches better.
// chain_roots: each HSP's component root.
// chain_dp: a warp a component, largest first; its HSPs in the DP order, the lanes scanning the
//   candidates 32 at a time, then the best (value, latest HSP) among them: chains.c's dp_group.
// chain_take: a thread a component; chains.c's take_chains over its HSPs in visit order (best
//   descending, then the DP order); a chain is named by the HSP that started it.
// chain_seams, chain_pieces: a thread a chain block; placement.c's twins (the seams placed, then the drops cut).
// Launch: 1-D grid-stride loops, BLOCK threads a block (chain_dp: whole warps).
#include "link.h"
#include "placement.h"

#define NO_VALUE (-0x7fffffffffffffffLL - 1)
#define UNSET (-(1LL << 62))  // best before chain_dp writes it (chains.py)

// The first position in [lo, hi) of byb whose HSP is not before i in the DP order.
__device__ __forceinline__ long long before(const long long* byb, long long lo, long long hi, long long i) {
    while (lo < hi) {
        const long long m = lo + (hi - lo) / 2;
        if (byb[m] < i)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

// [first, end) of byb to scan back over for i, at position p: its own bucket up to p, and the
// neighbouring buckets' HSPs that come before i.
__device__ __forceinline__ void candidate_ranges(const long long* cellb, const long long* byb,
                                                 const long long* run_lo, const long long* run_hi, long long n,
                                                 long long span, long long p, long long i, long long ranges[3][2]) {
    const long long a = run_lo[p], b = run_hi[p], cell = cellb[p];
    ranges[0][0] = a;
    ranges[0][1] = p;
    ranges[1][0] = ranges[1][1] = ranges[2][0] = ranges[2][1] = 0;
    if (a > 0 && cell % span != 0 && cellb[a - 1] == cell - 1) {
        ranges[1][0] = run_lo[a - 1];
        ranges[1][1] = before(byb, run_lo[a - 1], a, i);
    }
    if (b < n && cell % span != span - 1 && cellb[b] == cell + 1) {
        ranges[2][0] = b;
        ranges[2][1] = before(byb, b, run_hi[b], i);
    }
}

__device__ __forceinline__ long long find_root(volatile long long* parent, long long i) {
    for (;;) {
        const long long p = parent[i];
        if (p == i)
            return i;
        const long long g = parent[p];
        if (g != p)
            parent[i] = g;  // path halving: g is an ancestor of i, whoever else writes here
        i = g;
    }
}

__device__ __forceinline__ void unite(long long* parent, long long a, long long b) {
    for (;;) {
        a = find_root(parent, a);
        b = find_root(parent, b);
        if (a == b)
            return;
        if (a < b) {
            const long long t = a;
            a = b;
            b = t;
        }
        if ((long long)atomicCAS((unsigned long long*)&parent[a], (unsigned long long)a, (unsigned long long)b) == a)
            return;
    }
}

// Every valid link j -> i of the HSPs a thread a position of byb: with linked_b, both ends marked (by
// position); with parent (over DP indices, parent[i] = i to begin with), j and i united. Either may be
// NULL: the first pass over all HSPs only marks, the union-find only unites.
extern "C" __global__ void chain_components(const long long* xb, const long long* xeb, const long long* yb,
                                            const long long* yeb, const long long* cellb, const long long* byb,
                                            const long long* run_lo, const long long* run_hi, long long n,
                                            long long span, long long max_gap, long long max_shift, long long longest,
                                            unsigned char* linked_b, long long* parent) {
    for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n; p += (long long)gridDim.x * blockDim.x) {
        const long long i = byb[p];
        long long ranges[3][2];
        candidate_ranges(cellb, byb, run_lo, run_hi, n, span, p, i, ranges);
        const long long floor_x = xb[p] - max_gap - longest;
        bool any = false;
        long long root = -1;  // i's root as last found: most of i's links join it to what it has joined
        for (int q = 0; q < 3; ++q)
            for (long long k = ranges[q][1] - 1; k >= ranges[q][0]; --k) {
                if (xb[k] < floor_x)
                    break;
                long long overlap;
                if (!linkable(xb, xeb, yb, yeb, k, p, max_gap, max_shift, &overlap))
                    continue;
                any = true;
                if (linked_b)
                    linked_b[k] = 1;
                if (!parent)
                    continue;
                const long long j = byb[k];
                if (root < 0)
                    root = find_root(parent, i);
                if (find_root(parent, j) != root) {
                    unite(parent, root, j);
                    root = find_root(parent, root);
                }
            }
        if (any && linked_b)
            linked_b[p] = 1;
    }
}

// roots[i]: HSP i's component root. A walk that writes nothing: path halving here could overwrite a
// root another thread has just stored with an older ancestor.
extern "C" __global__ void chain_roots(const long long* parent, long long n, long long* roots) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        long long at = i;
        while (parent[at] != at)
            at = parent[at];
        roots[i] = at;
    }
}

// members: the HSPs component by component, each in the DP order; starts[c]: component c's first;
// work: the components in the order warps take them; next: the warps' shared counter. best_b: by
// position in byb (the lanes read their candidates' in a row); pred: by DP index.
extern "C" __global__ void chain_dp(const long long* xb, const long long* xeb, const long long* yb, const long long* yeb,
                                    const long long* cellb, const long long* score, const long long* byb,
                                    const long long* place, const long long* run_lo, const long long* run_hi, long long n,
                                    long long span, const long long* members, const long long* starts,
                                    const long long* work, long long components, long long max_gap, long long max_shift,
                                    long long gap_open, long long gap_extend, long long gap_base, long long longest,
                                    long long* best_b, long long* pred, unsigned long long* next,
                                    unsigned long long* unset_reads) {
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    for (;;) {
        long long w = 0;
        if (lane == 0)
            w = (long long)atomicAdd(next, 1ULL);
        w = __shfl_sync(full, w, 0);
        if (w >= components)
            return;
        const long long c = work[w];
        for (long long t = starts[c]; t < starts[c + 1]; ++t) {
            const long long i = members[t], p = place[i];
            long long ranges[3][2];
            candidate_ranges(cellb, byb, run_lo, run_hi, n, span, p, i, ranges);
            const long long floor_x = xb[p] - max_gap - longest, length = xeb[p] - xb[p];
            long long value = NO_VALUE, from = -1;
            for (int r = 0; r < 3; ++r)
                for (long long top = ranges[r][1] - 1; top >= ranges[r][0]; top -= 32) {
                    const long long k = top - lane;
                    const bool live = k >= ranges[r][0] && xb[k] >= floor_x;
                    long long overlap;
                    if (live && linkable(xb, xeb, yb, yeb, k, p, max_gap, max_shift, &overlap)) {
                        const long long j = byb[k];
                        const long long add = link_add(score[i], length, overlap, xb[p] - xeb[k], yb[p] - yeb[k],
                                                       gap_open, gap_extend, gap_base);  // chains.c's link_gain
                        const long long before_j = __ldcg(&best_b[k]);
                        if (before_j == UNSET)
                            atomicAdd(unset_reads, 1ULL);  // cannot happen: j comes first in i's component
                        const long long v = before_j + add;
                        if (v > value || (v == value && j > from)) {
                            value = v;
                            from = j;
                        }
                    }
                    if (!__any_sync(full, live))
                        break;  // back here every lane is before the floor, and so is the rest of the run
                }
            for (int offset = 16; offset > 0; offset >>= 1) {
                const long long v = __shfl_down_sync(full, value, offset), f = __shfl_down_sync(full, from, offset);
                if (v > value || (v == value && f > from)) {
                    value = v;
                    from = f;
                }
            }
            if (lane == 0) {
                const bool linked = from >= 0 && value > score[i];
                best_b[p] = linked ? value : score[i];
                pred[i] = linked ? from : -1;
            }
            __syncwarp();  // the next HSP's lanes read what lane 0 wrote
        }
    }
}

// visit: the HSPs component by component, each by best descending, then the DP order; chain[] starts
// at -1; a chain started by s gets scores[s] (best at s less best where its walk stopped) and heads[s]
// (its first HSP).
extern "C" __global__ void chain_take(const long long* best, const long long* pred, const long long* visit,
                                      const long long* starts, const long long* work, long long components,
                                      long long* chain, long long* scores, long long* heads) {
    for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < components;
         w += (long long)gridDim.x * blockDim.x) {
        const long long c = work[w];
        for (long long v = starts[c]; v < starts[c + 1]; ++v) {
            const long long start = visit[v];
            if (chain[start] != -1)
                continue;
            long long at = start, head = start;
            while (at != -1 && chain[at] == -1) {
                chain[at] = start;
                head = at;
                at = pred[at];
            }
            scores[start] = best[start] - (at != -1 ? best[at] : 0);
            heads[start] = head;
        }
    }
}

// placement.c's twins: the block seams, their pieces and the tandem runs at their ends
// (placement.h holds their column score and tandem helpers)

// placement.c's seams_part and place_seam: each block's query start and end once the seams are placed
extern "C" __global__ void chain_seams(const unsigned char* qc, const unsigned char* rf, const unsigned char* rr,
                                       const long long* qpos, const long long* rpos, const long long* x0,
                                       const long long* xe, const long long* y0, const long long* trim,
                                       const unsigned char* seam, const signed char* strand, long long n,
                                       long long match, long long mismatch, long long n_score, long long* start,
                                       long long* end) {
    for (long long a = blockIdx.x * (long long)blockDim.x + threadIdx.x; a < n;
         a += (long long)gridDim.x * blockDim.x) {
        if (!seam[a])
            start[a] = x0[a];
        if (a + 1 >= n || !seam[a + 1]) {
            end[a] = xe[a];
            continue;
        }
        const long long b = a + 1, da = x0[a] - y0[a], db = x0[b] - y0[b];
        const long long shift = db > da ? db - da : 0;
        const long long lo_a = x0[a] + 1, lo_b = x0[b] - trim[b] - shift;
        const long long lo = lo_a > lo_b ? lo_a : lo_b, hi = xe[a];
        const unsigned char* q = qc + (qpos[a] - x0[a]);
        const unsigned char* ra = (strand[a] ? rr : rf) + (rpos[a] - y0[a]) - da;
        const unsigned char* rb = (strand[b] ? rr : rf) + (rpos[b] - y0[b]) - db;
        long long s = 0;
        for (long long t = lo; t < hi; t++)
            s += block_score(q[t + shift], rb[t + shift], match, mismatch, n_score);
        long long best = s, at = lo;
        for (long long t = lo; t < hi; t++) {
            s += block_score(q[t], ra[t], match, mismatch, n_score) -
                 block_score(q[t + shift], rb[t + shift], match, mismatch, n_score);
            if (s > best)
                best = s, at = t + 1;
        }
        end[a] = at;
        start[b] = at + shift;
    }
}

// placement.c's pieces_part: each block's pieces between its drops, their ends past tandem runs,
// counted (fill 0; 2: the plain blocks only) or written from count[b] on (fill 1)
extern "C" __global__ void chain_pieces(const unsigned char* qc, const unsigned char* rf, const unsigned char* rr,
                                        const long long* qpos, const long long* rpos, const long long* x0,
                                        const long long* y0, const long long* start, const long long* end,
                                        const signed char* strand, const unsigned char* plain, long long n,
                                        long long match, long long block_mismatch, long long n_score, long long drop,
                                        long long tandem, long long* count, int fill, long long* pblock,
                                        long long* px0, long long* pxe, long long* pids) {
    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < n;
         b += (long long)gridDim.x * blockDim.x) {
        const unsigned char* q = qc + (qpos[b] - x0[b]);
        const unsigned char* r = (strand[b] ? rr : rf) + (rpos[b] - y0[b]) - (x0[b] - y0[b]);
        const long long first = start[b], last = end[b];
        if (fill == 2 && !plain[b])
            continue;
        const long long least = plain[b] ? 0 : tandem;
        long long pieces = 0, kept = 0, at = fill == 1 ? count[b] : 0;
        long long seg = first, peak = first, high = 0, score = 0, i = first;
        auto piece = [&](long long from, long long to) {
            if (least && !past_tandems(q, least, &from, &to))
                return;
            if (fill == 1) {
                long long ids = 0;
                for (long long k = from; k < to; k++)
                    ids += q[k] == r[k] && q[k] != N_CODE;
                pblock[at] = b, px0[at] = from, pxe[at] = to, pids[at] = ids;
                at++;
            }
            pieces++;
        };
        while (i < last) {
            score += block_score(q[i], r[i], match, block_mismatch, n_score);
            i++;
            if (score > high) {
                high = score, peak = i;
            } else if (drop && score <= high - drop) {
                long long low = score, bottom = i, k = i, run = score;
                while (k < last) {
                    run += block_score(q[k], r[k], match, block_mismatch, n_score);
                    k++;
                    if (run >= low + drop)
                        break;
                    if (run <= low)
                        low = run, bottom = k;
                }
                if (peak > seg)
                    piece(seg, peak), kept++;
                seg = peak = i = bottom;
                high = score = low;
            }
        }
        if (last > seg)
            piece(seg, last);
        else if (kept == 0)
            piece(first, last);
        if (fill != 1)
            count[b] = pieces;
    }
}
