/* The exact-match modes on the CPU (matches.py): every maximal exact match found exactly once, at its
 * left end. A pair of equal words (3 bits a symbol, N a symbol, no border inside) starts a MEM only
 * where it cannot be extended to the left: the symbols before the two words differ, or one of them is
 * a border (a record starts). From there the match is walked to the right once, to the first
 * difference or border; it is kept when at least min_match long. Every other pair lies inside a MEM
 * found from its own left end, so no pair is stored and no MEM is walked twice. */
#include "cpu.h"

static int mem_start(const pairs *f, part_items *out, int64_t q, int64_t r) {
    if (q > 0 && r > 0) {
        uint8_t a = f->qcodes[q - 1], b = f->rcodes[r - 1];
        if (a == b && a != BORDER)
            return 1;  /* not left-maximal */
    }
    int64_t length = f->k;
    while (q + length < f->qsize && r + length < f->rsize) {
        uint8_t a = f->qcodes[q + length];
        if (a != f->rcodes[r + length] || a == BORDER)
            break;
        length++;
    }
    out->walked += length - f->k + 1;
    if (length < f->min_match)
        return 1;
    return push_item(out, (uint64_t)q) && push_item(out, (uint64_t)r) && push_item(out, (uint64_t)length);
}

/* mem_starts(qcodes, rcodes, qok, rok, qkeys, qpos, rkeys, rpos, position_size, i0, i1, k, min_match, parts,
 * threads) -> (seeds, bases walked, mems): the MEMs whose left ends are word pairs of query words [i0, i1),
 * as a bytearray of (qstart, rstart, length) int64 triples in no particular order. qok and rok are not
 * read. */
PyObject *py_mem_starts(PyObject *self, PyObject *args) {
    Py_buffer v[8];
    pairs f = {0};
    int threads;
    long long min_match;
    if (!parse_pairs(args, "L", &f, v, &threads, &min_match))
        return NULL;
    f.min_match = min_match, f.visit = mem_start;
    long long seeds, walked;
    PyObject *result = NULL, *mems = enumerate_pairs(&f, threads, &seeds, &walked);
    if (mems)
        result = Py_BuildValue("LLN", seeds, walked, mems);
    for (int i = 0; i < 8; i++)
        PyBuffer_Release(&v[i]);
    return result;
}
