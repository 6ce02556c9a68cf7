/* The kept seeds of one diagonal, walked side by side.
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

#include "extend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
void sweep(const scoring *s, const uint8_t *qcodes, int64_t qsize, const uint8_t *rcodes, int64_t rsize,
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

void free_sweep(sweep_space *w) {
    free(w->bundles), free(w->members), free(w->walks), free(w->alive), free(w->spare);
    free(w->order), free(w->start), free(w->right), free(w->left);
    *w = (sweep_space){0};
}

/* Scratch for diagonals of up to m seeds (grown as needed); 0 when out of memory. */
int sweep_room(sweep_space *w, int m) {
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
