/* A genome's codes at two bits a base (the workflow's index, workflow/genome.py): bases packed four to a
 * byte, the runs of N beside them; and back. Each on threads, a part of the bases a thread. */
#include "cpu.h"

#include <pthread.h>
#include <string.h>

/* ---- Packing: base i's code (0..3; N and borders as their low two bits, written again from the runs
 * and the layout) at bits 2 (i % 4) of byte i / 4. */

typedef struct {
    uint8_t *packed;
    const uint8_t *codes;
    int64_t bytes, size;
} pack_job;

static void pack_part(void *p, int t, int threads) {
    pack_job *j = (pack_job *)p;
    size_t lo, hi;
    part_range((size_t)j->bytes, t, threads, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        uint8_t byte = 0;
        for (int k = 0; k < 4; k++) {
            const int64_t at = (int64_t)i * 4 + k;
            if (at < j->size)
                byte |= (uint8_t)((j->codes[at] & 3) << (2 * k));
        }
        j->packed[i] = byte;
    }
}

/* pack_codes(packed, codes, threads): codes (a byte a base) packed into packed ((len + 3) // 4 bytes). */
PyObject *py_pack_codes(PyObject *self, PyObject *args) {
    Py_buffer b[2];
    int threads;
    if (!PyArg_ParseTuple(args, "w*y*i", &b[0], &b[1], &threads))
        return NULL;
    int ok = b[0].len == (b[1].len + 3) / 4;
    if (ok) {
        pack_job j = {b[0].buf, b[1].buf, (int64_t)b[0].len, (int64_t)b[1].len};
        Py_BEGIN_ALLOW_THREADS
        run_parallel(pack_part, &j, byte_threads(j.size, threads));
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "pack_codes: the packed buffer is not a quarter of the codes");
    }
    return release_buffers(b, 2, ok);
}

typedef struct {
    uint8_t *out;
    const uint8_t *packed;
    int64_t first, size;
} unpack_job;

/* a packed byte's four codes, as the four bytes they are written as */
static uint8_t FOUR[256][4];
static pthread_once_t four_once = PTHREAD_ONCE_INIT;

static void make_four(void) {
    for (int byte = 0; byte < 256; byte++)
        for (int k = 0; k < 4; k++)
            FOUR[byte][k] = (uint8_t)((byte >> (2 * k)) & 3);
}

static inline uint8_t code_at(const uint8_t *packed, int64_t at) {
    return (uint8_t)((packed[at >> 2] >> (2 * (at & 3))) & 3);
}

static void unpack_part(void *p, int t, int threads) {
    unpack_job *j = (unpack_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    size_t i = lo;
    for (; i < hi && ((j->first + (int64_t)i) & 3); i++)  /* up to the next whole packed byte */
        j->out[i] = code_at(j->packed, j->first + (int64_t)i);
    for (; i + 4 <= hi; i += 4)  /* a packed byte's four codes at once */
        memcpy(j->out + i, FOUR[j->packed[(j->first + (int64_t)i) >> 2]], 4);
    for (; i < hi; i++)
        j->out[i] = code_at(j->packed, j->first + (int64_t)i);
}

/* unpack_codes(out, packed, first, threads): the codes of bases first .. first + len(out) of packed. */
PyObject *py_unpack_codes(PyObject *self, PyObject *args) {
    Py_buffer b[2];
    long long first;
    int threads;
    if (!PyArg_ParseTuple(args, "w*y*Li", &b[0], &b[1], &first, &threads))
        return NULL;
    int ok = first >= 0 && (first + (long long)b[0].len + 3) / 4 <= (long long)b[1].len;
    if (ok) {
        pthread_once(&four_once, make_four);
        unpack_job j = {b[0].buf, b[1].buf, (int64_t)first, (int64_t)b[0].len};
        Py_BEGIN_ALLOW_THREADS
        run_parallel(unpack_part, &j, byte_threads(j.size, threads));
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "unpack_codes: bases past the packed buffer's end");
    }
    return release_buffers(b, 2, ok);
}

/* ---- Runs of one value (N): a part a thread finds the runs that start in it (a run starts where the
 * value follows another byte), counted first, then written at the places the counts give. */

typedef struct {
    const uint8_t *codes;
    int64_t size;
    uint8_t value;
    int64_t *counts;  /* a thread's runs (counting), then where its first one goes (writing) */
    int64_t *starts, *ends;
} runs_job;

static inline int run_starts(const runs_job *j, size_t i) {
    return j->codes[i] == j->value && (i == 0 || j->codes[i - 1] != j->value);
}

static void count_part(void *p, int t, int threads) {
    runs_job *j = (runs_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    int64_t n = 0;
    for (size_t i = lo; i < hi; i++)
        n += run_starts(j, i);
    j->counts[t] = n;
}

static void write_part(void *p, int t, int threads) {
    runs_job *j = (runs_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    int64_t at = j->counts[t];
    for (size_t i = lo; i < hi; i++) {
        if (!run_starts(j, i))
            continue;
        size_t end = i + 1;
        while (end < (size_t)j->size && j->codes[end] == j->value)
            end++;
        j->starts[at] = (int64_t)i;
        j->ends[at++] = (int64_t)end;
    }
}

/* value_runs(codes, value, threads) -> (starts, ends): the maximal runs of the value in codes, as
 * bytearrays of int64, in order. */
PyObject *py_value_runs(PyObject *self, PyObject *args) {
    Py_buffer b;
    int value, threads;
    if (!PyArg_ParseTuple(args, "y*ii", &b, &value, &threads))
        return NULL;
    threads = byte_threads((int64_t)b.len, threads);
    runs_job j = {b.buf, (int64_t)b.len, (uint8_t)value, calloc((size_t)threads, sizeof(int64_t)), NULL, NULL};
    PyObject *starts = NULL, *ends = NULL;
    if (!j.counts) {
        PyBuffer_Release(&b);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    run_parallel(count_part, &j, threads);
    Py_END_ALLOW_THREADS
    int64_t total = 0;
    for (int t = 0; t < threads; t++) {
        const int64_t n = j.counts[t];
        j.counts[t] = total;
        total += n;
    }
    starts = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(total * 8));
    ends = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(total * 8));
    if (starts && ends) {
        j.starts = (int64_t *)PyByteArray_AS_STRING(starts);
        j.ends = (int64_t *)PyByteArray_AS_STRING(ends);
        Py_BEGIN_ALLOW_THREADS
        run_parallel(write_part, &j, threads);
        Py_END_ALLOW_THREADS
    }
    free(j.counts);
    PyBuffer_Release(&b);
    if (!starts || !ends) {
        Py_XDECREF(starts);
        Py_XDECREF(ends);
        return NULL;
    }
    return Py_BuildValue("(NN)", starts, ends);
}
