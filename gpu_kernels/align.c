/* Gapped alignments of chains (align.py has the definition's steps; docs/DEFINITIONS.md, "What an alignment
 * is", the rules; tests/oracle_align.py is the oracle; align.cu the device twin).
 *
 * align_anchors: the runs of identical ACGT columns of at least min_anchor inside each chain block but
 * microsatellites (a run repeating a unit of 1-6 bases throughout),
 * counted (a first call) or written where the counts' sums say (a second call), blocks on threads.
 * align_fill: every gap between two anchors aligned globally with affine gaps in its band; the
 * direction bits of a cell (which state H came from, whether E and F opened there) are kept for the
 * traceback, a byte a cell, in a scratch buffer a thread. Gaps are taken by threads one at a time off
 * a shared counter, as their sizes differ by orders of magnitude.
 * align_text (align_text.c): the alignments' texts, from their anchors and gaps' columns.
 *
 * A position is an index into the query codes or into the reference codes of the gap's strand (the
 * reverse strand's are the reference's reverse complement), so no record boundary is looked up here. */
#include "cpu.h"
#include "scoring.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(E_OPEN == 1 << 2 && F_OPEN == 1 << 3 && FROM_E == 1 && FROM_F == 2,
               "fill_gap's inner cells set these bits without a branch");

static PyObject *released(Py_buffer *b, int n, PyObject *result) {
    for (int k = 0; k < n; k++)
        PyBuffer_Release(&b[k]);
    return result;
}

/* ---- anchors ---- */

typedef struct {
    const uint8_t *q, *rf, *rr;
    const int64_t *qpos, *rpos, *len;
    const int8_t *strand;
    int64_t n, min_anchor;
    int64_t *count;                 /* count mode: anchors a block; fill mode: where its first goes */
    int64_t *ax, *ay, *alen;        /* fill mode: anchors' query and reference positions, lengths */
    int fill;
} anchor_job;

static void anchor_part(void *arg, int t, int threads) {
    anchor_job *a = (anchor_job *)arg;
    size_t lo, hi;
    part_range((size_t)a->n, t, threads, &lo, &hi);
    for (size_t b = lo; b < hi; b++) {
        const uint8_t *q = a->q + a->qpos[b], *r = (a->strand[b] ? a->rr : a->rf) + a->rpos[b];
        int64_t found = 0, at = a->fill ? a->count[b] : 0, run = 0;
        for (int64_t i = 0; i <= a->len[b]; i++) {
            if (i < a->len[b] && q[i] == r[i] && q[i] < 4) {
                run++;
                continue;
            }
            if (run >= a->min_anchor && !periodic(q + i - run, run)) {
                if (a->fill) {
                    a->ax[at + found] = a->qpos[b] + i - run;
                    a->ay[at + found] = a->rpos[b] + i - run;
                    a->alen[at + found] = run;
                }
                found++;
            }
            run = 0;
        }
        if (!a->fill)
            a->count[b] = found;
    }
}

PyObject *py_align_anchors(PyObject *self, PyObject *args) {
    Py_buffer b[11];
    long long min_anchor;
    int fill, threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*Lw*pw*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                          &min_anchor, &b[7], &fill, &b[8], &b[9], &b[10], &threads))
        return NULL;
    const int64_t n = b[3].len / 8;
    int ok = check_items(&b[4], "align_anchors", 8, n) && check_items(&b[5], "align_anchors", 8, n) &&
             check_items(&b[6], "align_anchors", 1, n) && check_items(&b[7], "align_anchors", 8, n) &&
             min_anchor >= 1;
    if (!ok)
        return released(b, 11, PyErr_Occurred() ? NULL : (PyErr_SetString(PyExc_ValueError, "align_anchors"), NULL));
    anchor_job a = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf, n, min_anchor,
                    b[7].buf, b[8].buf, b[9].buf, b[10].buf, fill};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(anchor_part, &a, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    Py_INCREF(Py_None);
    return released(b, 11, Py_None);
}

/* ---- the gaps' global alignments ---- */

typedef struct {
    const uint8_t *q, *rf, *rr;
    const int64_t *qpos, *rpos, *dx, *dy, *at; /* at: where a gap's columns go (dx + dy bytes kept) */
    const int8_t *strand;
    int64_t n;
    int match, mismatch, go, ge, band;
    int64_t *score, *columns;       /* the fill's score; its number of columns */
    int64_t *counts;                /* COUNT_KINDS a gap */
    uint8_t *ops;                   /* column codes: 0 = 1 X 2 I 3 D */
    int64_t next;
    int failed;
} fill_job;

/* The general cell (i, j) of fill_gap, at d of the band: cell() with its neighbours looked up. */
static inline void edge_cell(const fill_job *f, const uint8_t *q, const uint8_t *r, int64_t i, int64_t j, int64_t j0,
                             int64_t d, int64_t w, int32_t go, int32_t ge, int32_t *hleft, int32_t *e, int32_t *hrow,
                             int32_t *frow, uint8_t *row) {
    int32_t h = 0, fv = NEG;
    if (i == 0 && j == 0) {
        *e = NEG;
        row[d] = 0;
    } else {
        const int32_t diag = i > 0 && j > 0 ? hrow[d] + column_score(q[i - 1], r[j - 1], f->match, f->mismatch)
                                            : NEG;
        row[d] = cell(j > j0, i > 0 && d + 1 < w, *hleft, e, d + 1 < w ? hrow[d + 1] : NEG, d + 1 < w ? frow[d + 1] : NEG,
                      diag, go, ge, &h, &fv);
    }
    hrow[d] = h;
    frow[d] = fv;
    *hleft = h;
}

/* One gap: the banded Gotoh DP (H, E ending in a D column, F ending in an I column), rows along the
 * query; dir keeps a byte a cell for the traceback. Returns the score; its columns written at ops.
 * A row's inner cells (a left, an above and a diagonal neighbour in the band) take two passes with the
 * values and bits cell() gives: first what comes from the row before (the diagonal, F), which no cell
 * of the row waits for, with the score E must reach to be chosen over them (ties go to the diagonal,
 * then to E), then along the row only E and H, each cell's choice bits after (about twice as fast as
 * cell() a cell: its chain of dependent steps is shorter). */
static int64_t fill_gap(const fill_job *f, int64_t g, uint8_t *dir, int32_t *hrow, int32_t *frow, int32_t *mrow,
                        int32_t *trow) {
    const uint8_t *q = f->q + f->qpos[g], *r = (f->strand[g] ? f->rr : f->rf) + f->rpos[g];
    const int64_t dx = f->dx[g], dy = f->dy[g];
    int64_t lo, hi;
    band_of(dx, dy, f->band, &lo, &hi);
    const int64_t w = hi - lo + 1;
    const int32_t go = f->go + f->ge, ge = f->ge, match = f->match, mismatch = f->mismatch;
    for (int64_t d = 0; d < w; d++)
        hrow[d] = frow[d] = NEG;
    for (int64_t i = 0; i <= dx; i++) {
        /* cell (i, j) is at d = j - i - lo; (i - 1, j) at d + 1 of the row before, (i - 1, j - 1) at d */
        int32_t e = NEG, hleft = NEG;
        const int64_t j0 = i + lo > 0 ? i + lo : 0, j1 = i + hi < dy ? i + hi : dy;
        const int64_t inner = i > 0 ? (j1 < i + hi - 1 ? j1 : i + hi - 1) : j0;  /* inner cells: j0 < j <= inner */
        uint8_t *row = dir + i * w;
        edge_cell(f, q, r, i, j0, j0, j0 - i - lo, w, go, ge, &hleft, &e, hrow, frow, row);
        if (inner > j0) {
            const uint8_t a = q[i - 1];
            const int64_t d0 = j0 + 1 - i - lo, d1 = inner - i - lo;
            const int64_t at = i + lo - 1;  /* the reference base of the cell at d: r[at + d] */
            for (int64_t d = d0; d <= d1; d++) {  /* from the row before: mrow = max(diagonal, F), frow F */
                const int32_t fo = hrow[d + 1] - go, fe = frow[d + 1] - ge, fv = fo >= fe ? fo : fe;
                const int32_t diag = hrow[d] + column_score(a, r[at + d], match, mismatch);
                const int top = diag >= fv;
                mrow[d] = top ? diag : fv;
                trow[d] = mrow[d] + top;  /* what E must reach to be chosen: ties go to the diagonal */
                frow[d] = fv;
                row[d] = (uint8_t)(((fo >= fe) << 3) | ((top ^ 1) << 1));  /* F_OPEN; FROM_DIAG or FROM_F */
            }
            /* along the row: E, then H = E where it reaches trow, else mrow. Where opening a gap costs
             * more than extending one, E opens from the left cell's mrow in place of its H: where that H
             * is E, opening from it loses to extending it, so E is the same, and only E waits for E */
            const int from_m = go > ge;
            int32_t left = hleft;
            for (int64_t d = d0; d <= d1; d++) {
                const int32_t eo = left - go, ee = e - ge, m = mrow[d];
                e = eo >= ee ? eo : ee;
                const int take = e >= trow[d];
                hrow[d] = take ? e : m;
                left = from_m ? m : hrow[d];
                row[d] = (uint8_t)((row[d] & ~(take * 3)) | take | ((eo >= ee) << 2));  /* FROM_E where taken */
            }
            hleft = hrow[d1];
        }
        for (int64_t j = (inner > j0 ? inner : j0) + 1; j <= j1; j++)
            edge_cell(f, q, r, i, j, j0, j - i - lo, w, go, ge, &hleft, &e, hrow, frow, row);
        /* cells of the row before that this row's band no longer covers are off the band for the next */
        for (int64_t d = 0; d < j0 - i - lo; d++)
            hrow[d] = frow[d] = NEG;
        for (int64_t d = j1 - i - lo + 1; d < w; d++)
            hrow[d] = frow[d] = NEG;
    }
    f->columns[g] = fill_trace(dir, w, lo, dx, dy, q, r, 1, f->ops + f->at[g], f->counts + COUNT_KINDS * g);
    return hrow[dy - dx - lo];
}

/* A gap of as many query as reference bases whose diagonal outscores every other path: its columns
 * written and counted as fill_gap's traceback would (1), or nothing done (0). Any other path holds an I
 * and a D run, each costing at least go + ge, and at most dx - 1 column pairs, each at most match, so a
 * diagonal scoring more than match (dx - 1) - 2 (go + ge) is the DP's one best path. Most gaps between
 * anchors of a close pair are a substitution or two: this skips their band's DP (the device's twin
 * fills them: the same columns). */
static int diagonal_gap(const fill_job *f, int64_t g) {
    const int64_t dx = f->dx[g];
    if (dx != f->dy[g])
        return 0;
    const uint8_t *q = f->q + f->qpos[g], *r = (f->strand[g] ? f->rr : f->rf) + f->rpos[g];
    int64_t score = 0;
    for (int64_t k = 0; k < dx; k++)
        score += column_score(q[k], r[k], f->match, f->mismatch);
    if (score <= (int64_t)f->match * (dx - 1) - 2 * (int64_t)(f->go + f->ge))
        return 0;
    uint8_t *ops = f->ops + f->at[g];
    int64_t *counts = f->counts + COUNT_KINDS * g;
    counts[0] = counts[1] = counts[2] = counts[3] = counts[4] = 0;
    for (int64_t k = 0; k < dx; k++) {
        const uint8_t op = q[k] == r[k] && q[k] < 4 ? 0 : 1;
        ops[k] = op;
        counts[op]++;
        counts[4] += q[k] > 3 || r[k] > 3;
    }
    f->columns[g] = dx;
    f->score[g] = score;
    return 1;
}

static void fill_part(void *arg, int t, int threads) {
    fill_job *f = (fill_job *)arg;
    (void)t, (void)threads;
    size_t cap = 0, wcap = 0;
    uint8_t *dir = NULL;
    int32_t *rows = NULL;
    for (;;) {
        const int64_t g = __atomic_fetch_add(&f->next, 1, __ATOMIC_RELAXED);
        if (g >= f->n)
            break;
        if (diagonal_gap(f, g))
            continue;
        const int64_t dx = f->dx[g], dy = f->dy[g];
        int64_t lo, hi;
        band_of(dx, dy, f->band, &lo, &hi);
        const int64_t w = hi - lo + 1;
        const size_t cells = (size_t)(dx + 1) * (size_t)w;
        if (cells > cap || (size_t)w > wcap) {
            free(dir);
            free(rows);
            cap = cells > cap ? cells : cap;
            wcap = (size_t)w > wcap ? (size_t)w : wcap;
            dir = malloc(cap);
            rows = malloc(4 * wcap * sizeof(int32_t));
            if (!dir || !rows) {
                __atomic_store_n(&f->failed, 1, __ATOMIC_RELAXED);
                break;
            }
        }
        f->score[g] = fill_gap(f, g, dir, rows, rows + wcap, rows + 2 * wcap, rows + 3 * wcap);
    }
    free(dir);
    free(rows);
}

/* The gap buffers align_fill and align_posterior take, in this order: q, rf, rr, qpos, rpos, dx, dy,
 * at, strand, score, columns, counts, ops (items of 1 or 8 bytes a gap, counts COUNT_KINDS int64, every gap's
 * columns inside ops); 0 with the Python error set where they are not. */
int gap_buffers_ok(const Py_buffer *b, const char *name) {
    const int64_t n = b[3].len / 8;
    int ok = 1;
    for (int k = 4; k < 8 && ok; k++)
        ok = check_items(&b[k], name, 8, n);
    ok = ok && check_items(&b[8], name, 1, n) && check_items(&b[9], name, 8, n) && check_items(&b[10], name, 8, n) &&
         check_items(&b[11], name, 8 * COUNT_KINDS, n);
    if (ok) {
        const int64_t *dx = b[5].buf, *dy = b[6].buf, *at = b[7].buf;
        for (int64_t g = 0; g < n && ok; g++)
            ok = dx[g] >= 0 && dy[g] >= 0 && at[g] >= 0 && at[g] + dx[g] + dy[g] <= b[12].len;
        if (!ok)
            PyErr_Format(PyExc_ValueError, "%s: a gap's columns fall outside ops", name);
    }
    return ok;
}

PyObject *py_align_fill(PyObject *self, PyObject *args) {
    Py_buffer b[13];
    int match, mismatch, go, ge, band, threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*iiiiiw*w*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                          &b[7], &b[8], &match, &mismatch, &go, &ge, &band, &b[9], &b[10], &b[11], &b[12], &threads))
        return NULL;
    const int64_t n = b[3].len / 8;
    const int ok = band >= 0 && gap_buffers_ok(b, "align_fill");
    if (!ok)
        return released(b, 13, PyErr_Occurred() ? NULL : (PyErr_SetString(PyExc_ValueError, "align_fill"), NULL));
    fill_job f = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf, b[7].buf, b[8].buf, n,
                  match, mismatch, go, ge, band, b[9].buf, b[10].buf, b[11].buf, b[12].buf, 0, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(fill_part, &f, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    if (f.failed)
        return released(b, 13, PyErr_NoMemory());
    Py_INCREF(Py_None);
    return released(b, 13, Py_None);
}

/* ---- the chains' ends, extended with an X-drop ---- */

typedef struct {
    const uint8_t *q, *rf, *rr;
    const int64_t *qpos, *rpos, *lq, *lr, *at; /* the base next to the end; the most bases; where ops go */
    const int8_t *step, *strand;              /* +1 outwards to the right, -1 to the left */
    int64_t n;
    int match, mismatch, go, ge, band, xdrop;
    int64_t *score, *dq, *dr, *counts;
    uint8_t *ops;
    int64_t next;
    int failed;
} extend_job;

/* One end (scoring.h's extend_rows, then its path traced back): returns the best score; its columns
 * written at ops, outwards from the end. */
static int64_t extend_end(const extend_job *x, int64_t e, uint8_t *dir, int32_t *hrow, int32_t *frow) {
    const int64_t s = x->step[e];
    const uint8_t *q = x->q + x->qpos[e], *r = (x->strand[e] ? x->rr : x->rf) + x->rpos[e];
    int64_t bi, bj;
    const int32_t best = extend_rows(q, r, s, x->lq[e], x->lr[e], x->band, x->match, x->mismatch, x->go + x->ge,
                                     x->ge, x->xdrop, hrow, frow, dir, &bi, &bj);
    fill_trace(dir, 2 * (int64_t)x->band + 1, -x->band, bi, bj, q, r, s, x->ops + x->at[e],
               x->counts + COUNT_KINDS * e);
    x->dq[e] = bi;
    x->dr[e] = bj;
    return best;
}

static void extend_part(void *arg, int t, int threads) {
    extend_job *x = (extend_job *)arg;
    (void)t, (void)threads;
    size_t cap = 0;
    const int64_t w = 2 * (int64_t)x->band + 1;
    uint8_t *dir = NULL;
    int32_t *rows = malloc(2 * (size_t)w * sizeof(int32_t));
    if (!rows) {
        __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (;;) {
        const int64_t e = __atomic_fetch_add(&x->next, 1, __ATOMIC_RELAXED);
        if (e >= x->n)
            break;
        const size_t cells = (size_t)(x->lq[e] + 1) * (size_t)w;
        if (cells > cap) {
            free(dir);
            cap = cells;
            dir = malloc(cap);
            if (!dir) {
                __atomic_store_n(&x->failed, 1, __ATOMIC_RELAXED);
                break;
            }
        }
        x->score[e] = extend_end(x, e, dir, rows, rows + w);
    }
    free(dir);
    free(rows);
}

PyObject *py_align_extend(PyObject *self, PyObject *args) {
    Py_buffer b[16];
    int match, mismatch, go, ge, band, xdrop, threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*iiiiiiw*w*w*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
                          &b[6], &b[7], &b[8], &b[9], &match, &mismatch, &go, &ge, &band, &xdrop, &b[10], &b[11],
                          &b[12], &b[13], &b[14], &threads))
        return NULL;
    /* b: q, rf, rr, qpos, rpos, step (int8), lq, lr, strand (int8), at; score, dq, dr, counts (COUNT_KINDS an end), ops */
    const int64_t n = b[3].len / 8;
    int ok = band >= 0 && xdrop >= 0 && check_items(&b[4], "align_extend", 8, n) &&
             check_items(&b[5], "align_extend", 1, n) && check_items(&b[6], "align_extend", 8, n) &&
             check_items(&b[7], "align_extend", 8, n) && check_items(&b[8], "align_extend", 1, n) &&
             check_items(&b[9], "align_extend", 8, n) && check_items(&b[10], "align_extend", 8, n) &&
             check_items(&b[11], "align_extend", 8, n) && check_items(&b[12], "align_extend", 8, n) &&
             check_items(&b[13], "align_extend", 8 * COUNT_KINDS, n);
    if (ok) {
        const int64_t *lq = b[6].buf, *lr = b[7].buf, *at = b[9].buf;
        for (int64_t e = 0; e < n && ok; e++)
            ok = lq[e] >= 0 && lr[e] >= 0 && at[e] >= 0 && at[e] + lq[e] + lr[e] <= b[14].len;
    }
    if (!ok)
        return released(b, 15, PyErr_Occurred() ? NULL : (PyErr_SetString(PyExc_ValueError, "align_extend"), NULL));
    extend_job x = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[6].buf, b[7].buf, b[9].buf, b[5].buf,
                    b[8].buf, n, match, mismatch, go, ge, band, xdrop, b[10].buf, b[11].buf, b[12].buf, b[13].buf,
                    b[14].buf, 0, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(extend_part, &x, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    if (x.failed)
        return released(b, 15, PyErr_NoMemory());
    Py_INCREF(Py_None);
    return released(b, 15, Py_None);
}
