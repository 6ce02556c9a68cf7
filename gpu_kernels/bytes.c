/* Large byte operations on threads, each part of the work its own thread's: a file read
 * (fasta.py's read_bytes), whether a file holds a byte (fasta.py's holds), a copy into pinned buffers
 * (arrays.py's to_device), spans of codes set to one value (matches_runs.py's _blanked), codes' reverse complement (seqset.py's
 * reverse_complement), spans gathered into one buffer (formats/strings.py's take_strings; a SAM line's
 * SEQ, codes written as letters), bytes of a set counted in spans (workflow/genome.py's scan_fasta). */
#include "cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((size_t)1 << 21)

/* Threads for a pass over `bytes` bytes: parts of at least 4 MiB, a thread's start costing more than less. */
int byte_threads(int64_t bytes, int threads) {
    const int parts = (int)(bytes >> 22) + 1;
    return threads < 1 ? 1 : threads < parts ? threads : parts;
}

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
        Py_BEGIN_ALLOW_THREADS
        run_parallel(copy_part, &j, byte_threads((int64_t)b[1].len, threads));
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

/* ---- Codes' reverse complement (seqset.py's reverse_complement: a whole genome's reference strand for
 * the alignments' stages and texts), a part of the output a thread. */

typedef struct {
    uint8_t *out;
    const uint8_t *codes;
    int64_t size;
    uint8_t complement[256];
} reverse_job;

static void reverse_part(void *p, int t, int threads) {
    reverse_job *j = (reverse_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    const uint8_t *from = j->codes + j->size - 1;
    for (size_t i = lo; i < hi; i++)
        j->out[i] = j->complement[from[-(int64_t)i]];
}

/* reverse_complement(out, codes, complement, threads): out[i] = complement[codes[n - 1 - i]] (out as long
 * as codes; complement a table of 256 bytes). */
PyObject *py_reverse_complement(PyObject *self, PyObject *args) {
    Py_buffer b[3];
    int threads;
    if (!PyArg_ParseTuple(args, "w*y*y*i", &b[0], &b[1], &b[2], &threads))
        return NULL;
    int ok = b[0].len == b[1].len && b[2].len == 256;
    if (ok && b[1].len) {
        reverse_job j = {b[0].buf, b[1].buf, (int64_t)b[1].len, {0}};
        memcpy(j.complement, b[2].buf, 256);
        Py_BEGIN_ALLOW_THREADS
        run_parallel(reverse_part, &j, byte_threads((int64_t)b[1].len, threads));
        Py_END_ALLOW_THREADS
    } else if (!ok) {
        PyErr_SetString(PyExc_ValueError, "reverse_complement: out and codes differ in length, or the table is not 256 bytes");
    }
    return release_buffers(b, 3, ok);
}

/* ---- Spans laid in order along a buffer (the output of a gather, the records of a scan), each thread
 * taking the spans that cross its part of the buffer. */

/* The first of n spans that ends past lo: span i ends at ends[i], or at starts[i] + lengths[i] where
 * ends is NULL (the spans ascend and do not overlap). */
static int64_t first_past(const int64_t *starts, const int64_t *lengths, const int64_t *ends, int64_t n, size_t lo) {
    int64_t first = 0, last = n;
    while (first < last) {
        const int64_t mid = first + (last - first) / 2;
        if ((size_t)(ends ? ends[mid] : starts[mid] + lengths[mid]) <= lo)
            first = mid + 1;
        else
            last = mid;
    }
    return first;
}

/* Whether n spans read at starts[i] (in data_len bytes) and written at at[i] (in out_len bytes), lengths[i]
 * long, lie inside both buffers, the written ones ascending and not overlapping. */
static int spans_fit(const int64_t *starts, const int64_t *lengths, const int64_t *at, int64_t n, int64_t data_len,
                     int64_t out_len) {
    for (int64_t i = 0; i < n; i++)
        if (starts[i] < 0 || lengths[i] < 0 || at[i] < 0 || starts[i] + lengths[i] > data_len ||
            at[i] + lengths[i] > out_len || (i > 0 && at[i - 1] + lengths[i - 1] > at[i]))
            return 0;
    return 1;
}

/* ---- Spans gathered into one buffer (formats/strings.py's take_strings: the alignments' texts taken from
 * the compare jobs' tables in the pair's order; formats/alignments.py's sam_seq: a SAM line's SEQ, the
 * query's codes written as letters, reverse-complemented on the reverse strand), the output cut into parts
 * of equal bytes, a part a thread: a few spans are most of the bytes. */

typedef struct {
    uint8_t *out;
    const uint8_t *data, *reverse, *forward_table, *reverse_table;  /* no tables: the bytes copied */
    const int64_t *starts, *lengths, *at;
    int64_t n, total;
} gather_job;

static void gather_part(void *p, int t, int threads) {
    gather_job *j = (gather_job *)p;
    size_t lo, hi;
    part_range((size_t)j->total, t, threads, &lo, &hi);
    for (int64_t i = first_past(j->at, j->lengths, NULL, j->n, lo); i < j->n && (size_t)j->at[i] < hi; i++) {
        /* each span's overlap with [lo, hi) */
        const size_t a = (size_t)j->at[i], b = a + (size_t)j->lengths[i];
        const size_t from = a > lo ? a : lo, to = b < hi ? b : hi;
        const uint8_t *data = j->data + j->starts[i];
        if (to <= from)
            continue;
        if (!j->forward_table) {
            memcpy(j->out + from, data + (from - a), to - from);
        } else if (j->reverse[i]) {  /* output k is the table's value of data[length - 1 - k] */
            const int64_t end = j->lengths[i] - 1;
            for (size_t k = from; k < to; k++)
                j->out[k] = j->reverse_table[data[end - (int64_t)(k - a)]];
        } else {
            for (size_t k = from; k < to; k++)
                j->out[k] = j->forward_table[data[k - a]];
        }
    }
}

/* gather_spans(out, data, starts, lengths, at, reverse, forward_table, reverse_table, threads):
 * data[starts[i] .. + lengths[i]) written to out[at[i] ..] for every i (int64 arrays of one length; every
 * span inside data and out, the output spans ascending, none overlapping the next): copied where the
 * tables are empty, else each byte as forward_table[byte], or where reverse[i] (int8) backwards as
 * reverse_table[byte] (tables of 256 bytes). */
PyObject *py_gather_spans(PyObject *self, PyObject *args) {
    Py_buffer b[8];
    int threads;
    if (!PyArg_ParseTuple(args, "w*y*y*y*y*y*y*y*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &threads))
        return NULL;
    const int tables = b[6].len > 0;
    gather_job j = {b[0].buf, b[1].buf, b[5].buf, tables ? b[6].buf : NULL, tables ? b[7].buf : NULL, b[2].buf,
                    b[3].buf, b[4].buf, (int64_t)b[2].len / 8, (int64_t)b[0].len};
    int ok = b[2].len == b[3].len && b[2].len == b[4].len &&
             (tables ? b[5].len == b[2].len / 8 && b[6].len == 256 && b[7].len == 256 : b[7].len == 0) &&
             spans_fit(j.starts, j.lengths, j.at, j.n, (int64_t)b[1].len, (int64_t)b[0].len);
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        run_parallel(gather_part, &j, byte_threads(j.total, threads));
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "gather_spans: a span outside its buffer or out of order, or a bad table");
    }
    return release_buffers(b, 8, ok);
}

/* ---- Bytes of a set counted in spans of a buffer (workflow/genome.py's scan_fasta: a record's line
 * breaks and blanks, its length the rest), the buffer cut into parts of equal bytes, a part a thread. */

typedef struct {
    const uint8_t *data;
    const int64_t *starts, *ends;
    const uint8_t *table;
    int64_t *counts;
    int64_t n, size;
} count_job;

static void count_part(void *p, int t, int threads) {
    count_job *j = (count_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    for (int64_t i = first_past(j->starts, NULL, j->ends, j->n, lo); i < j->n && (size_t)j->starts[i] < hi; i++) {
        const size_t a = (size_t)j->starts[i] > lo ? (size_t)j->starts[i] : lo;
        const size_t b = (size_t)j->ends[i] < hi ? (size_t)j->ends[i] : hi;
        int64_t count = 0;
        for (size_t k = a; k < b; k++)
            count += j->table[j->data[k]];
        if (count)
            __atomic_fetch_add(&j->counts[i], count, __ATOMIC_RELAXED);
    }
}

/* count_in_spans(data, starts, ends, table, counts, threads): counts[i] += the bytes b of
 * data[starts[i] .. ends[i]) with table[b] == 1 (int64 spans, ascending and not overlapping; a table
 * of 256 bytes, each 0 or 1). */
PyObject *py_count_in_spans(PyObject *self, PyObject *args) {
    Py_buffer b[5];
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &threads))
        return NULL;
    count_job j = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, (int64_t)b[1].len / 8, (int64_t)b[0].len};
    int ok = b[1].len == b[2].len && b[1].len == b[4].len && b[3].len == 256;
    for (int64_t i = 0; ok && i < j.n; i++)
        ok = j.starts[i] >= 0 && j.starts[i] <= j.ends[i] && j.ends[i] <= j.size &&
             (i == 0 || j.ends[i - 1] <= j.starts[i]);
    for (int k = 0; ok && k < 256; k++)
        ok = j.table[k] <= 1;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        run_parallel(count_part, &j, byte_threads(j.size, threads));
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "count_in_spans: spans outside the data, out of order, or a bad table");
    }
    return release_buffers(b, 5, ok);
}
