/* The exact-match modes on the CPU (matches.py): every maximal exact match found exactly once, at its
 * left end. A pair of equal words (3 bits a symbol, N a symbol, no border inside) starts a MEM only
 * where it cannot be extended to the left: the symbols before the two words differ, or one of them is
 * a border (a record starts). From there the match is walked to the right once, to the first
 * difference or border; it is kept when at least min_match long. Every other pair lies inside a MEM
 * found from its own left end, so no pair is stored and no MEM is walked twice. */
#include "cpu.h"
#include "codes.h"

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

/* ---- Whole records (matches.py, whole_index and whole_record_matches): a query record exactly
 * min_match long is a match whole or not at all, wherever it occurs in the reference, so each one is
 * looked up once, by the hash of its codes, among the hashes of every reference window of that
 * length (sorted); a hit is then compared base by base. The hash of codes c_0 .. c_{L-1} is the sum
 * of (c_j + 1) * B^(L-1-j) mod 2^64 (codes.h's HASH_BASE and hash_symbol), rolled along the reference
 * one base at a time. */

typedef struct {
    const uint8_t *codes;
    int64_t n, length;
    uint64_t *hashes;        /* the windows' (window_hashes), or the records', made while counting (whole_hits) */
    uint8_t *valid;
    const int64_t *starts;   /* whole_hits: the records' starts in qcodes */
    int64_t records, strand, nr;
    const uint8_t *rcodes;
    const uint64_t *rkeys;
    const int64_t *rpos;
    int64_t *counts;         /* whole_hits: hits a record, or (fill) where its hits go */
    int64_t *out;            /* whole_hits: reference positions, or NULL to count */
} whole_job;

/* hashes[p] of the window at p, for p in part t; valid[p] = 0 where it holds a border */
static void hash_part(void *arg, int t, int threads) {
    whole_job *w = (whole_job *)arg;
    const int64_t windows = w->n - w->length + 1;
    size_t lo, hi;
    part_range((size_t)windows, t, threads, &lo, &hi);
    if (lo >= hi)
        return;
    uint64_t top = 1, h = 0;  /* top: B^(L-1) */
    int64_t border = -1;       /* the last border position seen */
    for (int64_t j = 0; j < w->length; j++) {
        const uint8_t c = w->codes[lo + j];
        h = h * HASH_BASE + hash_symbol(c);
        if (c == BORDER)
            border = (int64_t)lo + j;
        if (j)
            top *= HASH_BASE;
    }
    for (int64_t p = (int64_t)lo;; p++) {
        w->hashes[p] = h;
        w->valid[p] = border < p;
        if (p + 1 >= (int64_t)hi)
            break;
        const uint8_t c = w->codes[p + w->length];
        h = (h - hash_symbol(w->codes[p]) * top) * HASH_BASE + hash_symbol(c);
        if (c == BORDER)
            border = p + w->length;
    }
}

/* window_hashes(codes, length, hashes, valid, threads): the hash of every window of `length` codes
 * (codes.size - length + 1 of them) and whether it holds no border. */
PyObject *py_window_hashes(PyObject *self, PyObject *args) {
    Py_buffer b[3];
    long long length;
    int threads;
    if (!PyArg_ParseTuple(args, "y*Lw*w*i", &b[0], &length, &b[1], &b[2], &threads))
        return NULL;
    const int64_t windows = (int64_t)b[0].len - length + 1;
    int ok = length > 0 && windows > 0 && check_items(&b[1], "window_hashes", 8, windows) &&
             check_items(&b[2], "window_hashes", 1, windows);
    if (ok) {
        whole_job w = {0};
        w.codes = (const uint8_t *)b[0].buf, w.n = (int64_t)b[0].len, w.length = length;
        w.hashes = (uint64_t *)b[1].buf, w.valid = (uint8_t *)b[2].buf;
        if (threads < 1)
            threads = 1;
        if (windows < (int64_t)threads * 4 * length)  /* parts long enough to pay for their first window */
            threads = (int)(windows / (4 * length)) + 1;
        Py_BEGIN_ALLOW_THREADS
        run_parallel(hash_part, &w, threads);
        Py_END_ALLOW_THREADS
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "window_hashes: no window of that length");
    }
    return release_buffers(b, 3, ok);
}

static const uint8_t COMPLEMENT_CODE[6] = {3, 2, 1, 0, N_CODE, BORDER};

/* The codes of query record q on the searched strand, j-th of length */
static inline uint8_t record_code(const whole_job *w, int64_t q, int64_t j) {
    return w->strand ? COMPLEMENT_CODE[w->codes[w->starts[q] + w->length - 1 - j]] : w->codes[w->starts[q] + j];
}

/* The hash of query record q on the searched strand: four symbols a step, so that the multiplications
 * of one step do not wait for each other. */
static uint64_t record_hash(const whole_job *w, int64_t q) {
    const uint64_t b2 = HASH_BASE * HASH_BASE, b3 = b2 * HASH_BASE, b4 = b3 * HASH_BASE;
    uint64_t h = 0;
    int64_t j = 0;
    for (; j + 4 <= w->length; j += 4)
        h = h * b4 + hash_symbol(record_code(w, q, j)) * b3 + hash_symbol(record_code(w, q, j + 1)) * b2 +
            hash_symbol(record_code(w, q, j + 2)) * HASH_BASE + hash_symbol(record_code(w, q, j + 3));
    for (; j < w->length; j++)
        h = h * HASH_BASE + hash_symbol(record_code(w, q, j));
    return h;
}

static void hits_part(void *arg, int t, int threads) {
    whole_job *w = (whole_job *)arg;
    size_t lo, hi;
    part_range((size_t)w->records, t, threads, &lo, &hi);
    for (int64_t q = (int64_t)lo; q < (int64_t)hi; q++) {
        const uint64_t h = w->out ? w->hashes[q] : (w->hashes[q] = record_hash(w, q));
        int64_t a = 0, b = w->nr;
        while (a < b) {
            const int64_t m = a + (b - a) / 2;
            if (w->rkeys[m] < h)
                a = m + 1;
            else
                b = m;
        }
        int64_t hits = 0, at = w->out ? w->counts[q] : 0;
        for (int64_t k = a; k < w->nr && w->rkeys[k] == h; k++) {
            const uint8_t *r = w->rcodes + w->rpos[k];
            int64_t j = 0;
            while (j < w->length && r[j] == record_code(w, q, j))
                j++;
            if (j < w->length)
                continue;  /* another string of the same hash */
            if (w->out)
                w->out[at + hits] = w->rpos[k];
            hits++;
        }
        if (!w->out)
            w->counts[q] = hits;
    }
}

/* whole_hits(qcodes, starts, length, strand, rkeys, rpos, rcodes, counts, hashes, out, threads): for
 * each query record (starting at starts[i], `length` codes; strand 1: its reverse complement) the
 * reference windows equal to it, found through rkeys (window hashes, sorted) and rpos (their
 * positions). With out None, counts[i] = its hits and hashes[i] = its hash; else (hashes as that call
 * left them) its hits' positions are written to out from counts[i], in rkeys' order. */
PyObject *py_whole_hits(PyObject *self, PyObject *args) {
    Py_buffer b[8];
    long long length, strand;
    PyObject *out_object;
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*LLy*y*y*w*w*Oi", &b[0], &b[1], &length, &strand, &b[2], &b[3], &b[4], &b[5],
                          &b[6], &out_object, &threads))
        return NULL;
    int used = 7, ok = 1;
    whole_job w = {0};
    if (out_object != Py_None) {
        if (PyObject_GetBuffer(out_object, &b[7], PyBUF_WRITABLE) < 0)
            ok = 0;
        else
            used = 8, w.out = (int64_t *)b[7].buf;
    }
    const int64_t records = (int64_t)b[1].len / 8, nr = (int64_t)b[2].len / 8;
    ok = ok && length > 0 && check_items(&b[3], "whole_hits", 8, nr) && check_items(&b[5], "whole_hits", 8, records) &&
         check_items(&b[6], "whole_hits", 8, records);
    w.hashes = ok ? (uint64_t *)b[6].buf : NULL;
    if (ok) {
        w.codes = (const uint8_t *)b[0].buf, w.n = (int64_t)b[0].len, w.length = length;
        w.starts = (const int64_t *)b[1].buf, w.records = records, w.strand = strand;
        w.rkeys = (const uint64_t *)b[2].buf, w.rpos = (const int64_t *)b[3].buf, w.nr = nr;
        w.rcodes = (const uint8_t *)b[4].buf, w.counts = (int64_t *)b[5].buf;
        for (int64_t k = 0; ok && k < nr; k++)
            ok = w.rpos[k] >= 0 && w.rpos[k] + length <= (int64_t)b[4].len;
        for (int64_t q = 0; ok && q < records; q++)
            ok = w.starts[q] >= 0 && w.starts[q] + length <= w.n;
        if (!ok)
            PyErr_SetString(PyExc_ValueError, "whole_hits: a window or record out of its codes");
    }
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        run_parallel(hits_part, &w, threads < 1 ? 1 : threads);
        Py_END_ALLOW_THREADS
    }
    return release_buffers(b, used, ok);
}
