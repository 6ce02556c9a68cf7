/* Spaced seeds on the CPU (spaced.py): the reference's window keys, each query window's hits counted
 * and written, each seed extended; the rules are spaced.h's, which spaced.cu includes too. Threads
 * take equal ranges of windows or seeds and write in order, so the rows come out as the device's. */
#include "cpu.h"
#include "spaced.h"

typedef struct {
    const uint8_t *codes, *rcodes;  /* rcodes: the reference strand's (spaced_counts, spaced_fill) */
    int64_t size, rsize, lo, hi;  /* windows [lo, hi) */
    uint64_t care;
    int span, variants;
    const uint64_t *rkeys;
    const int64_t *rpos, *buckets;
    int64_t nr;
    int shift;
    uint64_t *keys;         /* spaced_words */
    int64_t *positions;
    int64_t *counts;        /* per thread (spaced_words) or per window (spaced_counts) */
    const int64_t *offsets; /* spaced_fill: where each window's seeds go */
    int64_t *sq, *sr;
    int fill;
} windows;

/* Count (fill 0) or write (fill 1) the valid windows of part t. */
static void words_part(void *p, int t, int threads) {
    windows *w = (windows *)p;
    size_t lo, hi;
    part_range((size_t)(w->hi - w->lo), t, threads, &lo, &hi);
    int64_t at = w->fill ? w->counts[t] : 0;
    for (int64_t i = w->lo + (int64_t)lo; i < w->lo + (int64_t)hi; i++) {
        uint64_t key;
        if (!window_key(w->codes, w->size, i, w->care, w->span, &key))
            continue;
        if (w->fill)
            w->keys[at] = key, w->positions[at] = i;
        at++;
    }
    if (!w->fill)
        w->counts[t] = at;
}

static int threads_for(int64_t items, int threads) {
    int most = (int)(items / (1 << 14)) + 1;
    if (threads > most)
        threads = most;
    return threads < 1 ? 1 : threads > 64 ? 64 : threads;
}

/* spaced_words(codes, care, span, keys or None, positions or None, threads) -> the number of valid
 * windows; with arrays of that many items, their keys and starts written in position order. */
PyObject *py_spaced_words(PyObject *self, PyObject *args) {
    Py_buffer codes, keys = {0}, positions = {0};
    PyObject *keys_obj, *positions_obj;
    unsigned long long care;
    int span, threads;
    if (!PyArg_ParseTuple(args, "y*KiOOi", &codes, &care, &span, &keys_obj, &positions_obj, &threads))
        return NULL;
    int64_t counts[64];
    windows w = {.codes = codes.buf, .size = codes.len, .lo = 0, .hi = codes.len - span + 1 > 0 ? codes.len - span + 1 : 0,
                 .care = care, .span = span};
    w.counts = counts;
    int fill = keys_obj != Py_None, ok = 1;
    if (fill) {
        ok = PyObject_GetBuffer(keys_obj, &keys, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) == 0;
        if (ok && PyObject_GetBuffer(positions_obj, &positions, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&keys);
            ok = 0;
        }
        fill = ok;
    }
    int64_t total = 0;
    if (ok) {
        threads = threads_for(w.hi, threads);
        Py_BEGIN_ALLOW_THREADS
        run_parallel(words_part, &w, threads);
        total = exclusive_sum(counts, threads);
        if (fill && keys.len == total * 8 && positions.len == total * 8) {
            w.keys = keys.buf, w.positions = positions.buf, w.fill = 1;
            run_parallel(words_part, &w, threads);
        }
        Py_END_ALLOW_THREADS
        if (fill && !w.fill) {
            PyErr_SetString(PyExc_ValueError, "spaced_words: arrays of the count's items (uint64, int64) expected");
            ok = 0;
        }
    }
    if (fill)
        PyBuffer_Release(&keys), PyBuffer_Release(&positions);
    PyBuffer_Release(&codes);
    return ok ? PyLong_FromLongLong(total) : NULL;
}

/* Count (fill 0) or write (fill 1) the seeds of the windows of part t: every reference word whose key
 * is a variant of the window's (the shadowed ones are left out as they are extended). */
static void hits_part(void *p, int t, int threads) {
    windows *w = (windows *)p;
    size_t lo, hi;
    part_range((size_t)(w->hi - w->lo), t, threads, &lo, &hi);
    for (int64_t i = w->lo + (int64_t)lo; i < w->lo + (int64_t)hi; i++) {
        uint64_t key;
        int64_t n = 0, at = w->fill ? w->offsets[i - w->lo] : 0;
        if (window_key(w->codes, w->size, i, w->care, w->span, &key))
            for (int v = 0; v < w->variants; v++) {
                int64_t a, b;
                key_range(w->rkeys, w->buckets, w->shift, variant_key(key, v), &a, &b);
                if (w->fill)
                    for (int64_t j = a; j < b; j++)
                        w->sq[at] = i, w->sr[at] = w->rpos[j], at++;
                n += b - a;
            }
        if (!w->fill)
            w->counts[i - w->lo] = n;
    }
}

/* The reference index's arguments (rkeys, buckets, shift, rpos) checked and taken into w. */
static int take_index(windows *w, Py_buffer *keys, Py_buffer *buckets, int shift, Py_buffer *pos, uint64_t care) {
    w->rkeys = keys->buf, w->nr = keys->len / 8, w->buckets = buckets->buf, w->shift = shift, w->rpos = pos->buf;
    if (shift < 0 || shift > 63 || buckets->len != (int64_t)(((uint64_t)1 << (2 * __builtin_popcountll(care) - shift)) + 1) * 8) {
        PyErr_SetString(PyExc_ValueError, "spaced seeds: buckets of 2^(2 * weight - shift) + 1 offsets expected");
        return 0;
    }
    return check_items(pos, "positions", 8, w->nr);
}

static int parse_hits(PyObject *args, int fill, windows *w, Py_buffer *b, int *threads) {
    long long q0, q1;
    unsigned long long care;
    int transition, shift;
    int ok = fill ? PyArg_ParseTuple(args, "y*LLKiiy*y*iy*y*w*w*i", &b[0], &q0, &q1, &care, &w->span, &transition,
                                     &b[1], &b[6], &shift, &b[2], &b[3], &b[4], &b[5], threads)
                  : PyArg_ParseTuple(args, "y*LLKiiy*y*iy*w*i", &b[0], &q0, &q1, &care, &w->span, &transition, &b[1],
                                     &b[6], &shift, &b[2], &b[3], threads);
    if (!ok || !take_index(w, &b[1], &b[6], shift, &b[2], care))
        return 0;
    w->codes = b[0].buf, w->size = b[0].len, w->lo = q0, w->hi = q1, w->care = care;
    w->variants = transition ? __builtin_popcountll(care) + 1 : 1;
    w->fill = fill;
    if (fill) {
        w->offsets = b[3].buf, w->sq = b[4].buf, w->sr = b[5].buf;
        return check_items(&b[3], "offsets", 8, q1 - q0) && b[4].len == b[5].len;
    }
    w->counts = b[3].buf;
    return check_items(&b[3], "counts", 8, q1 - q0);
}

/* The seeds of windows [q0, q1) counted (fill 0) or written (fill 1), on threads. */
static PyObject *hits(PyObject *args, int fill) {
    Py_buffer b[7] = {{0}};
    windows w = {0};
    int threads;
    int ok = parse_hits(args, fill, &w, b, &threads);
    if (ok) {
        threads = threads_for(w.hi - w.lo, threads);
        Py_BEGIN_ALLOW_THREADS
        run_parallel(hits_part, &w, threads);
        Py_END_ALLOW_THREADS
    }
    return release_buffers(b, 7, ok);
}

/* spaced_counts(qcodes, q0, q1, care, span, transition, rkeys, buckets, shift, rpos, counts, threads):
 * counts[i - q0] the seeds of query window i, for i in [q0, q1). */
PyObject *py_spaced_counts(PyObject *self, PyObject *args) { return hits(args, 0); }

/* spaced_fill(qcodes, q0, q1, care, span, transition, rkeys, buckets, shift, rpos, offsets, sq, sr,
 * threads): the seeds spaced_counts counts of windows [q0, q1), window i's from offsets[i - q0] on, as
 * (query start, reference start). */
PyObject *py_spaced_fill(PyObject *self, PyObject *args) { return hits(args, 1); }

typedef struct {
    const uint8_t *qc, *rc, *qseed, *rseed;
    int64_t qn, rn, n;
    const int64_t *sq, *sr;
    int span, xdrop, entropy, transition;
    int64_t threshold;
    windows index;  /* the reference index and care (take_index) */
    int64_t *qstart, *qend, *score, *ids;
} seeds_job;

static void extend_part(void *p, int t, int threads) {
    seeds_job *j = (seeds_job *)p;
    const windows *x = &j->index;
    size_t lo, hi;
    part_range((size_t)j->n, t, threads, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        if (shadowed(j->qseed, j->qn, j->rseed, j->rn, j->sq[i], j->sr[i], x->care, j->span, j->transition, x->rkeys,
                     x->rpos, x->buckets, x->shift)) {
            j->score[i] = -1, j->qstart[i] = j->qend[i] = j->ids[i] = 0;
            continue;
        }
        spaced_hsp(j->qc, j->qn, j->rc, j->rn, j->sq[i], j->sr[i], j->span, j->xdrop, j->entropy, j->threshold, 0,
                   &j->score[i], &j->qstart[i], &j->qend[i], &j->ids[i]);
    }
}

/* spaced_extend(qcodes, rcodes, qseed, rseed, sq, sr, care, span, transition, rkeys, buckets, shift, rpos,
 * xdrop, entropy, threshold, qstart, qend, score, ids, threads): each seed's HSP (spaced_hsp), int64 columns, or
 * score -1 where a seed shadows it (spaced.h shadowed, on the seed codes qseed and rseed). */
PyObject *py_spaced_extend(PyObject *self, PyObject *args) {
    Py_buffer b[13] = {{0}};
    seeds_job j = {0};
    unsigned long long care;
    int threads, shift;
    long long threshold;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*Kiiy*y*iy*iiLw*w*w*w*i", &b[0], &b[1], &b[8], &b[9], &b[2], &b[3], &care,
                          &j.span, &j.transition, &b[10], &b[11], &shift, &b[12], &j.xdrop, &j.entropy, &threshold, &b[4], &b[5],
                          &b[6], &b[7], &threads))
        return NULL;
    j.qc = b[0].buf, j.qn = b[0].len, j.rc = b[1].buf, j.rn = b[1].len, j.n = b[2].len / 8;
    j.qseed = b[8].buf, j.rseed = b[9].buf;
    j.sq = b[2].buf, j.sr = b[3].buf, j.qstart = b[4].buf, j.qend = b[5].buf, j.score = b[6].buf, j.ids = b[7].buf;
    j.index.care = care;
    j.threshold = threshold;
    int ok = take_index(&j.index, &b[10], &b[11], shift, &b[12], care);
    if (ok && (b[8].len != j.qn || b[9].len != j.rn)) {
        PyErr_SetString(PyExc_ValueError, "spaced_extend: seed codes as long as the codes expected");
        ok = 0;
    }
    for (int k = 3; k < 8; k++)
        ok = ok && check_items(&b[k], "seed columns", 8, j.n);
    if (ok && j.n) {
        threads = threads_for(j.n, threads);
        Py_BEGIN_ALLOW_THREADS
        run_parallel(extend_part, &j, threads);
        Py_END_ALLOW_THREADS
    }
    return release_buffers(b, 13, ok);
}
