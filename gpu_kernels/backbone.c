/* The one-to-one backbone of chains (chains.py's backbone; docs/DEFINITIONS.md "What a chain is", 5): chains taken
 * in order, a chain kept where under half of its aligned bases on the query and under half on the
 * reference are covered by the chains kept before it, its bases then covered (a cover a genome).
 * The first round takes record pairs on all cores, each thread with covers of its own over a pair's
 * two records; the second takes the first round's chains on the genomes laid end to end. Blocks are
 * read where they lie (their chain's rows), in record coordinates, and placed as they are counted. */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

/* A genome's covered bases: a bit a base, and for each superblock of 64 words (4,096 bases) how many
 * of its bases are covered. Once the best chains are kept, most chains lie where every base is
 * covered (or none is): their blocks are counted from the small table of counts, not from bits far
 * apart in a bitset of hundreds of megabytes (a cache miss a block: 1.4-2.6 s a compare job on a
 * 3 Gbp pair). */
#define SUPER_SHIFT 12
#define SUPER_BASES (1 << SUPER_SHIFT)

typedef struct {
    uint64_t *bits;
    uint16_t *filled;  /* covered bases a superblock, 0 to 4,096 */
} cover;

static int cover_open(cover *c, int64_t bases) {
    c->bits = calloc((size_t)(bases / 64 + 1), 8);
    c->filled = calloc((size_t)(bases / SUPER_BASES + 1), 2);
    return c->bits && c->filled;
}

static void cover_close(cover *c) {
    free(c->bits);
    free(c->filled);
}

/* The covered bases of [lo, hi) within one superblock, from its count where it is full or empty. */
INLINE int64_t count_in(const cover *c, int64_t lo, int64_t hi) {
    const int filled = c->filled[lo >> SUPER_SHIFT];
    if (filled == 0 || filled == SUPER_BASES)
        return filled ? hi - lo : 0;
    int64_t total = 0;
    for (int64_t at = lo; at < hi;) {
        const int64_t word = at >> 6, bit = at & 63;
        const int64_t take = (hi - at < 64 - bit) ? hi - at : 64 - bit;
        const uint64_t mask = (take == 64 ? ~0ULL : ((1ULL << take) - 1)) << bit;
        total += __builtin_popcountll(c->bits[word] & mask);
        at += take;
    }
    return total;
}

INLINE int64_t cover_count(const cover *c, int64_t lo, int64_t hi) {
    int64_t total = 0;
    for (int64_t at = lo; at < hi;) {
        const int64_t next = ((at >> SUPER_SHIFT) + 1) << SUPER_SHIFT, end = next < hi ? next : hi;
        total += count_in(c, at, end);
        at = end;
    }
    return total;
}

/* [lo, hi) covered (set) or uncovered, the superblocks' counts kept. */
INLINE void cover_mark(cover *c, int64_t lo, int64_t hi, int set) {
    for (int64_t at = lo; at < hi;) {
        const int64_t word = at >> 6, bit = at & 63;
        const int64_t take = (hi - at < 64 - bit) ? hi - at : 64 - bit;
        const uint64_t mask = (take == 64 ? ~0ULL : ((1ULL << take) - 1)) << bit;
        const uint64_t old = c->bits[word];
        if (set) {
            c->filled[at >> SUPER_SHIFT] += (uint16_t)__builtin_popcountll(mask & ~old);
            c->bits[word] = old | mask;
        } else {
            c->filled[at >> SUPER_SHIFT] -= (uint16_t)__builtin_popcountll(mask & old);
            c->bits[word] = old & ~mask;
        }
        at += take;
    }
}

typedef struct {
    const int64_t *starts, *x0, *xe, *y0, *ye;   /* chain c's blocks: [starts[c], starts[c + 1]) */
    const int8_t *strand;
    const int64_t *qrec, *rrec, *qlens, *rlens;  /* each chain's records; the records' lengths */
    const int64_t *qoff, *roff;                  /* where the records lie on the genomes laid end to end */
    int64_t chains, n, nq, nr;
} chain_set;

/* Block k of chain c: [qlo, qhi) on the query and [rlo, rhi) on the reference's forward strand, on
 * its records (laid = 0) or on the genomes laid end to end (laid = 1). */
INLINE void block_at(const chain_set *s, int64_t c, int64_t k, int laid, int64_t *qlo, int64_t *qhi, int64_t *rlo,
                     int64_t *rhi) {
    const int64_t rlen = s->rlens[s->rrec[c]];
    const int64_t qbase = laid ? s->qoff[s->qrec[c]] : 0, rbase = laid ? s->roff[s->rrec[c]] : 0;
    *qlo = qbase + s->x0[k];
    *qhi = qbase + s->xe[k];
    *rlo = rbase + (s->strand[c] ? rlen - s->ye[k] : s->y0[k]);
    *rhi = rbase + (s->strand[c] ? rlen - s->y0[k] : s->ye[k]);
}

/* Chain c's choice (1: kept, its bases covered) against the covers; covered bases only grow block by
 * block, so the count stops once half of either side is covered. */
INLINE uint8_t choose(const chain_set *s, int64_t c, int laid, cover *q, cover *r) {
    int64_t qlen = 0, rlen = 0, qcov = 0, rcov = 0, qlo, qhi, rlo, rhi;
    const int64_t first = s->starts[c], last = s->starts[c + 1];
    if (first == last)
        return 0;  /* no aligned base: nothing new on either genome */
    for (int64_t k = first; k < last; k++) {
        qlen += s->xe[k] - s->x0[k];
        rlen += s->ye[k] - s->y0[k];
    }
    for (int64_t k = first; k < last; k++) {
        block_at(s, c, k, laid, &qlo, &qhi, &rlo, &rhi);
        qcov += cover_count(q, qlo, qhi);
        rcov += cover_count(r, rlo, rhi);
        if (2 * qcov >= qlen || 2 * rcov >= rlen)
            return 0;
    }
    for (int64_t k = first; k < last; k++) {
        block_at(s, c, k, laid, &qlo, &qhi, &rlo, &rhi);
        cover_mark(q, qlo, qhi, 1);
        cover_mark(r, rlo, rhi, 1);
    }
    return 1;
}

/* The kept chains of order[first, last) uncovered again. */
INLINE void uncover(const chain_set *s, const int64_t *order, const uint8_t *keep, int64_t first, int64_t last,
                    cover *q, cover *r) {
    int64_t qlo, qhi, rlo, rhi;
    for (int64_t d = first; d < last; d++)
        if (keep[order[d]])
            for (int64_t k = s->starts[order[d]]; k < s->starts[order[d] + 1]; k++) {
                block_at(s, order[d], k, 0, &qlo, &qhi, &rlo, &rhi);
                cover_mark(q, qlo, qhi, 0);
                cover_mark(r, rlo, rhi, 0);
            }
}

/* Every block within its records, each chain's blocks in order of its rows. */
static int chains_ok(const chain_set *s) {
    int ok = s->starts[0] == 0 && s->starts[s->chains] == s->n;
    for (int64_t c = 0; c < s->chains && ok; c++)
        ok = s->starts[c] <= s->starts[c + 1] && s->qrec[c] >= 0 && s->qrec[c] < s->nq && s->rrec[c] >= 0 &&
             s->rrec[c] < s->nr;
    for (int64_t c = 0; c < s->chains && ok; c++) {
        const int64_t qlen = s->qlens[s->qrec[c]], rlen = s->rlens[s->rrec[c]];
        for (int64_t k = s->starts[c]; k < s->starts[c + 1] && ok; k++)
            ok = s->x0[k] >= 0 && s->x0[k] <= s->xe[k] && s->xe[k] <= qlen && s->y0[k] >= 0 &&
                 s->y0[k] <= s->ye[k] && s->ye[k] <= rlen;
    }
    return ok;
}

typedef struct {
    const chain_set *s;
    const int64_t *order, *bounds;  /* group g: chains order[bounds[g], bounds[g + 1]) */
    int64_t groups, qlongest, rlongest;
    uint8_t *first;
    int64_t next;                   /* the next group a thread takes */
    int failed;
} round_one;

/* One record pair's chains (the first round) and the second round, compiled twice: with the popcnt
 * instruction where the CPU has it (x86-64 without -mpopcnt calls a library routine a word, a
 * seventh of the backbone's time), else plainly. */
INLINE void one_group(round_one *j, int64_t g, cover *q, cover *r) {
    for (int64_t d = j->bounds[g]; d < j->bounds[g + 1]; d++)
        j->first[j->order[d]] = choose(j->s, j->order[d], 0, q, r);
    uncover(j->s, j->order, j->first, j->bounds[g], j->bounds[g + 1], q, r);
}

INLINE void second_round(const chain_set *s, const uint8_t *first, uint8_t *keep, cover *q, cover *r) {
    for (int64_t c = 0; c < s->chains; c++)
        keep[c] = first[c] ? choose(s, c, 1, q, r) : 0;
}

static void one_group_plain(round_one *j, int64_t g, cover *q, cover *r) { one_group(j, g, q, r); }

static void second_round_plain(const chain_set *s, const uint8_t *first, uint8_t *keep, cover *q, cover *r) {
    second_round(s, first, keep, q, r);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HAS_POPCNT __builtin_cpu_supports("popcnt")
__attribute__((target("popcnt"))) static void one_group_popcnt(round_one *j, int64_t g, cover *q, cover *r) {
    one_group(j, g, q, r);
}

__attribute__((target("popcnt"))) static void second_round_popcnt(const chain_set *s, const uint8_t *first,
                                                                   uint8_t *keep, cover *q, cover *r) {
    second_round(s, first, keep, q, r);
}
#else
#define HAS_POPCNT 0
#define one_group_popcnt one_group_plain
#define second_round_popcnt second_round_plain
#endif

static void round_one_part(void *p, int t, int threads) {
    round_one *j = (round_one *)p;
    (void)t;
    (void)threads;
    cover q = {0}, r = {0};
    if (!(cover_open(&q, j->qlongest) && cover_open(&r, j->rlongest))) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    } else {
        const int fast = HAS_POPCNT;
        for (;;) {
            const int64_t g = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
            if (g >= j->groups)
                break;
            if (fast)
                one_group_popcnt(j, g, &q, &r);
            else
                one_group_plain(j, g, &q, &r);
        }
    }
    cover_close(&q);
    cover_close(&r);
}

static int64_t longest(const int64_t *lengths, int64_t n) {
    int64_t most = 0;
    for (int64_t i = 0; i < n; i++)
        most = lengths[i] > most ? lengths[i] : most;
    return most;
}

/* backbone(starts, x0, xe, y0, ye, strand, qrec, rrec, qlens, rlens, order, bounds, first, keep, threads):
 * chain c's blocks [starts[c], starts[c + 1]), x0 xe on its query record and y0 ye on its reference
 * strand (strand[c], int8), its records qrec[c] and rrec[c] of lengths qlens and rlens. The first
 * round takes the chains by record pair (group g: chains order[bounds[g], bounds[g + 1]), each in
 * chain order) and writes first[c] (int8; with no groups, every chain is taken as the first round's);
 * the second takes the first round's chains in chain order over every record and writes keep[c]. */
PyObject *py_backbone(PyObject *self, PyObject *args) {
    Py_buffer b[14];
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*y*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                          &b[7], &b[8], &b[9], &b[10], &b[11], &b[12], &b[13], &threads))
        return NULL;
    const int64_t chains = b[12].len, n = b[1].len / 8, groups = b[11].len / 8 - 1;
    int ok = check_items(&b[0], "backbone", 8, chains + 1) && check_items(&b[5], "backbone", 1, chains) &&
             check_items(&b[6], "backbone", 8, chains) && check_items(&b[7], "backbone", 8, chains) &&
             check_items(&b[10], "backbone", 8, groups >= 0 ? b[10].len / 8 : 0) &&
             check_items(&b[13], "backbone", 1, chains);
    for (int k = 2; k < 5 && ok; k++)
        ok = check_items(&b[k], "backbone", 8, n);
    ok = ok && b[8].len % 8 == 0 && b[9].len % 8 == 0;
    int64_t *qoff = NULL, *roff = NULL;
    if (ok) {
        const int64_t nq = b[8].len / 8, nr = b[9].len / 8;
        qoff = calloc((size_t)nq + 1, 8);
        roff = calloc((size_t)nr + 1, 8);
        if (!qoff || !roff) {
            free(qoff);
            free(roff);
            PyErr_NoMemory();
            return release_buffers(b, 14, 0);
        }
        const int64_t *qlens = (const int64_t *)b[8].buf, *rlens = (const int64_t *)b[9].buf;
        for (int64_t i = 0; i < nq && ok; i++)
            ok = qlens[i] >= 0 && (qoff[i + 1] = qoff[i] + qlens[i]) >= 0;
        for (int64_t i = 0; i < nr && ok; i++)
            ok = rlens[i] >= 0 && (roff[i + 1] = roff[i] + rlens[i]) >= 0;
        chain_set s = {(const int64_t *)b[0].buf, (const int64_t *)b[1].buf, (const int64_t *)b[2].buf,
                       (const int64_t *)b[3].buf, (const int64_t *)b[4].buf, (const int8_t *)b[5].buf,
                       (const int64_t *)b[6].buf, (const int64_t *)b[7].buf, qlens, rlens, qoff, roff,
                       chains, n, nq, nr};
        const int64_t *order = (const int64_t *)b[10].buf, *bounds = (const int64_t *)b[11].buf;
        const int64_t ordered = b[10].len / 8;
        ok = ok && groups >= 0 && chains_ok(&s) && (groups == 0 || (bounds[0] == 0 && bounds[groups] == ordered));
        for (int64_t g = 0; g < groups && ok; g++)
            ok = bounds[g] <= bounds[g + 1];
        for (int64_t d = 0; d < ordered && ok; d++)
            ok = order[d] >= 0 && order[d] < chains;
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "backbone: blocks outside their records, or groups out of order");
        } else {
            uint8_t *first = (uint8_t *)b[12].buf, *keep = (uint8_t *)b[13].buf;
            round_one j = {&s, order, bounds, groups, longest(qlens, nq), longest(rlens, nr), first, 0, 0};
            int made;
            cover q = {0}, r = {0};
            Py_BEGIN_ALLOW_THREADS
            if (groups)
                run_parallel(round_one_part, &j, threads < 1 ? 1 : (groups < threads ? (int)groups : threads));
            else
                memset(first, 1, (size_t)chains);
            made = !j.failed && cover_open(&q, qoff[nq]) && cover_open(&r, roff[nr]);
            if (made && HAS_POPCNT)
                second_round_popcnt(&s, first, keep, &q, &r);
            else if (made)
                second_round_plain(&s, first, keep, &q, &r);
            cover_close(&q);
            cover_close(&r);
            Py_END_ALLOW_THREADS
            if (!made) {
                ok = 0;
                PyErr_NoMemory();
            }
        }
    }
    free(qoff);
    free(roff);
    return release_buffers(b, 14, ok);
}
