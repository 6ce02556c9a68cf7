/* A genome's sketch, made by the workflow's scan from the FASTA file's bytes (workflow/sketch.py):
 * the sites whose canonical 20-mer hashes below a threshold (a fraction 2^-shift of the genome, the
 * same k-mers in every genome), each with the hash of the canonical 32-mer centred on it (the
 * engine's words: k = 32), and every run of periodic 32-mers (a unit of at most PERIOD bases
 * repeated: microsatellites, poly-A), its family and length: a few hundred such words make most of
 * a repeat-rich pair's seeds, too few to be sampled. Counted in a first pass, written at each
 * record's offsets in a second. */
#include "cpu.h"

#define SITE_K 20
#define WORD_K 32
#define CENTRE ((WORD_K - SITE_K) / 2) /* the 32-mer starts this many bases before its 20-mer */

#define PERIOD 8
/* periodic 32-mers of one family this near are one run: a mismatch in a microsatellite leaves 32 words
 * that are not periodic, its HSPs run through it */
#define MERGE_GAP 40

typedef struct {
    uint64_t h20, h32;
    int64_t pos;
    int32_t rec, flags; /* 1: the 20-mer is read forward; 2: the 32-mer is periodic */
} site;

/* a run of periodic 32-mers of one family (MERGE_GAP apart at most): its bases (the 32-mers' span) */
typedef struct {
    uint32_t family, length;
} tandem;

/* a 64-bit finaliser: every bit of the packed k-mer moves every bit of the hash */
static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* the smallest period of a 32-mer (packed forward), 0 where it has none up to PERIOD */
static inline int period_of(uint64_t w) {
    for (int p = 1; p <= PERIOD; p++)
        if ((w >> (2 * p)) == (w & (((uint64_t)1 << (64 - 2 * p)) - 1)))
            return p;
    return 0;
}

/* a periodic 32-mer's family: its period (high 16 bits) and the least rotation of its unit read on
 * either strand, so that every 32-mer of a microsatellite and of its reverse complement is one family */
static uint32_t family_of(uint64_t w, int p) {
    const uint32_t mask = (1u << (2 * p)) - 1, unit = (uint32_t)(w >> (64 - 2 * p));
    uint32_t rc = 0, best = mask;
    for (int i = 0; i < p; i++)
        rc = (rc << 2) | (3 - ((unit >> (2 * i)) & 3));
    for (int r = 0; r < p; r++) {
        const uint32_t a = ((unit << (2 * r)) | (unit >> (2 * (p - r)))) & mask;
        const uint32_t b = ((rc << (2 * r)) | (rc >> (2 * (p - r)))) & mask;
        best = a < best ? a : best;
        best = b < best ? b : best;
    }
    return ((uint32_t)p << 16) | best;
}

typedef struct {
    const uint8_t *data;
    const int64_t *starts, *ends;
    int64_t n;
    int shift;
    int64_t *counts; /* pass 1: the sites of each record; pass 2: where each record's sites start */
    int64_t *run_counts; /* the same for the runs of periodic 32-mers */
    site *out;       /* NULL in pass 1 */
    tandem *runs;
} sketch_job;

static void sketch_record(const sketch_job *j, int64_t r) {
    static const uint64_t salt20 = 0x9e3779b97f4a7c15ULL, salt32 = 0x632be59bd9b4e019ULL;
    const uint64_t mask20 = ((uint64_t)1 << (2 * SITE_K)) - 1;
    const int high = 64 - j->shift;
    uint64_t f20 = 0, r20 = 0, f32 = 0, r32 = 0;
    int run20 = 0, run32 = 0;
    uint8_t ring[8];
    int64_t p = -1, found = 0, runs = 0, run_start = 0, run_end = 0;
    uint32_t run_family = 0;
    site *out = j->out ? j->out + j->counts[r] : NULL;
    tandem *tandems = j->out ? j->runs + j->run_counts[r] : NULL;
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
        } else {
            run32 = 0;
        }
        const int period = run32 >= WORD_K ? period_of(f32) : 0;
        if (period) { /* the 32-mer starting at p - 31 is periodic */
            const uint32_t family = family_of(f32, period);
            if (family != run_family || p - run_end > MERGE_GAP) {
                if (run_family && tandems)
                    tandems[runs] = (tandem){run_family, (uint32_t)(run_end - run_start + WORD_K)};
                runs += run_family != 0;
                run_family = family;
                run_start = p;
            }
            run_end = p;
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
            s->h32 = run32 >= WORD_K ? mix64((f32 < r32 ? f32 : r32) ^ salt32) : 0;
            s->pos = p - CENTRE - (SITE_K - 1);
            s->rec = (int32_t)r;
            s->flags = (f20 <= r20) | (period != 0) << 1;
        }
        found++;
    }
    if (run_family && tandems)
        tandems[runs] = (tandem){run_family, (uint32_t)(run_end - run_start + WORD_K)};
    runs += run_family != 0;
    if (!out) {
        j->counts[r] = found;
        j->run_counts[r] = runs;
    }
}

static void sketch_part(void *p, int t, int threads) {
    const sketch_job *j = (const sketch_job *)p;
    for (int64_t r = t; r < j->n; r += threads) /* records dealt out in turn: a chromosome a thread */
        sketch_record(j, r);
}

/* sketch_sites(data, starts, ends, shift, counts, run_counts, out, runs, threads): with out None,
 * counts[i] = the sites of record body data[starts[i] .. ends[i]) and run_counts[i] its runs of
 * periodic 32-mers; else out (32 bytes a site: h20, h32, pos as uint64, uint64, int64, then record
 * and flags as int32) and runs (8 bytes a run: family and bases as uint32) filled from counts[i] and
 * run_counts[i], each record's first one's index (sketch.py sizes them from the first pass). */
PyObject *py_sketch_sites(PyObject *self, PyObject *args) {
    Py_buffer b[7] = {0};
    PyObject *out, *runs;
    int shift, threads;
    if (!PyArg_ParseTuple(args, "y*y*y*iw*w*OOi", &b[0], &b[1], &b[2], &shift, &b[3], &b[4], &out, &runs, &threads))
        return NULL;
    int n_buffers = 5, ok = 1;
    sketch_job j = {b[0].buf, b[1].buf, b[2].buf, (int64_t)b[1].len / 8, shift, b[3].buf, b[4].buf, NULL, NULL};
    if (out != Py_None) {
        ok = PyObject_GetBuffer(out, &b[5], PyBUF_WRITABLE) == 0;
        n_buffers = ok ? 6 : 5;
        ok = ok && PyObject_GetBuffer(runs, &b[6], PyBUF_WRITABLE) == 0;
        n_buffers = ok ? 7 : n_buffers;
        j.out = ok ? b[5].buf : NULL;
        j.runs = ok ? b[6].buf : NULL;
    }
    ok = ok && b[1].len == b[2].len && b[3].len == b[1].len && b[4].len == b[1].len && shift >= 0 && shift < 64;
    for (int64_t i = 0; ok && i < j.n; i++)
        ok = j.starts[i] >= 0 && j.starts[i] <= j.ends[i] && j.ends[i] <= (int64_t)b[0].len;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        run_parallel(sketch_part, &j, threads < 1 ? 1 : threads);
        Py_END_ALLOW_THREADS
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "sketch_sites: spans outside the data or a bad shift");
    }
    return release_buffers(b, n_buffers, ok);
}
