/* A genome's sketch, made by the workflow's scan from the FASTA file's bytes (workflow/sketch.py):
 * the sites whose canonical 20-mer hashes below a threshold (a fraction 2^-shift of the genome, the
 * same k-mers in every genome), each with the hash of the canonical 32-mer centred on it (the
 * engine's words: k = 32), and every run of periodic 32-mers (a unit of at most PERIOD bases
 * repeated: microsatellites, poly-A), its family and where it lies: a few hundred such words make
 * most of a repeat-rich pair's seeds, too few to be sampled. Record bodies are cut in pieces of
 * about equal size, so that every core has a share of a genome of few long chromosomes; each piece
 * writes into the room sketch.py gives it from its size (and counts what it finds: the few pieces
 * that find more are read again with room enough), and sketch.py joins the runs a cut split. */
#include "cpu.h"

#include <pthread.h>

#define SITE_K 20
#define WORD_K 32
#define CENTRE ((WORD_K - SITE_K) / 2) /* the 32-mer starts this many bases before its 20-mer */

#define PERIOD 8 /* period_of looks at 24, 5 and 7 first: each period up to 8 divides one of them */
_Static_assert(PERIOD == 8, "period_of's first look covers periods up to 8");
/* periodic 32-mers of one family this near are one run: a mismatch in a microsatellite leaves 32 words
 * that are not periodic, its HSPs run through it */
#define MERGE_GAP 40

typedef struct {
    uint64_t h20, h32;
    int64_t pos;
    int32_t rec, flags; /* 1: the 20-mer is read forward; 2: the 32-mer is periodic */
} site;

/* a run of periodic 32-mers of one family (MERGE_GAP apart at most) in a piece: the first and the last
 * 32-mer's last base */
typedef struct {
    uint32_t family;
    int32_t rec;
    int64_t first, last;
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

static inline int has_period(uint64_t w, int p) {
    return (w >> (2 * p)) == (w & (((uint64_t)1 << (64 - 2 * p)) - 1));
}

/* the smallest period of a 32-mer (packed forward), 0 where it has none up to PERIOD; a word with a
 * period has its multiples too, so that periods 24, 5 and 7 are looked at first, and most words are
 * let go after those three */
static inline int period_of(uint64_t w) {
    if (!has_period(w, 24) && !has_period(w, 5) && !has_period(w, 7))
        return 0;
    for (int p = 1; p <= PERIOD; p++)
        if (has_period(w, p))
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

/* a piece of a record body: its bytes [start, end), its record, the number its first base has in the
 * record, and the record body's first byte (the 31 bases before the piece are read again, so that
 * its first words are whole) */
typedef struct {
    const uint8_t *data;
    const int64_t *starts, *ends, *recs, *bases, *firsts;
    int64_t n;
    int shift;
    const int64_t *at, *room;         /* where a piece's sites go in out, and how many fit there */
    const int64_t *run_at, *run_room; /* the same for its runs of periodic 32-mers in runs */
    site *out;
    tandem *runs;
    int64_t *found, *run_found; /* what a piece found, written or not */
} sketch_job;

/* byte -> code: A C G T of either case (soft-masked bases count) 0..3, another letter 4, white space 5;
   and the codes 0..4 themselves, so that a SeqSet's codes are sketched as the FASTA they were read from
   (sketch_of_codes; a FASTA's sequence never holds those bytes: its reader refuses them) */
static uint8_t CODES[256];
static pthread_once_t codes_once = PTHREAD_ONCE_INIT;

static void fill_codes(void) {
    for (int c = 0; c < 256; c++)
        CODES[c] = 4;
    CODES['\n'] = CODES['\r'] = CODES[' '] = CODES['\t'] = 5;
    CODES['A'] = CODES['a'] = 0, CODES['C'] = CODES['c'] = 1, CODES['G'] = CODES['g'] = 2, CODES['T'] = CODES['t'] = 3;
    for (int c = 0; c < 4; c++)
        CODES[c] = (uint8_t)c;
}

static void sketch_piece(const sketch_job *j, int64_t i) {
    static const uint64_t salt20 = 0x9e3779b97f4a7c15ULL, salt32 = 0x632be59bd9b4e019ULL;
    const uint64_t mask20 = ((uint64_t)1 << (2 * SITE_K)) - 1;
    const int high = 64 - j->shift;
    const uint8_t *data = j->data;
    const int64_t first_base = j->bases[i];
    int64_t b = j->starts[i], before = 0;
    while (b > j->firsts[i] && before < WORD_K - 1)
        before += CODES[data[--b]] != 5;
    /* bad: a bit a base of the last 64, set where it is not A, C, G or T (before the record: all set) */
    uint64_t f32 = 0, r32 = 0, bad = ~(uint64_t)0;
    int64_t p = first_base - before - 1, found = 0, runs = 0, run_first = 0, run_last = 0;
    uint32_t run_family = 0;
    site *out = j->out + j->at[i];
    tandem *tandems = j->runs + j->run_at[i];
    const int64_t room = j->room[i], run_room = j->run_room[i];
    for (const int64_t end = j->ends[i]; b < end; b++) {
        const uint8_t c = CODES[data[b]];
        if (c == 5)
            continue;
        p++;
        f32 = (f32 << 2) | (c & 3);
        r32 = (r32 >> 2) | ((uint64_t)(3 - (c & 3)) << 62);
        bad = (bad << 1) | (c == 4);
        if (p < first_base)
            continue;
        const int whole = (uint32_t)bad == 0; /* the 32-mer ending here: A, C, G and T only */
        const int period = whole ? period_of(f32) : 0;
        if (period) { /* the 32-mer starting at p - 31 is periodic */
            const uint32_t family = family_of(f32, period);
            if (family != run_family || p - run_last > MERGE_GAP) {
                if (run_family && runs < run_room)
                    tandems[runs] = (tandem){run_family, (int32_t)j->recs[i], run_first, run_last};
                runs += run_family != 0;
                run_family = family;
                run_first = p;
            }
            run_last = p;
        }
        /* the 20-mer CENTRE bases behind, so that the 32-mer centred on it has just ended */
        if ((bad >> CENTRE) & (((uint64_t)1 << SITE_K) - 1))
            continue;
        const uint64_t f20 = (f32 >> (2 * CENTRE)) & mask20, r20 = (r32 >> (2 * CENTRE)) & mask20;
        const uint64_t h20 = mix64((f20 < r20 ? f20 : r20) ^ salt20);
        if (high < 64 && h20 >> high)
            continue;
        if (found < room) {
            site *s = &out[found];
            s->h20 = h20;
            s->h32 = whole ? mix64((f32 < r32 ? f32 : r32) ^ salt32) : 0;
            s->pos = p - CENTRE - (SITE_K - 1);
            s->rec = (int32_t)j->recs[i];
            s->flags = (f20 <= r20) | (period != 0) << 1;
        }
        found++;
    }
    if (run_family && runs < run_room)
        tandems[runs] = (tandem){run_family, (int32_t)j->recs[i], run_first, run_last};
    runs += run_family != 0;
    j->found[i] = found;
    j->run_found[i] = runs;
}

static void sketch_part(void *p, int t, int threads) {
    const sketch_job *j = (const sketch_job *)p;
    for (int64_t i = t; i < j->n; i += threads) /* pieces of about one size, dealt out in turn */
        sketch_piece(j, i);
}

/* sketch_sites(data, starts, ends, recs, bases, firsts, shift, at, room, run_at, run_room, out, runs, found,
 * run_found, threads): piece i of a record body is data[starts[i] .. ends[i]), of record recs[i], its first
 * base the record's bases[i]-th, the body starting at byte firsts[i]. Its first room[i] sites are written
 * at out[at[i] ..] (32 bytes a site: h20, h32, pos as uint64, uint64, int64, then record and flags as
 * int32), its first run_room[i] runs of periodic 32-mers at runs[run_at[i] ..] (24 bytes a run: family
 * as uint32, record as int32, the first and the last periodic 32-mer's last base as int64), and what it
 * found, written or not, in found[i] and run_found[i]. */
PyObject *py_sketch_sites(PyObject *self, PyObject *args) {
    Py_buffer b[15] = {0};
    int shift, threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*iy*y*y*y*w*w*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &shift,
                          &b[6], &b[7], &b[8], &b[9], &b[10], &b[11], &b[12], &b[13], &threads))
        return NULL;
    const int64_t n = (int64_t)b[1].len / 8;
    sketch_job j = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, n, shift, b[6].buf, b[7].buf,
                    b[8].buf, b[9].buf, b[10].buf, b[11].buf, b[12].buf, b[13].buf};
    int ok = shift >= 0 && shift < 64;
    for (int k = 2; k < 14; k++)
        ok = ok && (k == 10 || k == 11 || b[k].len == b[1].len);
    for (int64_t i = 0; ok && i < n; i++)
        ok = j.firsts[i] >= 0 && j.firsts[i] <= j.starts[i] && j.starts[i] <= j.ends[i] &&
             j.ends[i] <= (int64_t)b[0].len && j.bases[i] >= 0 && j.at[i] >= 0 && j.room[i] >= 0 &&
             (j.at[i] + j.room[i]) * (int64_t)sizeof(site) <= (int64_t)b[10].len && j.run_at[i] >= 0 &&
             j.run_room[i] >= 0 && (j.run_at[i] + j.run_room[i]) * (int64_t)sizeof(tandem) <= (int64_t)b[11].len;
    if (ok) {
        pthread_once(&codes_once, fill_codes);
        Py_BEGIN_ALLOW_THREADS
        run_parallel(sketch_part, &j, threads < 1 ? 1 : threads);
        Py_END_ALLOW_THREADS
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "sketch_sites: pieces outside the data or their room, or a bad shift");
    }
    return release_buffers(b, 14, ok);
}
