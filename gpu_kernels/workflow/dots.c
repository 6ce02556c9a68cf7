/* The dotplot raster of workflow/dots.py (module gpu_kernels._dots): the HSPs a Dots accumulator does
 * not keep as lines mark raster cells, compiled, the GIL released, so accumulators on threads run
 * side by side. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static inline int64_t item(const Py_buffer *b, Py_ssize_t i) {
    return b->itemsize == 4 ? ((const int32_t *)b->buf)[i] : ((const int64_t *)b->buf)[i];
}

/* The raster half of Dots.add in one pass, the GIL released: each HSP shorter than `floor` marks the
 * cell of its segment's midpoint (in the layout: record offsets, flipped query records) with its
 * identity, the highest winning. A query record's rows start at its offset's row and its midpoints'
 * rows count from there (Dots.rows), so a cell does not depend on the other records' places. The same
 * double arithmetic as Dots._mark and shares.py, so the same cells and float32 values. Returns the
 * HSPs marked. */
static PyObject *py_raster_mark(PyObject *self, PyObject *args) {
    Py_buffer b[12];
    double xscale, yscale, floor;
    int raster;
    if (!PyArg_ParseTuple(args, "w*s*s*s*s*s*s*s*s*s*s*s*iddd", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                          &b[7], &b[8], &b[9], &b[10], &b[11], &raster, &xscale, &yscale, &floor))
        return NULL;
    const Py_buffer *qrec = &b[1], *rrec = &b[2];
    const Py_ssize_t n = b[4].len / 8, cells_n = b[0].len / 4, nq = b[10].len / 8, nr = b[9].len / 8;
    int ok = (qrec->itemsize == 4 || qrec->itemsize == 8) && (rrec->itemsize == 4 || rrec->itemsize == 8) &&
             qrec->len == n * qrec->itemsize && rrec->len == n * rrec->itemsize && b[3].len == n &&
             b[5].len == n * 8 && b[6].len == n * 8 && b[7].len == n * 8 && b[8].len == nq * 8 && b[11].len == nq &&
             cells_n == 2 * (Py_ssize_t)raster * raster;
    Py_ssize_t marked = 0, bad = 0;
    if (ok) {
        float *cells = (float *)b[0].buf;
        const int8_t *strand = (const int8_t *)b[3].buf;
        const int64_t *qstart = (const int64_t *)b[4].buf, *qend = (const int64_t *)b[5].buf,
                      *rstart = (const int64_t *)b[6].buf, *identities = (const int64_t *)b[7].buf,
                      *qoff = (const int64_t *)b[8].buf, *roff = (const int64_t *)b[9].buf,
                      *qlens = (const int64_t *)b[10].buf;
        const uint8_t *flip = (const uint8_t *)b[11].buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            const int64_t length = qend[i] - qstart[i];
            if (!((double)length < floor))
                continue;
            const int64_t q = item(qrec, i), r = item(rrec, i);
            if (q < 0 || q >= nq || r < 0 || r >= nr) {
                bad++;
                continue;
            }
            const int f = flip[q] != 0;
            const int64_t x2 = 2 * (roff[r] + rstart[i]) + length;
            const int64_t y2 = f ? 2 * qlens[q] - qstart[i] - qend[i] : qstart[i] + qend[i];
            int64_t ix = (int64_t)((double)x2 * xscale);
            int64_t iy = (int64_t)((double)(2 * qoff[q]) * yscale) + (int64_t)((double)y2 * yscale);
            ix = ix < 0 ? 0 : ix > raster - 1 ? raster - 1 : ix;
            iy = iy < 0 ? 0 : iy > raster - 1 ? raster - 1 : iy;
            const int64_t cell = (int64_t)((strand[i] ^ f) & 1) * raster * raster + iy * raster + ix;
            const float value = (float)(100.0 * (double)identities[i] / (double)(length > 1 ? length : 1));
            if (value > cells[cell])
                cells[cell] = value;
            marked++;
        }
        Py_END_ALLOW_THREADS
    }
    for (int j = 0; j < 12; j++)
        PyBuffer_Release(&b[j]);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "raster_mark: columns of unexpected sizes or types");
        return NULL;
    }
    if (bad) {
        PyErr_SetString(PyExc_IndexError, "raster_mark: a record outside the layout");
        return NULL;
    }
    return PyLong_FromSsize_t(marked);
}

static PyMethodDef methods[] = {
    {"raster_mark", py_raster_mark, METH_VARARGS,
     "raster_mark(cells, qrec, rrec, strand, qstart, qend, rstart, identities, qoff, roff, qlens, flip, raster, "
     "xscale, yscale, floor) -> HSPs marked: the raster cells of HSPs shorter than floor"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_dots", "The dotplot raster.", -1, methods};

PyMODINIT_FUNC PyInit__dots(void) { return PyModule_Create(&module); }
