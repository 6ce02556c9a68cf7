/* words on the CPU: the key of every window made only of A, C, G, T, rolled one base at a time
 * (2 bits a base, the first base highest), and its start; or, for the exact-match modes
 * (matches.py), of every window without a border, 3 bits a symbol (N is a symbol there). Threads take equal ranges of window
 * starts: each counts its windows, then writes them after the windows of the ranges before it,
 * so the words come out in position order, as words.py's NumPy code gives them. The sort by key
 * is cpu.c's radix sort. */
#include "cpu.h"

#include <stdlib.h>

typedef struct {
    const uint8_t *codes;
    int64_t windows;  /* window starts 0..windows-1 */
    int k, bits;      /* bits a symbol: 2 (ACGT words) or 3 (match words) */
    uint64_t *keys;
    char *positions;
    int position_size;
    int64_t *counts;  /* windows kept by each thread, then where each thread writes */
    int fill;
} job;

/* Count (fill 0) or write (fill 1) the ACGT windows starting in part t. */
static void words_part(void *p, int t, int threads) {
    job *j = (job *)p;
    size_t lo, hi;
    part_range((size_t)j->windows, t, threads, &lo, &hi);
    const int k = j->k, bits = j->bits;
    const uint8_t top = bits == 2 ? 3 : BORDER - 1;  /* the highest code a word may hold */
    const uint64_t mask = bits * k == 64 ? ~(uint64_t)0 : (((uint64_t)1 << (bits * k)) - 1);
    uint64_t key = 0;
    int run = 0;  /* ACGT bases ending at i */
    int64_t at = j->fill ? j->counts[t] : 0;
    for (size_t i = lo; i < hi + (size_t)k - 1; i++) {
        uint8_t c = j->codes[i];
        if (c > top) {
            run = 0;
            continue;
        }
        key = ((key << bits) | c) & mask;
        if (++run < k)
            continue;
        int64_t start = (int64_t)i - k + 1;
        if ((size_t)start < lo)  /* the range's first windows are read from lo on */
            continue;
        if (j->fill) {
            j->keys[at] = key;
            if (j->position_size == 4)
                ((int32_t *)j->positions)[at] = (int32_t)start;
            else
                ((int64_t *)j->positions)[at] = start;
        }
        at++;
    }
    if (!j->fill)
        j->counts[t] = at;
}

static int64_t count(job *j, int threads) {
    run_parallel(words_part, j, threads);
    return exclusive_sum(j->counts, threads);
}

static int threads_for(int64_t windows, int threads) {
    int most = (int)(windows / (1 << 20)) + 1;  /* at least a million windows a thread */
    if (threads > most)
        threads = most;
    return threads < 1 ? 1 : threads > 64 ? 64 : threads;
}

/* count_words(codes, k, bits) -> the number of words: windows made only of ACGT (bits 2) or without a
 * border (bits 3). */
PyObject *py_count_words(PyObject *self, PyObject *args) {
    Py_buffer codes;
    int k, bits;
    if (!PyArg_ParseTuple(args, "y*ii", &codes, &k, &bits))
        return NULL;
    int64_t counts[64];
    job j = {codes.buf, codes.len - k + 1, k, bits, NULL, NULL, 0, counts, 0};
    int64_t total = 0;
    if (j.windows > 0) {
        int threads = threads_for(j.windows, 64);
        Py_BEGIN_ALLOW_THREADS
        total = count(&j, threads);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&codes);
    return PyLong_FromLongLong(total);
}

/* word_keys(codes, k, bits, keys, positions, threads): keys uint64 and positions (int32 or int64) of
 * every word in position order; the arrays hold exactly count_words(codes, k, bits) items. */
PyObject *py_word_keys(PyObject *self, PyObject *args) {
    Py_buffer codes, keys, positions;
    int k, bits, threads;
    if (!PyArg_ParseTuple(args, "y*iiw*w*i", &codes, &k, &bits, &keys, &positions, &threads))
        return NULL;
    int64_t counts[64];
    int64_t n = keys.len / 8;
    int position_size = n ? (int)(positions.len / n) : 8;
    job j = {codes.buf, codes.len - k + 1, k, bits, keys.buf, positions.buf, position_size, counts, 0};
    int ok = (position_size == 4 || position_size == 8) && check_items(&positions, "positions", position_size, n)
             && (bits == 2 || bits == 3) && k >= 1 && k * bits <= 64;
    if (ok && j.windows > 0) {
        threads = threads_for(j.windows, threads);
        int64_t total;
        Py_BEGIN_ALLOW_THREADS
        total = count(&j, threads);
        if (total == n) {
            j.fill = 1;
            run_parallel(words_part, &j, threads);
        }
        Py_END_ALLOW_THREADS
        ok = total == n;
    }
    PyBuffer_Release(&codes), PyBuffer_Release(&keys), PyBuffer_Release(&positions);
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "word_keys: arrays of count_words(codes, k, bits) items, positions of 4 "
                                              "or 8 bytes, bits 2 or 3, 1 <= k * bits <= 64 expected");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ---- words_in: the words whose position lies in [lo, hi), kept in their (key) order. Threads take
 * equal parts of the list, count their words in the window, then copy them after the parts before. */

typedef struct {
    const uint64_t *keys;
    const char *positions;
    int position_size;
    int64_t n, lo, hi;
    uint64_t *keys_out;
    char *positions_out;
    int64_t *counts;
    int fill;
} window;

static void window_part(void *p, int t, int threads) {
    window *w = (window *)p;
    size_t a, b;
    part_range((size_t)w->n, t, threads, &a, &b);
    int64_t at = w->fill ? w->counts[t] : 0;
    if (w->position_size == 4) {
        const int32_t *pos = (const int32_t *)w->positions;
        int32_t *out = (int32_t *)w->positions_out;
        for (size_t i = a; i < b; i++)
            if (pos[i] >= w->lo && pos[i] < w->hi) {
                if (w->fill)
                    w->keys_out[at] = w->keys[i], out[at] = pos[i];
                at++;
            }
    } else {
        const int64_t *pos = (const int64_t *)w->positions;
        int64_t *out = (int64_t *)w->positions_out;
        for (size_t i = a; i < b; i++)
            if (pos[i] >= w->lo && pos[i] < w->hi) {
                if (w->fill)
                    w->keys_out[at] = w->keys[i], out[at] = pos[i];
                at++;
            }
    }
    if (!w->fill)
        w->counts[t] = at;
}

static int64_t count_in(window *w, int threads) {
    run_parallel(window_part, w, threads);
    return exclusive_sum(w->counts, threads);
}

/* words_in(keys, positions, position_size, lo, hi, keys_out or None, positions_out or None, threads)
 * -> the words in [lo, hi): counted only when the outputs are None, else copied into them. */
PyObject *py_words_in(PyObject *self, PyObject *args) {
    Py_buffer keys, positions, keys_out = {0}, positions_out = {0};
    PyObject *keys_obj, *positions_obj;
    int position_size, threads;
    long long lo, hi;
    if (!PyArg_ParseTuple(args, "y*y*iLLOOi", &keys, &positions, &position_size, &lo, &hi, &keys_obj, &positions_obj,
                          &threads))
        return NULL;
    int64_t counts[64];
    window w = {keys.buf, positions.buf, position_size, keys.len / 8, lo, hi, NULL, NULL, counts, 0};
    int fill = keys_obj != Py_None, ok = (position_size == 4 || position_size == 8)
                                          && check_items(&positions, "positions", position_size, w.n);
    if (ok && fill) {
        ok = PyObject_GetBuffer(keys_obj, &keys_out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) == 0;
        if (ok && PyObject_GetBuffer(positions_obj, &positions_out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&keys_out);
            ok = 0;
        }
        fill = ok;
    }
    int64_t total = 0;
    if (ok) {
        threads = threads_for(w.n, threads);
        Py_BEGIN_ALLOW_THREADS
        total = count_in(&w, threads);
        Py_END_ALLOW_THREADS
        if (fill) {
            ok = check_items(&keys_out, "keys_out", 8, total)
                 && check_items(&positions_out, "positions_out", position_size, total);
            if (ok) {
                w.keys_out = keys_out.buf, w.positions_out = positions_out.buf, w.fill = 1;
                Py_BEGIN_ALLOW_THREADS
                run_parallel(window_part, &w, threads);
                Py_END_ALLOW_THREADS
            }
            PyBuffer_Release(&keys_out), PyBuffer_Release(&positions_out);
        }
    }
    PyBuffer_Release(&keys), PyBuffer_Release(&positions);
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "words_in: positions of 4 or 8 bytes expected");
        return NULL;
    }
    return PyLong_FromLongLong(total);
}

/* ---- drop_frequent: fast mode's filter over sorted words (keys, ties in position order). A group is
 * the words of one key in one record (the records start at starts[], sorted); groups of more than
 * max_freq words are dropped, the rest moved down in place, in order. One pass: within a key's run
 * the positions ascend, so each group's record is looked up once. */

static int64_t record_of(const int64_t *starts, int64_t records, int64_t p) {
    int64_t lo = 0, hi = records;  /* the number of starts <= p */
    while (lo < hi) {
        const int64_t m = lo + (hi - lo) / 2;
        if (starts[m] <= p)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

#define DROP_FREQUENT                                                                                   \
    for (int64_t i = 0; i < n;) {                                                                       \
        const int64_t rec = record_of(starts, records, (int64_t)pos[i]);                                \
        const int64_t next = rec < records ? starts[rec] : INT64_MAX;                                   \
        int64_t j = i + 1;                                                                              \
        while (j < n && keys[j] == keys[i] && (int64_t)pos[j] < next)                                   \
            j++;                                                                                        \
        if (j - i <= max_freq)                                                                          \
            for (int64_t t = i; t < j; t++, kept++)                                                     \
                keys[kept] = keys[t], pos[kept] = pos[t];                                               \
        i = j;                                                                                          \
    }

/* drop_frequent(keys, positions, position_size, starts, max_freq) -> the words kept, now the first
 * items of keys and positions. */
PyObject *py_drop_frequent(PyObject *self, PyObject *args) {
    Py_buffer keys_buf, positions, starts_buf;
    int position_size;
    long long max_freq;
    if (!PyArg_ParseTuple(args, "w*w*iy*L", &keys_buf, &positions, &position_size, &starts_buf, &max_freq))
        return NULL;
    const int64_t n = keys_buf.len / 8, records = starts_buf.len / 8;
    int ok = (position_size == 4 || position_size == 8) && check_items(&positions, "positions", position_size, n)
             && max_freq >= 0;
    int64_t kept = 0;
    if (ok) {
        uint64_t *keys = (uint64_t *)keys_buf.buf;
        const int64_t *starts = (const int64_t *)starts_buf.buf;
        Py_BEGIN_ALLOW_THREADS
        if (position_size == 4) {
            int32_t *pos = (int32_t *)positions.buf;
            DROP_FREQUENT
        } else {
            int64_t *pos = (int64_t *)positions.buf;
            DROP_FREQUENT
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&keys_buf), PyBuffer_Release(&positions), PyBuffer_Release(&starts_buf);
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "drop_frequent: positions of 4 or 8 bytes, max_freq >= 0 expected");
        return NULL;
    }
    return PyLong_FromLongLong(kept);
}
