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

/* cigar_rows(text, offsets, q, r, qfrom, rfrom, reverse, at, out_r, out_q): the two rows of each CIGAR's
 * alignment (MAF's), columns written at out_r[at[s]..] and out_q[at[s]..]: the reference's letters
 * from r[rfrom[s]] on, the query's from q[qfrom[s]] on, or on a reverse alignment (reverse[s]) its
 * reverse complement read from q[qfrom[s]] backwards (qfrom: the aligned stretch's last base); '-'
 * where the other side has a base alone. Codes 0-3 are ACGT, any other N. */
PyObject *cigar_rows(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[10];
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*w*w*", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
                          &v[8], &v[9]))
        return NULL;
    const uint8_t *t = v[0].buf, *q = v[2].buf, *r = v[3].buf, *reverse = v[6].buf;
    const int64_t *offsets = v[1].buf, *qfrom = v[4].buf, *rfrom = v[5].buf, *at = v[7].buf;
    uint8_t *out_r = v[8].buf, *out_q = v[9].buf;
    const Py_ssize_t strings = v[1].len / 8 - 1, room = v[8].len;
    int ok = strings >= 0 && offsets[strings] <= v[0].len && v[4].len == 8 * strings && v[5].len == 8 * strings &&
             v[6].len == strings && v[7].len == 8 * strings && v[9].len == room;
    static const char forward[5] = {'A', 'C', 'G', 'T', 'N'}, complement[5] = {'T', 'G', 'C', 'A', 'N'};
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t s = 0; s < strings && ok; s++) {
            int64_t x = qfrom[s], y = rfrom[s], c = at[s], number = 0;
            const int64_t step = reverse[s] ? -1 : 1;
            const char *letters = reverse[s] ? complement : forward;
            for (int64_t i = offsets[s]; i < offsets[s + 1] && ok; i++) {
                const uint8_t op = t[i];
                if (op <= '9') {
                    number = 10 * number + (op - '0');
                    continue;
                }
                const int takes_q = op != 'D', takes_r = op != 'I';
                const int64_t q_lo = step > 0 ? x : x - number + 1, q_hi = step > 0 ? x + number : x + 1;
                if (c < 0 || c + number > room || (takes_q && number && (q_lo < 0 || q_hi > v[2].len)) ||
                    (takes_r && (y < 0 || y + number > v[3].len))) {
                    ok = 0;
                    break;
                }
                for (int64_t k = 0; k < number; k++, c++) {
                    if (takes_r) {
                        const uint8_t code = r[y++];
                        out_r[c] = forward[code < 4 ? code : 4];
                    } else {
                        out_r[c] = '-';
                    }
                    if (takes_q) {
                        const uint8_t code = q[x];
                        x += step;
                        out_q[c] = letters[code < 4 ? code : 4];
                    } else {
                        out_q[c] = '-';
                    }
                }
                number = 0;
            }
        }
        Py_END_ALLOW_THREADS
    }
    if (!ok)
        PyErr_SetString(PyExc_ValueError, "cigar_rows: a string table, the codes, int64 starts and places, a reverse "
                                          "byte a string, and rows long enough for the columns");
    for (int k = 0; k < 10; k++)
        PyBuffer_Release(&v[k]);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}
