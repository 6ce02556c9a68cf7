/* The gapless blocks of alignments' CIGARs, read back for the UCSC chains of alignments
 * (formats/chains.py alignment_chains); part of the _format module (format.c lists it). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* cigar_blocks(text, offsets, keep, size, dt, dq, chain) -> blocks: the gapless blocks of the CIGARs
 * (a string table: text, offsets) of the strings keep (uint8, one a string) marks. A block is a
 * stretch of aligned runs (= X M), the I and D runs after it (before the string's next aligned run)
 * its gaps on the query (dq) and the reference (dt); chain is the string's place among those kept.
 * size, dt, dq and chain (int64) are filled where given as long as the blocks, else only counted. */
PyObject *cigar_blocks(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[3];
    PyObject *out[4];
    if (!PyArg_ParseTuple(args, "y*y*y*OOOO", &v[0], &v[1], &v[2], &out[0], &out[1], &out[2], &out[3]))
        return NULL;
    Py_buffer w[4] = {{0}};
    int fill = out[0] != Py_None, ok = 1;
    for (int k = 0; fill && ok && k < 4; k++)
        ok = PyObject_GetBuffer(out[k], &w[k], PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) == 0;
    const uint8_t *t = v[0].buf, *keep = v[2].buf;
    const int64_t *offsets = v[1].buf;
    const Py_ssize_t strings = v[1].len / 8 - 1, room = fill && ok ? w[0].len / 8 : 0;
    int64_t *size = w[0].buf, *dt = w[1].buf, *dq = w[2].buf, *chain = w[3].buf;
    ok = ok && strings >= 0 && v[2].len == strings && offsets[strings] <= v[0].len;
    for (int k = 1; fill && ok && k < 4; k++)
        ok = w[k].len == 8 * room;
    Py_ssize_t blocks = 0;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        int64_t rank = 0;
        for (Py_ssize_t s = 0; s < strings && ok; s++) {
            if (!keep[s])
                continue;
            int64_t number = 0;
            int in_block = 0, any = 0;  /* the last run aligned; a block begun in this string */
            for (int64_t i = offsets[s]; i < offsets[s + 1]; i++) {
                const uint8_t c = t[i];
                if (c <= '9') {
                    number = 10 * number + (c - '0');
                    continue;
                }
                const int aligned = c == '=' || c == 'X' || c == 'M';
                if (aligned && !in_block) {  /* a block begins */
                    if (fill && blocks >= room) {
                        ok = 0;
                        break;
                    }
                    if (fill)
                        size[blocks] = 0, dt[blocks] = 0, dq[blocks] = 0, chain[blocks] = rank;
                    blocks++;
                    any = 1;
                }
                in_block = aligned;
                if (fill && any) {
                    if (aligned)
                        size[blocks - 1] += number;
                    else if (c == 'D')
                        dt[blocks - 1] += number;
                    else if (c == 'I')
                        dq[blocks - 1] += number;
                }
                number = 0;
            }
            rank++;
        }
        Py_END_ALLOW_THREADS
    }
    if (!ok)
        PyErr_SetString(PyExc_ValueError, "cigar_blocks: a string table, a keep byte a string and int64 columns as "
                                          "long as the blocks expected");
    for (int k = 0; k < 3; k++)
        PyBuffer_Release(&v[k]);
    for (int k = 0; k < 4; k++)
        if (w[k].obj)
            PyBuffer_Release(&w[k]);
    return ok ? PyLong_FromSsize_t(blocks) : NULL;
}
