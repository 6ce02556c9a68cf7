/* The one-to-one backbone of chains (chains.py's backbone; docs/DEFINITIONS.md "What a chain is", 5): chains taken
 * in order, a chain kept where under half of its aligned bases on the query and under half on the
 * reference are covered by the chains kept before it, its bases then covered (a cover a genome).
 * The first round takes record pairs on all cores, each thread with covers of its own over a pair's
 * two records; the second takes the first round's chains on the genomes laid end to end. Blocks are
 * read where they lie (their chain's rows), in record coordinates, and placed as they are counted. */
#include "cpu.h"
#include "cover.h"

#include <time.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const int64_t *starts, *x0, *xe, *y0, *ye;   /* chain c's blocks: [starts[c], starts[c + 1]) */
    const int8_t *strand;
    const int64_t *qrec, *rrec, *qlens, *rlens;  /* each chain's records; the records' lengths */
    const int64_t *qoff, *roff;                  /* where the records lie on the genomes laid end to end */
    int64_t chains, n, nq, nr;
    int64_t min_new;  /* kept also where this many of its bases on each genome are uncovered (0: never) */
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

/* Whether chain c is rejected by the covers as they are: half of its aligned bases on either side covered
 * already, unless min_new are not on both; or none at all. Covered bases only grow, so the count stops once
 * the rule can no longer keep it, and a chain rejected stays rejected while the covers grow. */
INLINE int rejected(const chain_set *s, int64_t c, int laid, const cover *q, const cover *r) {
    int64_t qlen = 0, rlen = 0, qcov = 0, rcov = 0, qlo, qhi, rlo, rhi;
    const int64_t first = s->starts[c], last = s->starts[c + 1];
    if (first == last)
        return 1;  /* no aligned base: nothing new on either genome */
    for (int64_t k = first; k < last; k++) {
        qlen += s->xe[k] - s->x0[k];
        rlen += s->ye[k] - s->y0[k];
    }
    const int64_t least = s->min_new > 0 ? s->min_new : INT64_MAX;
    for (int64_t k = first; k < last; k++) {
        block_at(s, c, k, laid, &qlo, &qhi, &rlo, &rhi);
        qcov += cover_count(q, qlo, qhi);
        rcov += cover_count(r, rlo, rhi);
        if ((2 * qcov >= qlen || 2 * rcov >= rlen) && (qlen - qcov < least || rlen - rcov < least))
            return 1;
    }
    return 0;
}

/* Chain c's choice (1: kept, its bases covered) against the covers. */
INLINE uint8_t choose(const chain_set *s, int64_t c, int laid, cover *q, cover *r) {
    int64_t qlo, qhi, rlo, rhi;
    if (rejected(s, c, laid, q, r))
        return 0;
    for (int64_t k = s->starts[c]; k < s->starts[c + 1]; k++) {
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
    const int64_t *small;           /* the groups a thread takes alone: small[0, groups) */
    int64_t groups, qlongest, rlongest;
    uint8_t *first;
    int64_t next;                   /* the next of them a thread takes */
    int failed;
} round_one;

/* A list of chains taken in order against covers of their own by one taker (thread 0), with helpers
 * (the other threads) testing the chains ahead of it against the covers as they are: a chain a helper
 * finds rejected the taker passes over, since covered bases only grow while a list is taken; the
 * others it chooses itself. So the choices are one thread's, however many help (the helpers only
 * save the taker the counts of the chains that are rejected: most of a repeat-rich pair's). */
typedef struct {
    const chain_set *s;
    const int64_t *ids;  /* the chains in the order they are taken: ids[0, m) */
    int64_t m, batch, ahead;
    int laid;
    cover *q, *r;
    uint8_t *out;        /* out[ids[d]]: 1 kept */
    uint8_t *no;         /* no[d] = 1: a helper found ids[d] rejected */
    /* the next batch a helper takes; how far the taker is: each on a cache line of its own */
    _Alignas(64) int64_t next;
    _Alignas(64) int64_t at;
    char pad[56];
} chain_list;

#define NEAR 128  /* chains between a helper and the taker below which the helper leaves them to it */
#define HELPER_PATIENCE 10000  /* naps (20 us or more each) a helper waits for the taker to move on */

/* A helper's wait between looks at how far the taker is (a look pulls its cache line from the taker). */
static void nap(void) {
    struct timespec span = {0, 20000};
    nanosleep(&span, NULL);
}

INLINE void take_part(chain_list *l, int t) {
    /* the list's fields read once: the taker's writes of bytes (out) would have them read again */
    const chain_set *s = l->s;
    const int64_t *ids = l->ids, m = l->m, batch = l->batch, ahead = l->ahead;
    const int laid = l->laid;
    cover *q = l->q, *r = l->r;
    uint8_t *out = l->out, *no = l->no;
    if (t == 0) {
        for (int64_t d = 0; d < m; d++) {
            if ((d & 63) == 0)  /* read by helpers now and then: written as rarely */
                STORE(l->at, d);
            out[ids[d]] = LOAD(no[d]) ? 0 : choose(s, ids[d], laid, q, r);
        }
        STORE(l->at, m);
        return;
    }
    for (;;) {
        const int64_t lo = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED) * batch;
        if (lo >= m)
            return;
        /* not far ahead of the taker, where the covers are still to grow; never waiting on it for long
         * (a helper run before the taker, where no thread was to be had, stops) */
        int64_t seen = LOAD(l->at);
        for (int naps = 0; lo > seen + ahead;) {
            nap();
            const int64_t now = LOAD(l->at);
            naps = now == seen ? naps + 1 : 0;
            seen = now;
            if (naps > HELPER_PATIENCE)
                return;
        }
        /* the batch up to where the taker is: from there on it is the taker's (were the helper to go on
         * beside it, each would count the same chains, the taker first) */
        const int64_t hi = lo + batch < m ? lo + batch : m;
        for (int64_t d = lo; d < hi; d++) {
            if ((d & 63) == 0 && LOAD(l->at) + NEAR > d)
                break;
            if (rejected(s, ids[d], laid, q, r))
                STORE(no[d], 1);
        }
    }
}

/* One record pair's chains (the first round) and the list's part, compiled twice: with the popcnt
 * instruction where the CPU has it (x86-64 without -mpopcnt calls a library routine a word, a
 * seventh of the backbone's time), else plainly. */
INLINE void one_group(round_one *j, int64_t g, cover *q, cover *r) {
    for (int64_t d = j->bounds[g]; d < j->bounds[g + 1]; d++)
        j->first[j->order[d]] = choose(j->s, j->order[d], 0, q, r);
    uncover(j->s, j->order, j->first, j->bounds[g], j->bounds[g + 1], q, r);
}

static void one_group_plain(round_one *j, int64_t g, cover *q, cover *r) { one_group(j, g, q, r); }

static void take_part_plain(chain_list *l, int t) { take_part(l, t); }

#if defined(__x86_64__) && defined(__GNUC__)
#define HAS_POPCNT __builtin_cpu_supports("popcnt")
__attribute__((target("popcnt"))) static void one_group_popcnt(round_one *j, int64_t g, cover *q, cover *r) {
    one_group(j, g, q, r);
}

__attribute__((target("popcnt"))) static void take_part_popcnt(chain_list *l, int t) { take_part(l, t); }
#else
#define HAS_POPCNT 0
#define one_group_popcnt one_group_plain
#define take_part_popcnt take_part_plain
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
                one_group_popcnt(j, j->small[g], &q, &r);
            else
                one_group_plain(j, j->small[g], &q, &r);
        }
    }
    cover_close(&q);
    cover_close(&r);
}

static void list_part(void *p, int t, int threads) {
    (void)threads;
    if (HAS_POPCNT)
        take_part_popcnt((chain_list *)p, t);
    else
        take_part_plain((chain_list *)p, t);
}

/* ids[0, m) taken in order against q and r on `threads` threads (take_part), on one where there are fewer than
 * `big` (helpers cost more than they save on short lists); 0 where memory ran out. */
static int take_list(const chain_set *s, const int64_t *ids, int64_t m, int laid, cover *q, cover *r, uint8_t *out,
                     int64_t batch, int64_t big, int threads) {
    uint8_t *no = calloc((size_t)m + 1, 1);
    if (!no)
        return 0;
    threads = threads < 1 || m < big ? 1 : threads;
    if ((int64_t)threads > m / batch + 1)
        threads = (int)(m / batch + 1);
    chain_list l = {s, ids, m, batch, batch * threads, laid, q, r, out, no, 1, 0, {0}};
    run_parallel(list_part, &l, threads);
    free(no);
    return 1;
}

static int64_t longest(const int64_t *lengths, int64_t n) {
    int64_t most = 0;
    for (int64_t i = 0; i < n; i++)
        most = lengths[i] > most ? lengths[i] : most;
    return most;
}

/* The two rounds: a record pair of at least `big` chains and over twice a thread's share of them taken by
 * every thread (take_list), the others a thread each, side by side; then the first round's chains over
 * the genomes laid end to end (take_list); 0 where memory ran out. */
static int both_rounds(const chain_set *s, const int64_t *order, const int64_t *bounds, int64_t groups,
                       uint8_t *first, uint8_t *keep, int64_t batch, int64_t big, int threads) {
    const int64_t qlongest = longest(s->qlens, s->nq), rlongest = longest(s->rlens, s->nr);
    int64_t *small = malloc(((size_t)groups + 1) * 8), *ids = malloc(((size_t)s->chains + 1) * 8), smalls = 0;
    cover q = {0}, r = {0};
    int ok = small && ids;
    for (int64_t g = 0; g < groups && ok; g++) {
        /* a record pair of over twice a thread's share of the chains (a straggler), and big: on every thread */
        const int64_t size = bounds[g + 1] - bounds[g];
        if (threads < 2 || size < big || size * threads < 2 * bounds[groups]) {
            small[smalls++] = g;
            continue;
        }
        if (!q.bits)
            ok = cover_open(&q, qlongest) && cover_open(&r, rlongest);
        ok = ok && take_list(s, order + bounds[g], size, 0, &q, &r, first, batch, big, threads);
        if (ok)
            uncover(s, order, first, bounds[g], bounds[g + 1], &q, &r);
    }
    cover_close(&q);
    cover_close(&r);
    if (ok && smalls) {
        round_one j = {s, order, bounds, small, smalls, qlongest, rlongest, first, 0, 0};
        run_parallel(round_one_part, &j, smalls < threads ? (int)smalls : threads);
        ok = !j.failed;
    }
    if (ok && !groups)
        memset(first, 1, (size_t)s->chains);
    int64_t m = 0;
    for (int64_t c = 0; c < s->chains && ok; c++)
        if (first[c])
            ids[m++] = c;
        else
            keep[c] = 0;
    ok = ok && cover_open(&q, s->qoff[s->nq]) && cover_open(&r, s->roff[s->nr]) &&
         take_list(s, ids, m, 1, &q, &r, keep, batch, big, threads);
    cover_close(&q);
    cover_close(&r);
    free(small);
    free(ids);
    return ok;
}

/* backbone(starts, x0, xe, y0, ye, strand, qrec, rrec, qlens, rlens, order, bounds, first, keep, threads, batch,
 * big, min_new): chain c's blocks [starts[c], starts[c + 1]), x0 xe on its query record and y0 ye on its reference
 * strand (strand[c], int8), its records qrec[c] and rrec[c] of lengths qlens and rlens. The first
 * round takes the chains by record pair (group g: chains order[bounds[g], bounds[g + 1]), each in
 * chain order) and writes first[c] (int8; with no groups, every chain is taken as the first round's);
 * the second takes the first round's chains in chain order over every record and writes keep[c].
 * batch: chains a helper tests at once; big: the fewest chains of a record pair or a round that every thread
 * takes; min_new: a chain over half covered is kept where this many on each genome are not (0: never). */
PyObject *py_backbone(PyObject *self, PyObject *args) {
    Py_buffer b[14];
    int threads;
    long long batch, big, min_new;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*y*w*w*iLLL", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                          &b[7], &b[8], &b[9], &b[10], &b[11], &b[12], &b[13], &threads, &batch, &big, &min_new))
        return NULL;
    const int64_t chains = b[12].len, n = b[1].len / 8, groups = b[11].len / 8 - 1;
    int ok = check_items(&b[0], "backbone", 8, chains + 1) && check_items(&b[5], "backbone", 1, chains) &&
             check_items(&b[6], "backbone", 8, chains) && check_items(&b[7], "backbone", 8, chains) &&
             check_items(&b[10], "backbone", 8, groups >= 0 ? b[10].len / 8 : 0) &&
             check_items(&b[13], "backbone", 1, chains);
    for (int k = 2; k < 5 && ok; k++)
        ok = check_items(&b[k], "backbone", 8, n);
    ok = ok && b[8].len % 8 == 0 && b[9].len % 8 == 0 && batch > 0 && big > 0;
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
                       chains, n, nq, nr, min_new};
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
            int made;
            Py_BEGIN_ALLOW_THREADS
            made = both_rounds(&s, order, bounds, groups, first, keep, batch, big, threads < 1 ? 1 : threads);
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
