/* Large byte operations on threads, each part of the work its own thread's: a file read
 * (fasta.py's read_bytes), whether a file holds a byte (fasta.py's holds), a copy into pinned buffers
 * (arrays.py's to_device), spans of codes set to one value (matches_runs.py's _blanked). */
#include "cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((size_t)1 << 21)

/* ---- A large file read on threads (fasta.py's read_bytes): each part's pages touched and copied by
 * its own thread. */

typedef struct {
    int fd;
    char *buf;
    int64_t size;
    int failed;
} read_job;

static void read_part(void *p, int t, int threads) {
    read_job *r = (read_job *)p;
    size_t lo, hi;
    part_range((size_t)r->size, t, threads, &lo, &hi);
    while (lo < hi) {
        ssize_t got = pread(r->fd, r->buf + lo, hi - lo, (off_t)lo);
        if (got <= 0) {
            __atomic_store_n(&r->failed, got < 0 ? errno : -1, __ATOMIC_RELAXED);
            return;
        }
        lo += (size_t)got;
    }
}

/* read_file(path, size, threads) -> bytes: the first `size` bytes of the file, read in `threads` parts
 * at once; OSError where the file cannot be read or is shorter. */
PyObject *py_read_file(PyObject *self, PyObject *args) {
    PyObject *path;
    long long size;
    int threads;
    if (!PyArg_ParseTuple(args, "O&Li", PyUnicode_FSConverter, &path, &size, &threads))
        return NULL;
    PyObject *out = size >= 0 ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size) : NULL;
    int fd = -1, error = 0;
    if (out && size >= HUGE_PAGE) {
        /* huge pages where the kernel gives them on request (as NumPy asks for its large arrays): a
         * 512th of the page faults while the file is read, and of the work when the bytes are freed */
        uintptr_t lo = ((uintptr_t)PyBytes_AS_STRING(out) + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        uintptr_t hi = ((uintptr_t)PyBytes_AS_STRING(out) + (uintptr_t)size) & ~(uintptr_t)(HUGE_PAGE - 1);
        if (hi > lo)
            madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
    if (out) {
        Py_BEGIN_ALLOW_THREADS
        fd = open(PyBytes_AS_STRING(path), O_RDONLY);
        if (fd < 0) {
            error = errno;
        } else {
            read_job r = {fd, PyBytes_AS_STRING(out), size, 0};
            run_parallel(read_part, &r, threads < 1 ? 1 : threads);
            error = r.failed;
            close(fd);
        }
        Py_END_ALLOW_THREADS
    }
    if (out && error) {
        Py_CLEAR(out);
        if (error > 0) {
            errno = error;
            PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
        } else {
            PyErr_SetString(PyExc_OSError, "the file ended before its size (changed while read?)");
        }
    }
    Py_DECREF(path);
    return out;
}

/* ---- Whether a large file holds a byte (fasta.py's holds): a part a thread, memchr on each. */

typedef struct {
    const uint8_t *data;
    int64_t size;
    int needle, found;
} holds_job;

static void holds_part(void *p, int t, int threads) {
    holds_job *j = (holds_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    if (hi > lo && memchr(j->data + lo, j->needle, hi - lo))
        __atomic_store_n(&j->found, 1, __ATOMIC_RELAXED);
}

/* holds_byte(data, byte, threads) -> bool: whether the byte (an int 0..255) occurs in data. */
PyObject *py_holds_byte(PyObject *self, PyObject *args) {
    Py_buffer b;
    int byte, threads;
    if (!PyArg_ParseTuple(args, "y*ii", &b, &byte, &threads))
        return NULL;
    holds_job j = {b.buf, (int64_t)b.len, byte & 0xff, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(holds_part, &j, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&b);
    return PyBool_FromLong(j.found);
}

/* ---- A large copy on threads (arrays.py's to_device: a file's bytes into the pinned buffers that go to
 * the device), a part a thread: one thread's memcpy moves a third of what the memory can. */

typedef struct {
    uint8_t *out;
    const uint8_t *data;
    int64_t size;
} copy_job;

static void copy_part(void *p, int t, int threads) {
    copy_job *j = (copy_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    memcpy(j->out + lo, j->data + lo, hi - lo);
}

/* copy_bytes(out, data, threads): data's bytes into out (at least as long). */
PyObject *py_copy_bytes(PyObject *self, PyObject *args) {
    Py_buffer b[2];
    int threads;
    if (!PyArg_ParseTuple(args, "w*y*i", &b[0], &b[1], &threads))
        return NULL;
    int ok = b[0].len >= b[1].len;
    if (ok) {
        copy_job j = {b[0].buf, b[1].buf, (int64_t)b[1].len};
        /* parts of at least 4 MiB: a thread's start costs more than copying less */
        int parts = (int)(b[1].len >> 22) + 1;
        Py_BEGIN_ALLOW_THREADS
        run_parallel(copy_part, &j, threads < 1 ? 1 : threads < parts ? threads : parts);
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "copy_bytes: the output is shorter than the data");
    }
    return release_buffers(b, 2, ok);
}

/* ---- Spans of codes set to one value (matches.py's _blanked: query records made borders), a part of the
 * spans a thread. */

typedef struct {
    uint8_t *codes;
    const int64_t *starts, *lengths;
    int64_t n;
    uint8_t value;
} fill_job;

static void fill_part(void *p, int t, int threads) {
    fill_job *j = (fill_job *)p;
    size_t lo, hi;
    part_range((size_t)j->n, t, threads, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        memset(j->codes + j->starts[i], j->value, (size_t)j->lengths[i]);
}

/* fill_spans(codes, starts, lengths, value, threads): codes[starts[i] .. starts[i] + lengths[i]) set to value. */
PyObject *py_fill_spans(PyObject *self, PyObject *args) {
    Py_buffer b[3];
    int value, threads;
    if (!PyArg_ParseTuple(args, "w*y*y*ii", &b[0], &b[1], &b[2], &value, &threads))
        return NULL;
    fill_job j = {b[0].buf, b[1].buf, b[2].buf, (int64_t)b[1].len / 8, (uint8_t)value};
    int ok = b[1].len == b[2].len;
    for (int64_t i = 0; ok && i < j.n; i++)
        ok = j.starts[i] >= 0 && j.lengths[i] >= 0 && j.starts[i] + j.lengths[i] <= b[0].len;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        run_parallel(fill_part, &j, threads < 1 ? 1 : threads);
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "fill_spans: a span outside the codes");
    }
    return release_buffers(b, 3, ok);
}
