/* A genome's sketch, made by the workflow's scan from the FASTA file's bytes (workflow/sketch.py):
 * the sites whose canonical 20-mer hashes below a threshold (a fraction 2^-shift of the genome, the
 * same k-mers in every genome), each with the hash of the canonical 32-mer centred on it (the
 * engine's words: k = 32). Counted in a first pass, written at each record's offset in a second,
 * where the periodic 32-mers (a unit of at most PERIOD bases repeated: microsatellites, poly-A) are
 * also counted exactly, every one of them: a few hundred of them make most of a repeat-rich pair's
 * seeds, too few to be sampled. */
#include "cpu.h"

#define SITE_K 20
#define WORD_K 32
#define CENTRE ((WORD_K - SITE_K) / 2) /* the 32-mer starts this many bases before its 20-mer */

#define PERIOD 8
#define PERIODIC_SLOTS (1 << 18) /* more than the periodic 32-mers there are (sum of 4^p, p <= PERIOD) */

typedef struct {
    uint64_t h20, h32;
    int64_t pos;
    int32_t rec, flags; /* 1: the 20-mer is read forward; 2: the 32-mer is periodic */
} site;

/* a 64-bit finaliser: every bit of the packed k-mer moves every bit of the hash */
static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

typedef struct {
    const uint8_t *data;
    const int64_t *starts, *ends;
    int64_t n;
    int shift;
    int64_t *counts; /* pass 1: the sites of each record; pass 2: where each record's sites start */
    site *out;       /* NULL in pass 1 */
    uint64_t *periodic_keys; /* pass 2: PERIODIC_SLOTS a thread, key + 1 (0: empty) */
    int64_t *periodic_counts;
} sketch_job;

static inline int periodic(uint64_t w) {
    for (int p = 1; p <= PERIOD; p++)
        if ((w >> (2 * p)) == (w & (((uint64_t)1 << (64 - 2 * p)) - 1)))
            return 1;
    return 0;
}

/* one more of this canonical periodic 32-mer in the thread's table (open addressing) */
static void count_periodic(uint64_t *keys, int64_t *counts, uint64_t w) {
    size_t at = (size_t)(mix64(w) & (PERIODIC_SLOTS - 1));
    while (keys[at] != 0 && keys[at] != w + 1)
        at = (at + 1) & (PERIODIC_SLOTS - 1);
    keys[at] = w + 1;
    counts[at]++;
}

static void sketch_record(const sketch_job *j, int64_t r, uint64_t *pkeys, int64_t *pcounts) {
    static const uint64_t salt20 = 0x9e3779b97f4a7c15ULL, salt32 = 0x632be59bd9b4e019ULL;
    const uint64_t mask20 = ((uint64_t)1 << (2 * SITE_K)) - 1;
    const int high = 64 - j->shift;
    uint64_t f20 = 0, r20 = 0, f32 = 0, r32 = 0;
    int run20 = 0, run32 = 0;
    uint8_t ring[8];
    int64_t p = -1, found = 0;
    site *out = j->out ? j->out + j->counts[r] : NULL;
    for (int64_t b = j->starts[r]; b < j->ends[r]; b++) {
        const uint8_t byte = j->data[b];
        if (byte == '\n' || byte == '\r' || byte == ' ' || byte == '\t')
            continue;
        uint8_t c;
        switch (byte | 0x20) { /* lowercase: soft-masked bases count */
        case 'a': c = 0; break;
        case 'c': c = 1; break;
        case 'g': c = 2; break;
        case 't': c = 3; break;
        default: c = 4;
        }
        p++;
        ring[p & 7] = c;
        if (c < 4) {
            f32 = (f32 << 2) | c;
            r32 = (r32 >> 2) | ((uint64_t)(3 - c) << 62);
            run32++;
            if (out && run32 >= WORD_K && periodic(f32))
                count_periodic(pkeys, pcounts, f32 < r32 ? f32 : r32);
        } else {
            run32 = 0;
        }
        if (p < CENTRE)
            continue;
        /* the 20-mer runs CENTRE bases behind, so that the 32-mer centred on it has just ended */
        const uint8_t d = ring[(p - CENTRE) & 7];
        if (d < 4) {
            f20 = ((f20 << 2) | d) & mask20;
            r20 = (r20 >> 2) | ((uint64_t)(3 - d) << (2 * SITE_K - 2));
            run20++;
        } else {
            run20 = 0;
        }
        if (run20 < SITE_K)
            continue;
        const uint64_t h20 = mix64((f20 < r20 ? f20 : r20) ^ salt20);
        if (high < 64 && h20 >> high)
            continue;
        if (out) {
            site *s = &out[found];
            s->h20 = h20;
            const int whole = run32 >= WORD_K;
            s->h32 = whole ? mix64((f32 < r32 ? f32 : r32) ^ salt32) : 0;
            s->pos = p - CENTRE - (SITE_K - 1);
            s->rec = (int32_t)r;
            s->flags = (f20 <= r20) | (whole && periodic(f32)) << 1;
        }
        found++;
    }
    if (!out)
        j->counts[r] = found;
}

static void sketch_part(void *p, int t, int threads) {
    const sketch_job *j = (const sketch_job *)p;
    uint64_t *pkeys = j->periodic_keys ? j->periodic_keys + (size_t)t * PERIODIC_SLOTS : NULL;
    int64_t *pcounts = j->periodic_counts ? j->periodic_counts + (size_t)t * PERIODIC_SLOTS : NULL;
    for (int64_t r = t; r < j->n; r += threads) /* records dealt out in turn: a chromosome a thread */
        sketch_record(j, r, pkeys, pcounts);
}

/* sketch_sites(data, starts, ends, shift, counts, out, periodic_keys, periodic_counts, threads): with out
 * None, counts[i] = the sites of record body data[starts[i] .. ends[i]); else out (32 bytes a site:
 * h20, h32, pos as uint64, uint64, int64, then record and flags as int32) filled from counts[i], each
 * record's first site's index (sketch.py sizes out from the first pass's counts), and each periodic
 * 32-mer counted in the tables of the thread that met it (PERIODIC_SLOTS a thread, zeroed, uint64 key
 * + 1 and int64 count: as many slots as threads * PERIODIC_SLOTS; threads at most the records). */
PyObject *py_sketch_sites(PyObject *self, PyObject *args) {
    Py_buffer b[7] = {0};
    PyObject *out, *pk, *pc;
    int shift, threads;
    if (!PyArg_ParseTuple(args, "y*y*y*iw*OOOi", &b[0], &b[1], &b[2], &shift, &b[3], &out, &pk, &pc, &threads))
        return NULL;
    int n_buffers = 4, ok = 1;
    sketch_job j = {b[0].buf, b[1].buf, b[2].buf, (int64_t)b[1].len / 8, shift, b[3].buf, NULL, NULL, NULL};
    threads = threads < 1 ? 1 : threads < j.n ? threads : (int)(j.n > 0 ? j.n : 1);
    if (out != Py_None) {
        ok = PyObject_GetBuffer(out, &b[4], PyBUF_WRITABLE) == 0 &&
             PyObject_GetBuffer(pk, &b[5], PyBUF_WRITABLE) == 0 && PyObject_GetBuffer(pc, &b[6], PyBUF_WRITABLE) == 0;
        n_buffers = ok ? 7 : 4;
        j.out = ok ? b[4].buf : NULL;
        j.periodic_keys = ok ? b[5].buf : NULL;
        j.periodic_counts = ok ? b[6].buf : NULL;
        ok = ok && b[5].len == (Py_ssize_t)threads * PERIODIC_SLOTS * 8 && b[6].len == b[5].len;
    }
    ok = ok && b[1].len == b[2].len && b[3].len == b[1].len && shift >= 0 && shift < 64;
    for (int64_t i = 0; ok && i < j.n; i++)
        ok = j.starts[i] >= 0 && j.starts[i] <= j.ends[i] && j.ends[i] <= (int64_t)b[0].len;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        run_parallel(sketch_part, &j, threads);
        Py_END_ALLOW_THREADS
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "sketch_sites: spans outside the data, a bad shift or periodic tables of the wrong size");
    }
    return release_buffers(b, n_buffers, ok);
}
