/* The one-to-one backbone of chains (chains.py's backbone; README "What a chain is", 5): chains taken
 * in order, a chain kept where under half of its aligned bases on the query and under half on the
 * reference are covered by the chains kept before it, its bases then covered. Bitsets of the bases,
 * one a genome. backbone: one round over the given chains (groups ending at `ends` each chosen on its
 * own); backbone_pairs: the first round, a record pair a group, groups on all cores, each thread
 * with bitsets of its own over a group's two records. */
#include "cpu.h"

#include <stdlib.h>

static int64_t count_set(const uint64_t *bits, int64_t lo, int64_t hi) {
    int64_t total = 0;
    for (int64_t at = lo; at < hi;) {
        const int64_t word = at >> 6, bit = at & 63;
        const int64_t take = (hi - at < 64 - bit) ? hi - at : 64 - bit;
        uint64_t mask = (take == 64 ? ~0ULL : ((1ULL << take) - 1)) << bit;
        total += __builtin_popcountll(bits[word] & mask);
        at += take;
    }
    return total;
}

static void mark_bits(uint64_t *bits, int64_t lo, int64_t hi, int set) {
    for (int64_t at = lo; at < hi;) {
        const int64_t word = at >> 6, bit = at & 63;
        const int64_t take = (hi - at < 64 - bit) ? hi - at : 64 - bit;
        const uint64_t mask = (take == 64 ? ~0ULL : ((1ULL << take) - 1)) << bit;
        bits[word] = set ? bits[word] | mask : bits[word] & ~mask;
        at += take;
    }
}

#define BACKBONE_AHEAD 16

typedef struct {
    const int64_t *starts, *qlo, *qhi, *rlo, *rhi;
    int64_t n;
} spans;

/* Chain c's choice (1: kept, its bits set) against the bitsets; covered bases only grow block by
 * block, so the count stops once half of either side is covered. */
static uint8_t choose(const spans *s, int64_t c, uint64_t *qbits, uint64_t *rbits) {
    int64_t qlen = 0, rlen = 0, qcov = 0, rcov = 0;
    const int64_t first = s->starts[c], last = s->starts[c + 1];
    if (first == last)
        return 0;  /* no aligned base: nothing new on either genome */
    for (int64_t k = first; k < last; k++) {
        qlen += s->qhi[k] - s->qlo[k];
        rlen += s->rhi[k] - s->rlo[k];
    }
    for (int64_t k = first; k < last; k++) {
        /* the blocks' bits lie anywhere in the genomes' bitsets: ask for those of blocks a little
         * ahead while these are counted (twice as fast on 1.36 M blocks) */
        if (k + BACKBONE_AHEAD < s->n) {
            __builtin_prefetch(&qbits[s->qlo[k + BACKBONE_AHEAD] >> 6], 1);
            __builtin_prefetch(&rbits[s->rlo[k + BACKBONE_AHEAD] >> 6], 1);
        }
        qcov += count_set(qbits, s->qlo[k], s->qhi[k]);
        rcov += count_set(rbits, s->rlo[k], s->rhi[k]);
        if (2 * qcov >= qlen || 2 * rcov >= rlen)
            return 0;
    }
    for (int64_t k = first; k < last; k++) {
        mark_bits(qbits, s->qlo[k], s->qhi[k], 1);
        mark_bits(rbits, s->rlo[k], s->rhi[k], 1);
    }
    return 1;
}

/* The kept chains of [first, last) uncovered again. */
static void uncover(const spans *s, const uint8_t *keep, int64_t first, int64_t last, uint64_t *qbits,
                    uint64_t *rbits) {
    for (int64_t d = first; d < last; d++)
        if (keep[d])
            for (int64_t k = s->starts[d]; k < s->starts[d + 1]; k++) {
                mark_bits(qbits, s->qlo[k], s->qhi[k], 0);
                mark_bits(rbits, s->rlo[k], s->rhi[k], 0);
            }
}

static int spans_ok(const spans *s, int64_t chains, int64_t qcap, int64_t rcap) {
    int ok = s->starts[0] == 0 && s->starts[chains] == s->n;
    for (int64_t c = 0; c < chains && ok; c++)
        ok = s->starts[c] <= s->starts[c + 1];
    for (int64_t k = 0; k < s->n && ok; k++)
        ok = s->qlo[k] >= 0 && s->qlo[k] <= s->qhi[k] && s->qhi[k] <= qcap && s->rlo[k] >= 0 &&
             s->rlo[k] <= s->rhi[k] && s->rhi[k] <= rcap;
    return ok;
}

/* backbone(starts, qlo, qhi, rlo, rhi, qbits, rbits, keep, ends): chains in order, each its blocks
 * [starts[c], starts[c + 1]) on the genomes laid end to end; keep[c] = 1 for a chain kept. ends: where
 * groups of chains end (chain indices, ascending; empty: one group): each group is chosen on its own,
 * its kept chains' bits cleared once it ends (the bitsets come back as they went in). */
PyObject *py_backbone(PyObject *self, PyObject *args) {
    Py_buffer b[9];
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*w*w*w*y*", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &b[8]))
        return NULL;
    const int64_t chains = b[7].len, n = b[1].len / 8, groups = b[8].len / 8;
    int ok = check_items(&b[0], "backbone", 8, chains + 1);
    for (int k = 2; k < 5 && ok; k++)
        ok = check_items(&b[k], "backbone", 8, n);
    if (ok) {
        spans s = {(const int64_t *)b[0].buf, (const int64_t *)b[1].buf, (const int64_t *)b[2].buf,
                   (const int64_t *)b[3].buf, (const int64_t *)b[4].buf, n};
        const int64_t *ends = (const int64_t *)b[8].buf;
        uint64_t *qbits = (uint64_t *)b[5].buf, *rbits = (uint64_t *)b[6].buf;
        uint8_t *keep = (uint8_t *)b[7].buf;
        ok = spans_ok(&s, chains, b[5].len * 8, b[6].len * 8);
        for (int64_t g = 0; g < groups && ok; g++)
            ok = ends[g] >= (g ? ends[g - 1] : 0) && ends[g] <= chains;
        if (ok) {
            Py_BEGIN_ALLOW_THREADS
            int64_t group = 0, first = 0;
            for (int64_t c = 0; c <= chains; c++) {
                for (; group < groups && ends[group] == c; group++) {  /* the group [first, c) ends */
                    uncover(&s, keep, first, c, qbits, rbits);
                    first = c;
                }
                if (c < chains)
                    keep[c] = choose(&s, c, qbits, rbits);
            }
            Py_END_ALLOW_THREADS
        } else {
            PyErr_SetString(PyExc_ValueError, "backbone: blocks out of order or outside their genome's bits");
        }
    }
    return release_buffers(b, 9, ok);
}

typedef struct {
    spans s;
    const int64_t *bounds;      /* group g: chains [bounds[g], bounds[g + 1]) */
    int64_t groups, qwords, rwords;
    uint8_t *keep;
    int64_t next;               /* the next group a thread takes */
    int failed;
} pairs_job;

static void pairs_part(void *p, int t, int threads) {
    pairs_job *j = (pairs_job *)p;
    (void)t;
    (void)threads;
    uint64_t *qbits = calloc((size_t)j->qwords, 8), *rbits = calloc((size_t)j->rwords, 8);
    if (!qbits || !rbits) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    } else {
        for (;;) {
            const int64_t g = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
            if (g >= j->groups)
                break;
            for (int64_t c = j->bounds[g]; c < j->bounds[g + 1]; c++)
                j->keep[c] = choose(&j->s, c, qbits, rbits);
            uncover(&j->s, j->keep, j->bounds[g], j->bounds[g + 1], qbits, rbits);
        }
    }
    free(qbits);
    free(rbits);
}

/* backbone_pairs(starts, qlo, qhi, rlo, rhi, keep, bounds, qlongest, rlongest, threads): the first
 * round: chains grouped by record pair (group g: chains [bounds[g], bounds[g + 1]), each in chain
 * order), blocks in record coordinates (qlo, qhi on the query record; rlo, rhi on the reference
 * record's forward strand), the longest records qlongest and rlongest bases; each group chosen on its
 * own, groups on `threads` threads. */
PyObject *py_backbone_pairs(PyObject *self, PyObject *args) {
    Py_buffer b[7];
    long long qlongest, rlongest;
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*w*y*LLi", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &qlongest,
                          &rlongest, &threads))
        return NULL;
    const int64_t chains = b[5].len, n = b[1].len / 8, groups = b[6].len / 8 - 1;
    int ok = groups >= 0 && check_items(&b[0], "backbone_pairs", 8, chains + 1);
    for (int k = 2; k < 5 && ok; k++)
        ok = check_items(&b[k], "backbone_pairs", 8, n);
    if (ok) {
        pairs_job j = {{(const int64_t *)b[0].buf, (const int64_t *)b[1].buf, (const int64_t *)b[2].buf,
                        (const int64_t *)b[3].buf, (const int64_t *)b[4].buf, n},
                       (const int64_t *)b[6].buf, groups, qlongest / 64 + 1, rlongest / 64 + 1,
                       (uint8_t *)b[5].buf, 0, 0};
        ok = spans_ok(&j.s, chains, j.qwords * 64, j.rwords * 64) && j.bounds[0] == 0 && j.bounds[groups] == chains;
        for (int64_t g = 0; g < groups && ok; g++)
            ok = j.bounds[g] <= j.bounds[g + 1];
        if (ok) {
            Py_BEGIN_ALLOW_THREADS
            run_parallel(pairs_part, &j, threads < 1 ? 1 : (groups < threads ? (int)(groups ? groups : 1) : threads));
            Py_END_ALLOW_THREADS
            if (j.failed) {
                ok = 0;
                PyErr_NoMemory();
            }
        } else {
            PyErr_SetString(PyExc_ValueError, "backbone_pairs: blocks out of order or outside their records");
        }
    }
    return release_buffers(b, 7, ok);
}
