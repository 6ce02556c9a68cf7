/* The layout of a file of many records (fasta.py's layout, for probe and read sets of millions):
 * header lines, their fields and names found on threads instead of one Python step a record. */
#include "cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>


/* ---- The layout of a file of many records (fasta.py's layout, for probe and read sets of millions):
 * header lines found on threads instead of one Python step a record. */

typedef struct {
    int64_t *heads, n, capacity;
    int nul, failed;
} head_list;

typedef struct {
    const uint8_t *data;
    int64_t size;
    head_list *lists;  /* a part's headers (fasta_heads) */
    const int64_t *found;
    int64_t records;
    int64_t *fields;  /* name start, name end, body start, body end, flags: 5 a record */
} layout_job;

/* The '>' bytes at a line's start in part t of the data, kept in the part's own growing list (one
 * pass: the file is read once here, not counted first), and whether the part holds a NUL byte: bytes
 * are tested 16 at a time for either, the rare lanes that hit looked at one by one. */
static void heads_part(void *p, int t, int threads) {
    layout_job *j = (layout_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    head_list *out = &j->lists[t];
    const uint8_t *d = j->data;
    for (size_t x = lo; x < hi;) {
        if (hi - x >= 16) {
            bytes16 v;
            memcpy(&v, d + x, 16);
            const bytes16 hit = (bytes16)((v == '>') | (v == 0));
            uint64_t halves[2];
            memcpy(halves, &hit, 16);
            if (!(halves[0] | halves[1])) {
                x += 16;
                continue;
            }
        }
        const size_t end = hi - x >= 16 ? x + 16 : hi;
        for (; x < end; x++) {
            if (d[x] == 0)
                out->nul = 1;
            else if (d[x] == '>' && (x == 0 || d[x - 1] == '\n')) {
                if (out->n == out->capacity) {
                    int64_t capacity = out->capacity ? 2 * out->capacity : 4096;
                    int64_t *grown = realloc(out->heads, (size_t)capacity * sizeof(int64_t));
                    if (!grown) {
                        out->failed = 1;
                        return;
                    }
                    out->heads = grown, out->capacity = capacity;
                }
                out->heads[out->n++] = (int64_t)x;
            }
        }
    }
}

/* Record i's name (the header's first word) and body; flags 1 where its header line holds a byte a
 * name cannot be judged by here (a control byte other than tab or a closing CR, or a byte >= 0x80:
 * Python's layout then reads the file) or no name. */
static void fields_part(void *p, int t, int threads) {
    layout_job *j = (layout_job *)p;
    size_t lo, hi;
    part_range((size_t)j->records, t, threads, &lo, &hi);
    for (int64_t i = (int64_t)lo; i < (int64_t)hi; i++) {
        const int64_t head = j->found[i];
        const uint8_t *end = memchr(j->data + head, '\n', (size_t)(j->size - head));
        const int64_t line_end = end ? end - j->data : j->size;
        int64_t flags = 0, a = head + 1;
        for (int64_t x = head + 1; x < line_end; x++) {
            const uint8_t c = j->data[x];
            if (c >= 0x80 || (c < 32 && c != '\t' && !(c == '\r' && x == line_end - 1)))
                flags = 1;
        }
        while (a < line_end && (j->data[a] == ' ' || j->data[a] == '\t'))
            a++;
        int64_t b = a;
        while (b < line_end && j->data[b] != ' ' && j->data[b] != '\t' && j->data[b] != '\r')
            b++;
        int64_t *f = j->fields + 5 * i;
        f[0] = a, f[1] = b;
        f[2] = line_end < j->size ? line_end + 1 : j->size;
        f[3] = i + 1 < j->records ? j->found[i + 1] - 1 : j->size;
        f[4] = flags || b == a;
    }
}

/* fasta_heads(data, threads) -> (bytearray of int64: the positions of '>' at a line's start, ascending;
 * whether the data holds a NUL byte). */
PyObject *py_fasta_heads(PyObject *self, PyObject *args) {
    Py_buffer b;
    int threads;
    if (!PyArg_ParseTuple(args, "y*i", &b, &threads))
        return NULL;
    threads = threads < 1 ? 1 : threads;
    layout_job j = {0};
    j.data = b.buf, j.size = (int64_t)b.len;
    j.lists = calloc((size_t)threads, sizeof(head_list));
    PyObject *out = NULL;
    if (!j.lists) {
        PyErr_NoMemory();
    } else {
        Py_BEGIN_ALLOW_THREADS
        run_parallel(heads_part, &j, threads);
        Py_END_ALLOW_THREADS
        int64_t total = 0;
        int nul = 0, failed = 0;
        for (int t = 0; t < threads; t++)
            total += j.lists[t].n, nul |= j.lists[t].nul, failed |= j.lists[t].failed;
        PyObject *heads = failed ? NULL : PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(total * 8));
        if (heads) {
            char *at = PyByteArray_AS_STRING(heads);
            for (int t = 0; t < threads; t++) {
                if (j.lists[t].n)
                    memcpy(at, j.lists[t].heads, (size_t)j.lists[t].n * 8);
                at += j.lists[t].n * 8;
            }
            out = Py_BuildValue("(NO)", heads, nul ? Py_True : Py_False);
        } else if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        for (int t = 0; t < threads; t++)
            free(j.lists[t].heads);
        free(j.lists);
    }
    PyBuffer_Release(&b);
    return out;
}

/* fasta_fields(data, heads, fields, threads): for each header (heads: int64, ascending) its name's
 * start and end, its body's start and end, and its flags (fields_part), 5 int64 a record. */
PyObject *py_fasta_fields(PyObject *self, PyObject *args) {
    Py_buffer b[3];
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*w*i", &b[0], &b[1], &b[2], &threads))
        return NULL;
    const int64_t records = (int64_t)b[1].len / 8;
    int ok = check_items(&b[2], "fasta_fields", 8, 5 * records);
    if (ok) {
        layout_job j = {0};
        j.data = b[0].buf, j.size = (int64_t)b[0].len, j.found = b[1].buf, j.records = records, j.fields = b[2].buf;
        for (int64_t i = 0; ok && i < records; i++)
            ok = j.found[i] >= 0 && j.found[i] < j.size && (i == 0 || j.found[i] > j.found[i - 1]);
        if (!ok)
            PyErr_SetString(PyExc_ValueError, "fasta_fields: header positions out of order or out of the data");
        else {
            Py_BEGIN_ALLOW_THREADS
            run_parallel(fields_part, &j, threads < 1 ? 1 : threads);
            Py_END_ALLOW_THREADS
        }
    }
    return release_buffers(b, 3, ok);
}

typedef struct {
    const uint8_t *data;
    const int64_t *fields, *offsets;
    int64_t records;
    uint8_t *out, *packed;
    uint64_t *hashes;
} names_job;

static void names_part(void *p, int t, int threads) {
    names_job *j = (names_job *)p;
    size_t lo, hi;
    part_range((size_t)j->records, t, threads, &lo, &hi);
    for (int64_t i = (int64_t)lo; i < (int64_t)hi; i++) {
        const int64_t a = j->fields[5 * i], b = j->fields[5 * i + 1];
        uint64_t h = 0xcbf29ce484222325ULL;  /* FNV-1a */
        for (int64_t x = a; x < b; x++)
            h = (h ^ j->data[x]) * 0x100000001b3ULL;
        memcpy(j->out + j->offsets[i], j->data + a, (size_t)(b - a));
        j->out[j->offsets[i] + (b - a)] = '\n';
        memcpy(j->packed + j->offsets[i] - i, j->data + a, (size_t)(b - a));
        j->hashes[i] = h;
    }
}

/* fasta_names(data, fields, offsets, out, packed, hashes, threads): each record's name (fasta_fields' first
 * two) copied to out at offsets[i], a line break after it, and to packed at offsets[i] - i (the names
 * end to end: a string table), and its hash (to find repeated names). */
PyObject *py_fasta_names(PyObject *self, PyObject *args) {
    Py_buffer b[6];
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &threads))
        return NULL;
    const int64_t records = (int64_t)b[2].len / 8;
    int ok = check_items(&b[1], "fasta_names", 8, 5 * records) && check_items(&b[5], "fasta_names", 8, records);
    if (ok) {
        names_job j = {b[0].buf, b[1].buf, b[2].buf, records, b[3].buf, b[4].buf, b[5].buf};
        for (int64_t i = 0; ok && i < records; i++) {
            const int64_t a = j.fields[5 * i], e = j.fields[5 * i + 1];
            ok = a >= 0 && e >= a && e <= b[0].len && j.offsets[i] >= i && j.offsets[i] + (e - a) + 1 <= b[3].len &&
                 j.offsets[i] - i + (e - a) <= b[4].len;
        }
        if (!ok)
            PyErr_SetString(PyExc_ValueError, "fasta_names: a name out of the data or of the output");
        else {
            Py_BEGIN_ALLOW_THREADS
            run_parallel(names_part, &j, threads < 1 ? 1 : threads);
            Py_END_ALLOW_THREADS
        }
    }
    return release_buffers(b, 6, ok);
}
