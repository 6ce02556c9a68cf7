/* Text rows of the output formats (PAF, GECKO CSV), written by compiled code.
 *
 * formats.py describes a row as a tuple of fields and this file prints n rows of them into a byte
 * buffer, with the GIL released so that formatting threads run in parallel. A field is one of
 *   ("s", bytes)                        the same text on every row (separators, fixed columns);
 *   ("i", int64 array[, width])         a decimal integer a row (right-aligned in width, as "%*lld");
 *   ("f", float64 array, decimals)      a fixed-point number, exactly as printf's "%.*f" writes it;
 *   ("n", int64 index array, data, offsets)  the index'th string of a table (record names, strands):
 *                                       string j is data[offsets[j]:offsets[j + 1]].
 * format_rows(out, n, fields) fills the writable buffer `out` and returns the bytes written;
 * row_bound(n, fields) is an upper bound of that size, to allocate `out` with. interleave(out, a,
 * a_ends, b, b_ends) lays two texts cut in as many pieces one piece of each in turn (headers and the
 * rows under them). cigars(out, size, dq, dt, last, ends) prints chain CIGARs: a block's M, then its
 * gaps to the next block on the query (I) and the reference (D), where there are any; format_cigar.c
 * reads such blocks back from alignments' CIGARs (cigar_blocks).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum kind { TEXT, INT, FIXED, NAME };

typedef struct {
    enum kind kind;
    char small[16];            /* TEXT of at most 16 bytes, copied whole (rows have 16 bytes of slack) */
    const char *text;          /* TEXT: the text; NAME: the table's bytes */
    Py_ssize_t size;           /* TEXT: its length; NAME: the longest string */
    Py_ssize_t total;          /* NAME: the lengths of the strings the rows name, summed */
    const int64_t *values;     /* INT, NAME: the column (NAME: indices) */
    const double *reals;       /* FIXED */
    const int64_t *offsets;    /* NAME */
    Py_ssize_t entries;        /* NAME: strings in the table */
    int decimals;              /* FIXED */
    int width;                 /* INT: spaces before a number shorter than this */
} field;

static const char DIGITS[201] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

static int digits(uint64_t v) {
    int n = 1;
    while (v >= 10000) {
        v /= 10000;
        n += 4;
    }
    return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* The decimal digits of v (no sign) at p, written from the last, two at a time; returns the end. */
static char *put_unsigned(char *p, uint64_t v) {
    char *end = p + digits(v), *q = end;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, DIGITS + 2 * r, 2);
    }
    if (v >= 10)
        memcpy(q - 2, DIGITS + 2 * v, 2);
    else
        q[-1] = (char)('0' + v);
    return end;
}

static char *put_int(char *p, int64_t v) {
    if (v < 0) {
        *p++ = '-';
        return put_unsigned(p, (uint64_t)0 - (uint64_t)v);
    }
    return put_unsigned(p, (uint64_t)v);
}

static const double POW10[10] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

/* v with `decimals` decimals exactly as "%.*f" writes it: the double is an integer M times 2^E, so
 * v * 10^decimals is M * 10^decimals (at most 83 bits) shifted by E, rounded half to even on its
 * exact value, as printf rounds. Values whose scaled magnitude passes 9e18, infinities and NaN go
 * through snprintf. */
static char *put_fixed(char *p, double v, int decimals) {
    uint64_t scale = (uint64_t)POW10[decimals];
    if (!isfinite(v) || fabs(v) * (double)scale >= 9.0e18) {
        int written = snprintf(p, 64, "%.*f", decimals, v);  /* 64: the width rows_bound allows a field */
        return p + (written < 64 ? written : 63);
    }
    int e;
    double f = frexp(fabs(v), &e);
    uint64_t mantissa = (uint64_t)ldexp(f, 53);
    int shift = 53 - e;
    unsigned __int128 n = (unsigned __int128)mantissa * scale;
    uint64_t q;
    if (shift <= 0) {
        q = (uint64_t)(n << -shift);
    } else if (shift >= 127) {
        q = 0;  /* below half a unit of the last decimal */
    } else {
        unsigned __int128 whole = n >> shift, rest = n - (whole << shift), half = (unsigned __int128)1 << (shift - 1);
        q = (uint64_t)whole + (rest > half || (rest == half && (whole & 1)));
    }
    if (signbit(v))
        *p++ = '-';
    p = put_unsigned(p, q / scale);
    if (decimals) {
        uint64_t part = q % scale;
        *p++ = '.';
        for (int d = decimals - 1; d >= 0; d--) {
            p[d] = (char)('0' + part % 10);
            part /= 10;
        }
        p += decimals;
    }
    return p;
}

/* Bytes one row of these fields can take at most. */
/* The bytes n rows may take: a row's widest numbers and texts, and the strings the rows name as long
 * as they are (not n times the longest: chains' CIGARs, a few of them long, would ask for tens of GB). */
static Py_ssize_t rows_bound(const field *fields, Py_ssize_t count, Py_ssize_t n) {
    Py_ssize_t width = 0, named = 0;
    for (Py_ssize_t f = 0; f < count; f++) {
        switch (fields[f].kind) {
        case TEXT: width += fields[f].size; break;
        case INT: width += fields[f].width > 20 ? fields[f].width : 20; break;
        case FIXED: width += 64; break;
        case NAME: named += fields[f].total; break;
        }
    }
    return width * n + named;
}

/* Parse the fields tuple; buffers are kept in views (released by the caller). Returns -1 on error. */
static int parse_fields(PyObject *tuple, Py_ssize_t n, field *fields, Py_buffer *views, Py_ssize_t *used) {
    Py_ssize_t count = PyTuple_GET_SIZE(tuple);
    *used = 0;
    for (Py_ssize_t f = 0; f < count; f++) {
        PyObject *item = PyTuple_GET_ITEM(tuple, f);
        const char *kind;
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) < 2 ||
            !(kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(item, 0)))) {
            PyErr_SetString(PyExc_TypeError, "a field is a tuple (kind, ...)");
            return -1;
        }
        field *fd = &fields[f];
        memset(fd, 0, sizeof *fd);
        Py_buffer *view = &views[*used];
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(item, 1), view, PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        (*used)++;
        if (kind[0] == 's') {
            fd->kind = TEXT;
            fd->text = view->buf;
            fd->size = view->len;
            if (fd->size <= 16)
                memcpy(fd->small, fd->text, (size_t)fd->size);
            continue;
        }
        Py_ssize_t need = kind[0] == 'f' ? (Py_ssize_t)sizeof(double) : (Py_ssize_t)sizeof(int64_t);
        if (view->len != n * need) {
            PyErr_Format(PyExc_ValueError, "field %zd: %zd bytes where %zd rows need %zd", f, view->len, n, n * need);
            return -1;
        }
        if (kind[0] == 'i') {
            fd->kind = INT;
            fd->values = view->buf;
            fd->width = PyTuple_GET_SIZE(item) > 2 ? (int)PyLong_AsLong(PyTuple_GET_ITEM(item, 2)) : 0;
            if (fd->width < 0 || fd->width > 64) {
                PyErr_Format(PyExc_ValueError, "field %zd: width must be 0 to 64", f);
                return -1;
            }
        } else if (kind[0] == 'f') {
            fd->kind = FIXED;
            fd->reals = view->buf;
            fd->decimals = PyTuple_GET_SIZE(item) > 2 ? (int)PyLong_AsLong(PyTuple_GET_ITEM(item, 2)) : -1;
            if (fd->decimals < 0 || fd->decimals > 9) {
                PyErr_Format(PyExc_ValueError, "field %zd: decimals must be 0 to 9", f);
                return -1;
            }
        } else if (kind[0] == 'n' && PyTuple_GET_SIZE(item) == 4) {
            fd->kind = NAME;
            fd->values = view->buf;
            Py_buffer *data = &views[(*used)++], *offsets = &views[*used];
            if (PyObject_GetBuffer(PyTuple_GET_ITEM(item, 2), data, PyBUF_C_CONTIGUOUS) < 0)
                return -1;
            if (PyObject_GetBuffer(PyTuple_GET_ITEM(item, 3), offsets, PyBUF_C_CONTIGUOUS) < 0)
                return -1;
            (*used)++;
            fd->text = data->buf;
            fd->offsets = offsets->buf;
            fd->entries = offsets->len / (Py_ssize_t)sizeof(int64_t) - 1;
            /* only the strings these rows name are checked and measured: a slice of a probe set's rows
             * names a few of its millions, and the slices are printed on threads that wait here for
             * the interpreter's lock */
            for (Py_ssize_t i = 0; i < n; i++) {
                if (fd->values[i] < 0 || fd->values[i] >= fd->entries) {
                    PyErr_Format(PyExc_IndexError, "field %zd: row %zd names string %lld of %zd", f, i,
                                 (long long)fd->values[i], fd->entries);
                    return -1;
                }
                const Py_ssize_t j = (Py_ssize_t)fd->values[i], size = fd->offsets[j + 1] - fd->offsets[j];
                if (size < 0 || fd->offsets[j] < 0 || fd->offsets[j + 1] > data->len) {
                    PyErr_Format(PyExc_ValueError, "field %zd: string table offsets out of range", f);
                    return -1;
                }
                fd->size = size > fd->size ? size : fd->size;
                fd->total += size;
            }
        } else {
            PyErr_Format(PyExc_ValueError, "field %zd: unknown kind '%s'", f, kind);
            return -1;
        }
    }
    return 0;
}

static PyObject *call(PyObject *args, int write) {
    PyObject *out_obj = NULL, *tuple, *ends_obj = Py_None;
    Py_ssize_t n;
    if (write) {
        if (!PyArg_ParseTuple(args, "OnO!|O", &out_obj, &n, &PyTuple_Type, &tuple, &ends_obj))
            return NULL;
    } else if (!PyArg_ParseTuple(args, "nO!", &n, &PyTuple_Type, &tuple)) {
        return NULL;
    }
    Py_buffer ends = {0};
    if (ends_obj != Py_None) {
        if (PyObject_GetBuffer(ends_obj, &ends, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            return NULL;
        if (ends.len != n * (Py_ssize_t)sizeof(int64_t)) {
            PyBuffer_Release(&ends);
            PyErr_SetString(PyExc_ValueError, "format_rows: ends must hold one int64 a row");
            return NULL;
        }
    }
    int64_t *row_ends = ends.buf;
    Py_ssize_t count = PyTuple_GET_SIZE(tuple), used = 0;
    field *fields = PyMem_Calloc((size_t)count + 1, sizeof(field));
    Py_buffer *views = PyMem_Calloc(3 * (size_t)count + 1, sizeof(Py_buffer));
    Py_buffer out = {0};
    PyObject *result = NULL;
    if (!fields || !views) {
        PyErr_NoMemory();
        goto done;
    }
    if (parse_fields(tuple, n, fields, views, &used) < 0)
        goto done;
    Py_ssize_t bound = rows_bound(fields, count, n) + 16;  /* 16: a short text's whole copy */
    if (!write) {
        result = PyLong_FromSsize_t(bound);
        goto done;
    }
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        goto done;
    if (out.len < bound) {
        PyErr_Format(PyExc_ValueError, "the output buffer holds %zd bytes where %zd may be needed", out.len, bound);
        goto done;
    }
    char *start = out.buf, *p = start;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        for (Py_ssize_t f = 0; f < count; f++) {
            const field *fd = &fields[f];
            switch (fd->kind) {
            case TEXT:
                if (fd->size <= 16)
                    memcpy(p, fd->small, 16);
                else
                    memcpy(p, fd->text, (size_t)fd->size);
                p += fd->size;
                break;
            case INT: {
                int64_t v = fd->values[i];
                if (fd->width) {
                    int size = digits(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v) + (v < 0);
                    for (; size < fd->width; size++)
                        *p++ = ' ';
                }
                p = put_int(p, v);
                break;
            }
            case FIXED:
                p = put_fixed(p, fd->reals[i], fd->decimals);
                break;
            case NAME: {
                int64_t j = fd->values[i];
                size_t size = (size_t)(fd->offsets[j + 1] - fd->offsets[j]);
                memcpy(p, fd->text + fd->offsets[j], size);
                p += size;
                break;
            }
            }
        }
        if (row_ends)
            row_ends[i] = p - start;
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromSsize_t(p - start);
done:
    if (ends.obj)
        PyBuffer_Release(&ends);
    if (out.obj)
        PyBuffer_Release(&out);
    for (Py_ssize_t v = 0; views && v < 3 * count; v++)
        if (views[v].obj)
            PyBuffer_Release(&views[v]);
    PyMem_Free(fields);
    PyMem_Free(views);
    return result;
}

static PyObject *format_rows(PyObject *self, PyObject *args) {
    (void)self;
    return call(args, 1);
}

static PyObject *row_bound(PyObject *self, PyObject *args) {
    (void)self;
    return call(args, 0);
}

/* interleave(out, a, a_ends, b, b_ends) -> bytes written: a's piece g (up to a_ends[g], from the
 * end of the one before), then b's piece g, for every g; out holds at least both texts. */
static PyObject *interleave(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[5];
    if (!PyArg_ParseTuple(args, "w*y*y*y*y*", &v[0], &v[1], &v[2], &v[3], &v[4]))
        return NULL;
    const int64_t *a_ends = v[2].buf, *b_ends = v[4].buf;
    const Py_ssize_t pieces = v[2].len / 8;
    int ok = v[4].len / 8 == pieces && v[0].len >= v[1].len + v[3].len;
    int64_t a_at = 0, b_at = 0;
    for (Py_ssize_t g = 0; ok && g < pieces; g++) {
        ok = a_ends[g] >= a_at && b_ends[g] >= b_at;
        a_at = a_ends[g], b_at = b_ends[g];
    }
    ok = ok && a_at <= v[1].len && b_at <= v[3].len;
    char *p = v[0].buf;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        const char *a = v[1].buf, *b = v[3].buf;
        a_at = b_at = 0;
        for (Py_ssize_t g = 0; g < pieces; g++) {
            memcpy(p, a + a_at, (size_t)(a_ends[g] - a_at));
            p += a_ends[g] - a_at;
            memcpy(p, b + b_at, (size_t)(b_ends[g] - b_at));
            p += b_ends[g] - b_at;
            a_at = a_ends[g], b_at = b_ends[g];
        }
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "interleave: piece ends out of order or past their text, or out too small");
    }
    Py_ssize_t written = p - (char *)v[0].buf;
    for (int k = 0; k < 5; k++)
        PyBuffer_Release(&v[k]);
    return ok ? PyLong_FromSsize_t(written) : NULL;
}

/* cigars(out, size, dq, dt, last, ends) -> bytes written: for each block, in order, "<size>M", then
 * "<dq>I" and "<dt>D" where those are not 0; ends[c] gets where the text of the c-th block with
 * last set ends (a chain's last block: its CIGAR ends there). out holds 63 bytes a block. */
static PyObject *cigars(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[6];
    if (!PyArg_ParseTuple(args, "w*y*y*y*y*w*", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]))
        return NULL;
    const Py_ssize_t n = v[1].len / 8;
    const int64_t *size = v[1].buf, *dq = v[2].buf, *dt = v[3].buf;
    const uint8_t *last = v[4].buf;
    int64_t *ends = v[5].buf;
    Py_ssize_t lasts = 0;
    for (Py_ssize_t b = 0; b < n && v[4].len == n; b++)
        lasts += last[b] != 0;
    int ok = v[2].len / 8 == n && v[3].len / 8 == n && v[4].len == n && v[5].len / 8 == lasts && v[0].len >= 63 * n;
    for (Py_ssize_t b = 0; ok && b < n; b++)
        ok = size[b] >= 0 && dq[b] >= 0 && dt[b] >= 0;
    char *p = v[0].buf;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        Py_ssize_t c = 0;
        for (Py_ssize_t b = 0; b < n; b++) {
            p = put_unsigned(p, (uint64_t)size[b]);
            *p++ = 'M';
            if (dq[b]) {
                p = put_unsigned(p, (uint64_t)dq[b]);
                *p++ = 'I';
            }
            if (dt[b]) {
                p = put_unsigned(p, (uint64_t)dt[b]);
                *p++ = 'D';
            }
            if (last[b])
                ends[c++] = p - (char *)v[0].buf;
        }
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "cigars: columns of different lengths or negative, or out too small");
    }
    Py_ssize_t written = p - (char *)v[0].buf;
    for (int k = 0; k < 6; k++)
        PyBuffer_Release(&v[k]);
    return ok ? PyLong_FromSsize_t(written) : NULL;
}

PyObject *cigar_blocks(PyObject *self, PyObject *args);  /* format_cigar.c */
PyObject *cigar_rows(PyObject *self, PyObject *args);    /* format_cigar.c */

static PyMethodDef methods[] = {
    {"interleave", interleave, METH_VARARGS,
     "interleave(out, a, a_ends, b, b_ends) -> bytes written: a piece of a, then one of b, in turn"},
    {"format_rows", format_rows, METH_VARARGS,
     "format_rows(out, n, fields[, ends]) -> bytes written: n text rows of the fields into the writable buffer "
     "out (ends: an int64 buffer that gets where each row ends)"},
    {"row_bound", row_bound, METH_VARARGS, "row_bound(n, fields) -> an upper bound of format_rows' size"},
    {"cigars", cigars, METH_VARARGS,
     "cigars(out, size, dq, dt, last, ends) -> bytes written: each block's M and its I and D gaps, ends[c] where "
     "the c-th last block's text ends"},
    {"cigar_blocks", cigar_blocks, METH_VARARGS,
     "cigar_blocks(text, offsets, keep, size, dt, dq, chain) -> blocks: the gapless blocks of the kept CIGARs and "
     "the gaps after each (size None: counted only)"},
    {"cigar_rows", cigar_rows, METH_VARARGS,
     "cigar_rows(text, offsets, q, r, qfrom, rfrom, reverse, at, out_r, out_q): each CIGAR's two aligned rows, "
     "'-' in gaps, written at `at` (format_cigar.c)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_format", "Text rows of the output formats.", -1, methods};

PyMODINIT_FUNC PyInit__format(void) { return PyModule_Create(&module); }
