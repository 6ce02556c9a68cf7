/* extend on the CPU: each seed's two sides walked base by base, the rule of extend.py exactly.
 *
 * A side starts from score k * match; each base adds match, mismatch or n_score. The side's end
 * moves to the n-th base only where the score beats its best so far and the side's identity,
 * half the seed counted, clears the threshold; the walk stops at a border, when the score drops
 * below 0, or when it falls more than xdrop below the best (xdrop 0: never). Threads take blocks
 * of seeds from a shared counter, so a few long walks do not leave a thread idle.
 */
#include "cpu.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The extension rule's parameters (extend.py) and one seed's HSP on the query axis. */
typedef struct {
    int k, match, mismatch, n_score, xdrop;
    double min_identity;
    int block_sum[256], block_low[2][256];  /* fill_blocks */
} scoring;

typedef struct {
    int64_t qstart, qend, score, ids;
} hsp;


typedef struct {
    int64_t best, length, ids;
} side;

static inline int clears(const scoring *s, int64_t ids, int64_t n) {
    return (double)(2 * ids + s->k) * 100.0 >= s->min_identity * (double)(2 * n + s->k);
}

/* Eight codes from (q, r) on in direction step as a mask of mismatches (bit j: the j-th code of the
 * 8 in memory), or -1 where fewer than 8 codes are left on a side or one of them is N or a border. */
static inline int mismatch_mask(const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize,
                                int64_t q, int64_t r, int step) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t a, b;
    int64_t first = step > 0 ? 0 : 7;  /* the 8 codes start at q - first */
    if (q < first || r < first || q - first + 8 > qsize || r - first + 8 > rsize)
        return -1;
    memcpy(&a, qcodes + q - first, 8);
    memcpy(&b, rcodes + r - first, 8);
    if ((a | b) & 0x0404040404040404ULL)  /* N (4) or border (5) */
        return -1;
    uint64_t x = a ^ b;
    x = (x | (x >> 1)) & 0x0101010101010101ULL;  /* codes 0..3 differ in bit 0 or 1 */
    return (int)((x * 0x0102040810204080ULL) >> 56);
#else
    (void)qcodes, (void)qsize, (void)rcodes, (void)rsize, (void)q, (void)r, (void)step;
    return -1;
#endif
}

/* For every mask of 8 codes: the score they add and the lowest score along them, read forward
 * (j = 0..7) and backward (j = 7..0). */
static void fill_blocks(scoring *s) {
    for (int m = 0; m < 256; m++) {
        int sum = 0, low = 0;
        for (int j = 0; j < 8; j++) {
            sum += (m >> j & 1) ? s->mismatch : s->match;
            low = sum < low ? sum : low;
        }
        s->block_sum[m] = sum, s->block_low[0][m] = low;
        sum = low = 0;
        for (int j = 7; j >= 0; j--) {
            sum += (m >> j & 1) ? s->mismatch : s->match;
            low = sum < low ? sum : low;
        }
        s->block_low[1][m] = low;
    }
}

/* One side from (q, r), the first base read, in direction step. Where the score is at least 8
 * matches below the side's best, none of the next 8 bases can become the end: they are taken at
 * once (a table gives their score and the lowest score along them) unless a stop rule could fire
 * among them or one is N or a border; then, and near the best, base by base. The walk of repeats
 * that leave homology spends most of its bases in that descent. */
static side walk(const scoring *s, const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize,
                 int64_t q, int64_t r, int step, int64_t *reads, int64_t limit) {
    const int k = s->k;
    int64_t score = (int64_t)k * s->match, run_ids = 0, n = 0, room = limit - *reads;
    side out = {score, 0, 0};
    while (n < room) {
        if (out.best - score >= 8 * s->match) {
            int m = mismatch_mask(qcodes, qsize, rcodes, rsize, q, r, step);
            if (m >= 0) {
                int64_t low = score + s->block_low[step < 0][m];
                if (low >= 0 && !(s->xdrop && out.best - low > s->xdrop)) {
                    score += s->block_sum[m];
                    run_ids += 8 - __builtin_popcount((unsigned)m);
                    n += 8, q += 8 * step, r += 8 * step;
                    continue;
                }
            }
        }
        n++;
        if (q < 0 || r < 0 || q >= qsize || r >= rsize)
            break;
        uint8_t a = qcodes[q], b = rcodes[r];
        if (a == BORDER || b == BORDER)
            break;
        if (a == N_CODE || b == N_CODE)
            score += s->n_score;
        else if (a == b)
            score += s->match, run_ids++;
        else
            score += s->mismatch;
        if (score > out.best && clears(s, run_ids, n)) {
            out.best = score;
            out.length = n;
            out.ids = run_ids;
        }
        if (score < 0 || (s->xdrop && out.best - score > s->xdrop))
            break;
        q += step, r += step;
    }
    *reads += n;
    return out;
}

/* The HSP of the seed (q, r): both sides walked, unless *reads reaches limit first (then out is no HSP). */
static void extend_seed(const scoring *s, const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize,
                 int64_t q, int64_t r, hsp *out, int64_t *reads, int64_t limit) {
    side right = walk(s, qcodes, qsize, rcodes, rsize, q + s->k, r + s->k, +1, reads, limit);
    side left = walk(s, qcodes, qsize, rcodes, rsize, q - 1, r - 1, -1, reads, limit);
    out->qstart = q - left.length;
    out->qend = q + s->k + right.length;
    out->score = left.best + right.best - (int64_t)s->k * s->match;
    out->ids = s->k + left.ids + right.ids;
}

/* ---- The kept seeds of one diagonal, walked side by side.
 *
 * Along a long alignment with substitutions and no indels, kept seeds lie every few dozen bases and
 * each one's walk runs to the alignment's end: a walk a seed costs the square of the length. Walks
 * of one diagonal read the same bases, so their scores, base counts and identities keep the same
 * differences; once the gap between best and score is the same in two walks (at the next new best of
 * both), they take the same steps for as long as the identity rule answers the same for both. So the
 * walks of a diagonal run in bundles: a lead walk, each member an offset of it. A bundle reads a
 * base once for all its members; where the identity rule answers differently among its members it
 * splits, where a member's score drops below 0 that member alone stops, and bundles whose gaps meet
 * merge. Each member ends exactly where walk() would end it, in time linear in the diagonal's bases
 * while its members agree. */

typedef struct {
    int64_t score, n, run_ids;
    side out;
} walker;

typedef struct {
    walker lead;                   /* the walk every member is an offset of */
    int64_t updates;               /* times lead.out moved */
    int head, count;               /* members, linked through member.next */
    int64_t low_score;             /* least score offset among the members */
    double low_sigma, high_sigma;  /* least and greatest identity-slack offset among them */
} bundle;

typedef struct {
    int64_t dscore, dn, dids;      /* its walk = the lead's + these */
    double dsigma;                 /* its identity slack = the lead's + this */
    int64_t stamp;                 /* the bundle's updates when out was set */
    side out;
    int next;
} member;

typedef struct {
    bundle *bundles;
    member *members;
    walker *walks;                 /* a split's members, taken out of their bundle */
    int *alive;                    /* the bundles being walked */
    int *spare;                    /* free bundle slots */
    int *order;                    /* members taken out, in list order */
    int64_t *start;                /* the walks' first bases */
    side *right, *left;            /* the seeds' sides */
    int free_slots, size;
} sweep_space;

/* Identity slack: >= 0 where clears() holds (up to rounding: near 0, clears() itself decides). */
static inline double slack(const scoring *s, int64_t ids, int64_t n) {
    return (double)(2 * ids + s->k) * 100.0 - s->min_identity * (double)(2 * n + s->k);
}

static walker member_walk(const bundle *b, const member *m) {
    walker w = {b->lead.score + m->dscore, b->lead.n + m->dn, b->lead.run_ids + m->dids, m->out};
    if (b->updates > m->stamp)
        w.out = (side){b->lead.out.best + m->dscore, b->lead.out.length + m->dn, b->lead.out.ids + m->dids};
    return w;
}

static void empty_bundle(bundle *b, walker lead) {
    *b = (bundle){lead, 0, -1, 0, INT64_MAX, INFINITY, -INFINITY};
}

static void attach(const scoring *s, bundle *b, member *members, int j, walker w) {
    member *m = &members[j];
    m->dscore = w.score - b->lead.score, m->dn = w.n - b->lead.n, m->dids = w.run_ids - b->lead.run_ids;
    m->dsigma = 200.0 * (double)m->dids - 2.0 * s->min_identity * (double)m->dn;
    m->out = w.out, m->stamp = b->updates;
    m->next = b->head, b->head = j, b->count++;
    b->low_score = m->dscore < b->low_score ? m->dscore : b->low_score;
    b->low_sigma = m->dsigma < b->low_sigma ? m->dsigma : b->low_sigma;
    b->high_sigma = m->dsigma > b->high_sigma ? m->dsigma : b->high_sigma;
}

static int open_bundle(sweep_space *w, int *alive, walker lead) {
    int b = w->spare[--w->free_slots];
    empty_bundle(&w->bundles[b], lead);
    w->alive[(*alive)++] = b;
    return b;
}

static void close_bundle(sweep_space *w, int *alive, int at) {
    w->spare[w->free_slots++] = w->alive[at];
    w->alive[at] = w->alive[--(*alive)];
}

/* Every member of bundle b stops where it is: its side is final. */
static void finish_bundle(const sweep_space *w, int b, side *result) {
    for (int j = w->bundles[b].head; j >= 0; j = w->members[j].next)
        result[j] = member_walk(&w->bundles[b], &w->members[j]).out;
}

/* Bundle b's members, taken out (w->walks, in list order) and the bundle left empty; returns how many. */
static int take_out(sweep_space *w, int b, int *order) {
    bundle *x = &w->bundles[b];
    int n = 0;
    for (int j = x->head; j >= 0; j = w->members[j].next)
        w->walks[n] = member_walk(x, &w->members[j]), order[n++] = j;
    empty_bundle(x, x->lead);
    return n;
}

/* A base read by bundle alive[at] (score sc, identity id): the walk rule's update and stops for each
 * member. A split appends a bundle to alive (it has read the base); a bundle whose members all
 * stopped is closed. Returns whether its gap between best and score moved apart from the others'. */
static int bundle_step(const scoring *s, sweep_space *w, int *alive, int at, int sc, int id, side *result,
                       int *order) {
    int b = w->alive[at], moved = 0;
    bundle *x = &w->bundles[b];
    x->lead.n++, x->lead.score += sc, x->lead.run_ids += id;
    if (x->lead.score > x->lead.out.best) {  /* every member's score beats its best: the gaps are equal */
        double lead_slack = slack(s, x->lead.run_ids, x->lead.n);
        int all = lead_slack + x->low_sigma > 1.0, none = lead_slack + x->high_sigma < -1.0;
        if (!all && !none) {
            int yes = 0;
            for (int j = x->head; j >= 0; j = w->members[j].next)
                yes += clears(s, x->lead.run_ids + w->members[j].dids, x->lead.n + w->members[j].dn);
            all = yes == x->count, none = yes == 0;
        }
        if (all) {
            x->lead.out = (side){x->lead.score, x->lead.n, x->lead.run_ids};
            x->updates++;
            moved = 1;
        } else if (!none) {  /* those that clear take the new best (a bundle of their own); the rest stay */
            int n = take_out(w, b, order), taken = -1;
            moved = 1;
            for (int i = 0; i < n; i++) {
                walker v = w->walks[i];
                if (clears(s, v.run_ids, v.n)) {  /* score > best > 0 now: no stop rule fires */
                    v.out = (side){v.score, v.n, v.run_ids};
                    if (taken < 0)
                        taken = open_bundle(w, alive, v);
                    attach(s, &w->bundles[taken], w->members, order[i], v);
                } else {
                    if (!x->count)
                        empty_bundle(x, v);
                    attach(s, x, w->members, order[i], v);
                }
            }
        }
    }
    if (s->xdrop && x->lead.out.best - x->lead.score > s->xdrop) {
        finish_bundle(w, b, result);
        close_bundle(w, alive, at);
    } else if (x->lead.score + x->low_score < 0) {  /* some members' scores dropped below 0: they stop */
        int n = take_out(w, b, order), kept = 0;
        moved = 1;
        for (int i = 0; i < n; i++) {
            walker v = w->walks[i];
            if (v.score < 0) {
                result[order[i]] = v.out;
            } else {
                if (!kept++)
                    empty_bundle(x, v);
                attach(s, x, w->members, order[i], v);
            }
        }
        if (!kept)
            close_bundle(w, alive, at);
    }
    return moved;
}

/* Bundles with the same gap between best and score take the same steps from here: the smaller
 * joins the larger. */
static void merge_bundles(const scoring *s, sweep_space *w, int *alive) {
    if (*alive > 16)
        return;  /* many at once (seldom): walked apart, still exact */
    for (int a = 0; a < *alive; a++)
        for (int c = a + 1; c < *alive; c++) {
            bundle *x = &w->bundles[w->alive[a]], *y = &w->bundles[w->alive[c]];
            if (x->lead.out.best - x->lead.score != y->lead.out.best - y->lead.score)
                continue;
            if (x->count < y->count) {
                int t = w->alive[a];
                w->alive[a] = w->alive[c], w->alive[c] = t;
                bundle *z = x;
                x = y, y = z;
            }
            for (int j = y->head, next; j >= 0; j = next) {
                next = w->members[j].next;
                attach(s, x, w->members, j, member_walk(y, &w->members[j]));
            }
            close_bundle(w, alive, c--);
        }
}

/* One side of each seed of a diagonal (r = q - diag): start[j] is walk j's first base, in walking
 * order (increasing for step +1, decreasing for -1); result[j] its side, as walk() gives it. */
static void sweep(const scoring *s, const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize,
                  int64_t diag, const int64_t *start, int m, int step, side *result, sweep_space *w,
                  int64_t *reads) {
    int *order = w->order;
    int alive = 0, next = 0;
    w->free_slots = m;
    for (int b = 0; b < m; b++)
        w->spare[b] = m - 1 - b;
    const int64_t first = (int64_t)s->k * s->match;
    int64_t x = start[0];
    for (;;) {
        int joined = 0;
        for (; next < m && start[next] == x; next++, joined++) {
            walker v = {first, 0, 0, {first, 0, 0}};
            attach(s, &w->bundles[open_bundle(w, &alive, v)], w->members, next, v);
        }
        if (joined && alive > 1)
            merge_bundles(s, w, &alive);
        if (!alive) {
            if (next == m)
                return;
            x = start[next];
            continue;
        }
        int64_t q = x, r = x - diag;
        /* eight bases at once where every bundle is on its way down, as walk() takes them */
        int down = next == m || (step > 0 ? start[next] >= x + 8 : start[next] <= x - 8);
        for (int i = 0; i < alive && down; i++)
            down = w->bundles[w->alive[i]].lead.out.best - w->bundles[w->alive[i]].lead.score >= 8 * s->match;
        if (down) {
            int mask = mismatch_mask(qcodes, qsize, rcodes, rsize, q, r, step), all = mask >= 0;
            for (int i = 0; i < alive && all; i++) {
                const bundle *b = &w->bundles[w->alive[i]];
                int64_t low = b->lead.score + s->block_low[step < 0][mask];
                all = low + b->low_score >= 0 && !(s->xdrop && b->lead.out.best - low > s->xdrop);
            }
            if (all) {
                for (int i = 0; i < alive; i++) {
                    bundle *b = &w->bundles[w->alive[i]];
                    b->lead.score += s->block_sum[mask];
                    b->lead.run_ids += 8 - __builtin_popcount((unsigned)mask);
                    b->lead.n += 8;
                }
                x += 8 * step;
                *reads += 8 * alive;
                continue;
            }
        }
        if (q < 0 || r < 0 || q >= qsize || r >= rsize || qcodes[q] == BORDER || rcodes[r] == BORDER) {
            for (; alive; close_bundle(w, &alive, 0))
                finish_bundle(w, w->alive[0], result);
            if (next == m)
                return;
            x = start[next];
            continue;
        }
        uint8_t a = qcodes[q], c = rcodes[r];
        int sc = a == N_CODE || c == N_CODE ? s->n_score : a == c ? s->match : s->mismatch;
        *reads += alive;
        int moved = 0;  /* a base moves every gap alike, unless a best moved, a bundle split or a member stopped */
        for (int i = alive - 1; i >= 0; i--)  /* from the end: what a split appends has read the base */
            moved |= bundle_step(s, w, &alive, i, sc, a == c && a != N_CODE, result, order);
        if (moved && alive > 1)
            merge_bundles(s, w, &alive);
        x += step;
    }
}

static void free_sweep(sweep_space *w) {
    free(w->bundles), free(w->members), free(w->walks), free(w->alive), free(w->spare);
    free(w->order), free(w->start), free(w->right), free(w->left);
    *w = (sweep_space){0};
}

/* Scratch for diagonals of up to m seeds (grown as needed); 0 when out of memory. */
static int sweep_room(sweep_space *w, int m) {
    if (m <= w->size)
        return 1;
    free_sweep(w);
    w->bundles = malloc((size_t)m * sizeof(bundle));
    w->members = malloc((size_t)m * sizeof(member));
    w->walks = malloc((size_t)m * sizeof(walker));
    w->alive = malloc((size_t)m * sizeof(int));
    w->spare = malloc((size_t)m * sizeof(int));
    w->order = malloc((size_t)m * sizeof(int));
    w->start = malloc((size_t)m * sizeof(int64_t));
    w->right = malloc((size_t)m * sizeof(side));
    w->left = malloc((size_t)m * sizeof(side));
    if (w->bundles && w->members && w->walks && w->alive && w->spare && w->order && w->start && w->right && w->left)
        w->size = m;
    return w->size > 0;
}

typedef struct {
    const uint8_t *qcodes, *rcodes;
    int64_t qsize, rsize;
    const int64_t *sq, *sr;
    int64_t n;
    scoring scoring;
    int64_t *qstart, *qend, *score, *ids;
    int64_t next;  /* first seed of the next block to hand out */
    int64_t reads; /* bases read by the walks, all threads */
} job;

#define BLOCK_SEEDS 1024

/* Seeds i and i + 1 of the list are on one diagonal, in walking order. */
static inline int same_diagonal(const job *j, int64_t i) {
    return j->sq[i + 1] - j->sr[i + 1] == j->sq[i] - j->sr[i] && j->sq[i + 1] > j->sq[i];
}

static void put(const job *j, int64_t i, hsp h) {
    j->qstart[i] = h.qstart, j->qend[i] = h.qend, j->score[i] = h.score, j->ids[i] = h.ids;
}

/* The seeds [lo, hi) of one diagonal, walked one by one as long as their walks read no more than a
 * few times the diagonal's stretch between them (most repeat hits); where they would read more (walks
 * running past the next seeds), swept together. */
static void extend_diagonal(const job *j, int64_t lo, int64_t hi, sweep_space *w, int64_t *reads) {
    const scoring *s = &j->scoring;
    int m = (int)(hi - lo);
    int64_t budget = m == 1 ? INT64_MAX : 3 * (j->sq[hi - 1] - j->sq[lo] + 2 * (int64_t)s->k) + 256 * (int64_t)m;
    int64_t used = 0, i = lo;
    for (; i < hi && used < budget; i++) {
        hsp h;
        extend_seed(s, j->qcodes, j->qsize, j->rcodes, j->rsize, j->sq[i], j->sr[i], &h, &used, budget);
        put(j, i, h);
    }
    *reads += used;
    if (used < budget)
        return;
    if (!sweep_room(w, m)) {  /* no memory for a sweep: each walk to its end */
        for (i = lo; i < hi; i++) {
            hsp h;
            extend_seed(s, j->qcodes, j->qsize, j->rcodes, j->rsize, j->sq[i], j->sr[i], &h, reads, INT64_MAX);
            put(j, i, h);
        }
        return;
    }
    int64_t diag = j->sq[lo] - j->sr[lo];
    for (int t = 0; t < m; t++)
        w->start[t] = j->sq[lo + t] + s->k;
    sweep(s, j->qcodes, j->qsize, j->rcodes, j->rsize, diag, w->start, m, +1, w->right, w, reads);
    for (int t = 0; t < m; t++)
        w->start[t] = j->sq[hi - 1 - t] - 1;
    sweep(s, j->qcodes, j->qsize, j->rcodes, j->rsize, diag, w->start, m, -1, w->left, w, reads);
    for (int t = 0; t < m; t++) {
        side right = w->right[t], left = w->left[m - 1 - t];
        int64_t q = j->sq[lo + t];
        put(j, lo + t, (hsp){q - left.length, q + s->k + right.length,
                             left.best + right.best - (int64_t)s->k * s->match, s->k + left.ids + right.ids});
    }
}

#define MAX_SWEEP (1 << 22)  /* longest run of seeds swept at once (a longer one is cut: still exact) */

static void extend_part(void *p, int t, int threads) {
    job *j = (job *)p;
    sweep_space w = {0};
    int64_t reads = 0;
    (void)t, (void)threads;
    for (;;) {
        int64_t lo = __atomic_fetch_add(&j->next, BLOCK_SEEDS, __ATOMIC_RELAXED);
        if (lo >= j->n)
            break;
        int64_t hi = lo + BLOCK_SEEDS < j->n ? lo + BLOCK_SEEDS : j->n;
        while (lo > 0 && lo < hi && same_diagonal(j, lo - 1))  /* an earlier block's diagonal */
            lo++;
        while (lo < hi) {
            int64_t end = lo + 1;
            while (end < j->n && same_diagonal(j, end - 1))
                end++;
            for (; lo < end; lo += MAX_SWEEP)
                extend_diagonal(j, lo, end - lo > MAX_SWEEP ? lo + MAX_SWEEP : end, &w, &reads);
            lo = end;
        }
    }
    free_sweep(&w);
    __atomic_fetch_add(&j->reads, reads, __ATOMIC_RELAXED);
}

PyObject *py_extend(PyObject *self, PyObject *args) {
    Py_buffer v[8];
    job j = {0};
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*iiiiidw*w*w*w*i", &v[0], &v[1], &v[2], &v[3], &j.scoring.k,
                          &j.scoring.match, &j.scoring.mismatch, &j.scoring.n_score, &j.scoring.xdrop,
                          &j.scoring.min_identity, &v[4], &v[5], &v[6], &v[7], &threads))
        return NULL;
    j.n = v[2].len / 8;
    int ok = check_items(&v[3], "sr", 8, j.n);
    for (int i = 4; i < 8 && ok; i++)
        ok = check_items(&v[i], "output", 8, j.n);
    if (ok) {
        j.qcodes = v[0].buf, j.rcodes = v[1].buf, j.qsize = v[0].len, j.rsize = v[1].len;
        j.sq = v[2].buf, j.sr = v[3].buf;
        j.qstart = v[4].buf, j.qend = v[5].buf, j.score = v[6].buf, j.ids = v[7].buf;
        fill_blocks(&j.scoring);
        if (threads > j.n / BLOCK_SEEDS + 1)
            threads = (int)(j.n / BLOCK_SEEDS + 1);
        Py_BEGIN_ALLOW_THREADS
        run_parallel(extend_part, &j, threads);
        Py_END_ALLOW_THREADS
    }
    for (int i = 0; i < 8; i++)
        PyBuffer_Release(&v[i]);
    if (!ok)
        return NULL;
    return PyLong_FromLongLong(j.reads);  /* bases the walks read: linear in a diagonal's length */
}
