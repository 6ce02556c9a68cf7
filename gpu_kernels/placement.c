/* The chains' blocks as written (placement.py, docs/DEFINITIONS.md "What a chain is", 6; tests/oracle_chains.refine):
 * chain_seams puts each seam between two overlapping HSPs of a chain where their columns score best
 * (once a seam), chain_pieces then cuts each block at its drops and moves each piece's ends past
 * tandem runs; blocks on threads. */
#include "cpu.h"
#include "placement.h"

#include <stdlib.h>
#include <string.h>

/* ---- the blocks as written: seams and drops ---- */

typedef struct {
    const uint8_t *q, *rf, *rr;
    const int64_t *qpos, *rpos, *x0, *xe, *y0, *trim;
    const uint8_t *seam;            /* seam[b]: b overlapped the block before it, so a seam lies between them */
    const int8_t *strand;
    int64_t n, match, mismatch, n_score, drop, tandem;  /* chain_pieces: mismatch is block_mismatch */
    const uint8_t *plain;           /* plain[b]: b's pieces keep their tandem runs (its chain would lose all) */
    int64_t *start, *end;           /* each block's query start and end once its seams are placed */
    int64_t *count;                 /* count mode: pieces a block; fill mode: where its first goes */
    int64_t *pblock, *px0, *pxe, *pids;
    int fill;                       /* 0: count, 1: fill, 2: count again the plain blocks only */
} refine_job;

static inline int64_t column_score(const refine_job *j, uint8_t a, uint8_t b) {
    return block_score(a, b, j->match, j->mismatch, j->n_score);
}

/* The codes of block b's query and of its reference strand, indexed by query position: the
 * reference's at x - (b's diagonal). */
static inline const uint8_t *query_of(const refine_job *j, int64_t b) { return j->q + (j->qpos[b] - j->x0[b]); }
static inline const uint8_t *reference_of(const refine_job *j, int64_t b) {
    return (j->strand[b] ? j->rr : j->rf) + (j->rpos[b] - j->y0[b]) - (j->x0[b] - j->y0[b]);
}

/* The seam after block a (a + 1 overlapped it): over every query position c from lo to a's end, a's
 * columns before c and a + 1's from c + shift on; a ends at the first c of the highest score and
 * a + 1 starts at c + shift. */
static void place_seam(const refine_job *j, int64_t a) {
    const int64_t b = a + 1, da = j->x0[a] - j->y0[a], db = j->x0[b] - j->y0[b];
    const int64_t shift = db > da ? db - da : 0;
    const int64_t lo_a = j->x0[a] + 1, lo_b = j->x0[b] - j->trim[b] - shift;
    const int64_t lo = lo_a > lo_b ? lo_a : lo_b, hi = j->xe[a];
    const uint8_t *q = query_of(j, a), *ra = reference_of(j, a), *rb = reference_of(j, b);
    int64_t s = 0;
    for (int64_t t = lo; t < hi; t++)
        s += column_score(j, q[t + shift], rb[t + shift]);
    int64_t best = s, at = lo;
    for (int64_t t = lo; t < hi; t++) {
        s += column_score(j, q[t], ra[t]) - column_score(j, q[t + shift], rb[t + shift]);
        if (s > best)
            best = s, at = t + 1;
    }
    j->end[a] = at;
    j->start[b] = at + shift;
}

static void seams_part(void *arg, int t, int threads) {
    refine_job *j = (refine_job *)arg;
    size_t lo, hi;
    part_range((size_t)j->n, t, threads, &lo, &hi);
    for (size_t b = lo; b < hi; b++) { /* start[b] has one writer: b - 1 where a seam lies before b, else b */
        if (!j->seam[b])
            j->start[b] = j->x0[b];
        if (b + 1 < (size_t)j->n && j->seam[b + 1])
            place_seam(j, (int64_t)b);
        else
            j->end[b] = j->xe[b];
    }
}

/* A piece [from, to) of block b (query positions), its ends moved past tandem runs; counted, and
 * written in fill mode, unless nothing is left of it. */
static inline void piece(refine_job *j, int64_t b, int64_t from, int64_t to, int64_t *pieces, int64_t *at) {
    const uint8_t *q = query_of(j, b), *r = reference_of(j, b);
    if (j->tandem && !j->plain[b] && !past_tandems(q, j->tandem, &from, &to))
        return;
    if (j->fill == 1) {
        int64_t ids = 0;
        for (int64_t k = from; k < to; k++)
            ids += q[k] == r[k] && q[k] != N_CODE;
        j->pblock[*at] = b, j->px0[*at] = from, j->pxe[*at] = to, j->pids[*at] = ids;
        (*at)++;
    }
    (*pieces)++;
}

static void pieces_part(void *arg, int t, int threads) {
    refine_job *j = (refine_job *)arg;
    size_t lo, hi;
    part_range((size_t)j->n, t, threads, &lo, &hi);
    for (size_t b = lo; b < hi; b++) {
        if (j->fill == 2 && !j->plain[b])
            continue;
        const uint8_t *q = query_of(j, (int64_t)b), *r = reference_of(j, (int64_t)b);
        const int64_t first = j->start[b], last = j->end[b];
        int64_t pieces = 0, kept = 0, at = j->fill == 1 ? j->count[b] : 0;
        int64_t seg = first, peak = first, high = 0, score = 0, i = first;
        while (i < last) {
            score += column_score(j, q[i], r[i]);
            i++;
            if (score > high) {
                high = score, peak = i;
            } else if (j->drop && score <= high - j->drop) {
                /* a drop: from the peak to the last place of its lowest point before the score
                 * rises drop above it */
                int64_t low = score, bottom = i, k = i, run = score;
                while (k < last) {
                    run += column_score(j, q[k], r[k]);
                    k++;
                    if (run >= low + j->drop)
                        break;
                    if (run <= low)
                        low = run, bottom = k;
                }
                if (peak > seg)
                    piece(j, (int64_t)b, seg, peak, &pieces, &at), kept++;
                seg = peak = i = bottom;
                high = score = low;
            }
        }
        if (last > seg)
            piece(j, (int64_t)b, seg, last, &pieces, &at);
        else if (kept == 0) /* a block cut whole is kept whole */
            piece(j, (int64_t)b, first, last, &pieces, &at);
        if (j->fill != 1)
            j->count[b] = pieces;
    }
}

/* chain_seams(q, rf, rr, qpos, rpos, x0, xe, y0, trim, seam, strand, match, mismatch, n_score, start,
 * end, threads): each block's query start and end once the seams between overlapping blocks are
 * placed. chain_pieces(q, rf, rr, qpos, rpos, x0, y0, start, end, strand, plain, match, block_mismatch,
 * n_score, drop, tandem, count, fill, pblock, px0, pxe, pids, threads): the pieces of every block cut
 * at its drops (a mismatch scoring block_mismatch), their ends moved past tandem runs of at least
 * `tandem` bases (0: none; plain[b]: not b's), counted (count[b]; fill 0, or 2: only the blocks plain
 * marks) or written from count[b] on (fill 1): each piece's block, query start and end on the
 * block's diagonal, and identical columns. Blocks in chain order, with the start of each in the query
 * codes and in the codes of its strand. */
PyObject *py_chain_seams(PyObject *self, PyObject *args) {
    Py_buffer b[13];
    long long match, mismatch, n_score;
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*LLLw*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                          &b[7], &b[8], &b[9], &b[10], &match, &mismatch, &n_score, &b[11], &b[12], &threads))
        return NULL;
    const int64_t n = b[3].len / 8;
    int ok = check_items(&b[9], "chain_seams", 1, n) && check_items(&b[10], "chain_seams", 1, n);
    for (int k = 3; k < 13 && ok; k++)
        ok = k == 9 || k == 10 || check_items(&b[k], "chain_seams", 8, n);
    if (ok) {
        refine_job j = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf, b[7].buf, b[8].buf,
                        b[9].buf, b[10].buf, n, match, mismatch, n_score, 0, 0, NULL, b[11].buf, b[12].buf};
        Py_BEGIN_ALLOW_THREADS
        run_parallel(seams_part, &j, threads < 1 ? 1 : threads);
        Py_END_ALLOW_THREADS
    }
    return release_buffers(b, 13, ok);
}

PyObject *py_chain_pieces(PyObject *self, PyObject *args) {
    Py_buffer b[16];
    long long match, block_mismatch, n_score, drop, tandem;
    int fill, threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*LLLLLw*iw*w*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
                          &b[6], &b[7], &b[8], &b[9], &b[10], &match, &block_mismatch, &n_score, &drop, &tandem,
                          &b[11], &fill, &b[12], &b[13], &b[14], &b[15], &threads))
        return NULL;
    const int64_t n = b[3].len / 8;
    int ok = drop >= 0 && tandem >= 0 && fill >= 0 && fill <= 2 && check_items(&b[9], "chain_pieces", 1, n) &&
             check_items(&b[10], "chain_pieces", 1, n) && check_items(&b[11], "chain_pieces", 8, n);
    for (int k = 4; k < 9 && ok; k++)
        ok = check_items(&b[k], "chain_pieces", 8, n);
    if (!ok)
        return release_buffers(b, 16, PyErr_Occurred() ? 0 : (PyErr_SetString(PyExc_ValueError, "chain_pieces"), 0));
    /* xe, trim and seam are the seams' pass's only */
    refine_job j = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, NULL, b[6].buf, NULL, NULL,
                    b[9].buf, n, match, block_mismatch, n_score, drop, tandem, b[10].buf, b[7].buf, b[8].buf,
                    b[11].buf, b[12].buf, b[13].buf, b[14].buf, b[15].buf, fill};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(pieces_part, &j, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    return release_buffers(b, 16, 1);
}
