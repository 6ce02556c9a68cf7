/* FASTA record bodies encoded on the CPU (fasta.py's load_fasta): line breaks and blanks dropped,
 * letters turned into codes by a 256-entry table, on threads. The bodies are cut into pieces of
 * PIECE bytes that threads take from a shared counter: first each piece's symbols, first bad
 * byte and ACGT count (encode_counts), then, once Python has laid the records out, the codes
 * written at each piece's place (encode_records). */
#include "cpu.h"
#include "codes.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PIECE (1 << 20)

typedef struct {
    int64_t record, lo, hi;   /* bytes [lo, hi) of the data, in one record's body */
    int64_t symbols, bad, acgt, at;  /* at: where its codes go (encode_records) */
    int64_t border_to;        /* a record's last piece: the border codes after it run to here (encode_records) */
    int clean;                /* only ACGTU and line feeds (count_clean) */
} piece;

typedef struct {
    const uint8_t *data, *table;
    piece *pieces;
    int64_t n, next;
    uint8_t *codes;  /* NULL: count only */
} job;

/* Symbols and ACGT of bytes [lo, hi), and the index among those symbols of the first bad byte (-1:
 * none). Counted without a branch a byte: only a bad byte, which ends every run, takes one. */
static void count_bytes(const uint8_t *data, const uint8_t *table, int64_t lo, int64_t hi, piece *c) {
    int64_t symbols = 0, acgt = 0, bad = -1;
    for (int64_t x = lo; x < hi; x++) {
        uint8_t v = table[data[x]];
        if (__builtin_expect(v == INVALID, 0) && bad < 0)
            bad = symbols;
        symbols += v != SKIP;
        acgt += v < N_CODE;
    }
    c->symbols = symbols, c->bad = bad, c->acgt = acgt;
}

/* The codes of bytes [lo, hi) written from out on: every byte is stored and the place moves on
 * only past a kept one, so a dropped byte's store is overwritten by the next kept byte's. The
 * bytes after the last kept one are not visited, so no store lands past this piece's codes. */
static void write_bytes(const uint8_t *data, const uint8_t *table, int64_t lo, int64_t hi, uint8_t *out) {
    while (hi > lo && table[data[hi - 1]] == SKIP)
        hi--;
    int64_t at = 0;
    for (int64_t x = lo; x < hi; x++) {
        uint8_t v = table[data[x]];
        out[at] = v;
        at += v != SKIP;
    }
}

/* Most pieces are clean: only A, C, G, T or U (either case) and line feeds. Such a piece is counted 16
 * bytes at a time and written a line at a time by arithmetic instead of the table (write_clean);
 * any other piece (N, IUPAC letters, CR, blanks, a bad byte) goes through count_bytes and write_bytes. */

static int count_clean(const uint8_t *data, int64_t lo, int64_t hi, piece *c) {
    int64_t acgt = 0, lf = 0, x = lo;
    while (hi - x >= 16) {
        /* lanes count to 255 at most before they are summed */
        bytes16 a = {0}, l = {0};
        for (int i = 0; i < 255 && hi - x >= 16; i++, x += 16) {
            bytes16 v;
            memcpy(&v, data + x, 16);
            const bytes16 u = v & 0xdf;
            a -= (bytes16)((u == 'A') | (u == 'C') | (u == 'G') | (u == 'T') | (u == 'U'));
            l -= (bytes16)(v == '\n');
        }
        for (int i = 0; i < 16; i++)
            acgt += a[i], lf += l[i];
    }
    for (; x < hi; x++) {
        const uint8_t u = data[x] & 0xdf;
        acgt += u == 'A' || u == 'C' || u == 'G' || u == 'T' || u == 'U';
        lf += data[x] == '\n';
    }
    if (acgt + lf != hi - lo)
        return 0;
    c->symbols = acgt, c->bad = -1, c->acgt = acgt;
    return 1;
}

/* A byte's code by arithmetic: bits 1-2 of A C G T U are 0 1 3 2 2 in either case; y ^ (y >> 1) turns
 * them into 0 1 2 3 3. */
static void write_clean(const uint8_t *data, int64_t lo, int64_t hi, uint8_t *out) {
    while (lo < hi) {
        const uint8_t *end = memchr(data + lo, '\n', (size_t)(hi - lo));
        const int64_t e = end ? end - data : hi;
        const uint8_t *in = data + lo;
        for (int64_t i = 0; i < e - lo; i++) {
            const uint8_t y = (in[i] >> 1) & 3;
            out[i] = y ^ (y >> 1);
        }
        out += e - lo;
        lo = e + 1;
    }
}

static void count_piece(const uint8_t *data, const uint8_t *table, piece *c) {
    /* write_clean's arithmetic gives the codes of a table that reads both cases alike (not the soft mask's) */
    c->clean = table['a'] == table['A'] && count_clean(data, c->lo, c->hi, c);
    if (!c->clean)
        count_bytes(data, table, c->lo, c->hi, c);
}

static void pieces_part(void *p, int t, int threads) {
    job *j = (job *)p;
    (void)t;
    /* pieces taken a run at a time: a probe set's millions of one-piece records would make the shared
     * counter the bottleneck; a genome's few pieces of a megabase are taken one by one */
    const int64_t run = j->n / ((int64_t)threads * 64) + 1;
    for (;;) {
        const int64_t first = __atomic_fetch_add(&j->next, run, __ATOMIC_RELAXED);
        if (first >= j->n)
            return;
        for (int64_t i = first; i < first + run && i < j->n; i++) {
            piece *c = &j->pieces[i];
            if (!j->codes) {
                if (c->symbols < 0)  /* not known already (encode_records) */
                    count_piece(j->data, j->table, c);
                continue;
            }
            if (c->clean)
                write_clean(j->data, c->lo, c->hi, j->codes + c->at);
            else
                write_bytes(j->data, j->table, c->lo, c->hi, j->codes + c->at);
            if (c->border_to > c->at + c->symbols)  /* the borders after a record, written by the thread that
                                                        touches its pages first */
                memset(j->codes + c->at + c->symbols, BORDER, (size_t)(c->border_to - c->at - c->symbols));
        }
    }
}

/* The pieces of the bodies spans[0..n) (int64 start, end pairs); NULL when memory runs out. */
static piece *cut(const int64_t *spans, int64_t n, int64_t *count) {
    int64_t total = 0;
    for (int64_t r = 0; r < n; r++)
        total += (spans[2 * r + 1] - spans[2 * r] + PIECE - 1) / PIECE;
    piece *pieces = malloc((size_t)(total ? total : 1) * sizeof(piece));
    if (!pieces)
        return NULL;
    int64_t i = 0;
    for (int64_t r = 0; r < n; r++)
        for (int64_t lo = spans[2 * r]; lo < spans[2 * r + 1]; lo += PIECE) {
            int64_t hi = lo + PIECE < spans[2 * r + 1] ? lo + PIECE : spans[2 * r + 1];
            pieces[i++] = (piece){r, lo, hi, -1, -1, 0, 0, 0, 0};  /* symbols -1: not counted yet */
        }
    *count = total;
    return pieces;
}

/* Checks the arguments and cuts the bodies into a job's pieces (0 with an exception set on failure). */
static int prepare(Py_buffer *data, Py_buffer *spans, Py_buffer *table, uint8_t *codes, int threads, job *j) {
    if (table->len != 256 || spans->len % 16) {
        PyErr_SetString(PyExc_ValueError, "encode: a table of 256 bytes and (start, end) int64 pairs");
        return 0;
    }
    const int64_t *s = spans->buf;
    int64_t n = spans->len / 16;
    for (int64_t r = 0; r < n; r++)
        if (s[2 * r] < 0 || s[2 * r] > s[2 * r + 1] || s[2 * r + 1] > data->len) {
            PyErr_SetString(PyExc_ValueError, "encode: a span outside the data");
            return 0;
        }
    *j = (job){data->buf, table->buf, NULL, 0, 0, codes};
    if (!(j->pieces = cut(s, n, &j->n))) {
        PyErr_NoMemory();
        return 0;
    }
    return 1;
}

/* encode_counts(data, spans, table, stats, threads): stats (n x 4 int64) gets each record's symbols,
 * the index of its first bad symbol (-1: none), its ACGT count, and 1 where all its pieces are clean
 * (count_clean). */
PyObject *py_encode_counts(PyObject *self, PyObject *args) {
    Py_buffer data, spans, table, stats;
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*w*i", &data, &spans, &table, &stats, &threads))
        return NULL;
    job j;
    int ok = stats.len == spans.len / 16 * 32 && prepare(&data, &spans, &table, NULL, threads, &j);
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        run_parallel(pieces_part, &j, threads);
        Py_END_ALLOW_THREADS
        int64_t *out = stats.buf;
        for (int64_t r = 0; r < spans.len / 16; r++)
            out[4 * r] = 0, out[4 * r + 1] = -1, out[4 * r + 2] = 0, out[4 * r + 3] = 1;
        for (int64_t i = 0; i < j.n; i++) {
            const piece *c = &j.pieces[i];
            int64_t *o = out + 4 * c->record;
            if (o[1] < 0 && c->bad >= 0)
                o[1] = o[0] + c->bad;
            o[0] += c->symbols, o[2] += c->acgt, o[3] &= c->clean;
        }
        free(j.pieces);
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "encode_counts: stats must hold 4 int64 a record");
    }
    PyBuffer_Release(&data), PyBuffer_Release(&spans), PyBuffer_Release(&table), PyBuffer_Release(&stats);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

/* encode_records(data, spans, table, codes, starts, stats, threads): each record's codes written at
 * codes[starts[r]...] and border codes everywhere else (stats: encode_counts' of the same records, which
 * checked them; a record of one piece is not counted again, a longer one's pieces are, to place each).
 * codes may come uninitialised, so that threads, not one, touch its pages first. */
PyObject *py_encode_records(PyObject *self, PyObject *args) {
    Py_buffer data, spans, table, codes, starts, stats;
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*w*y*y*i", &data, &spans, &table, &codes, &starts, &stats, &threads))
        return NULL;
    job j;
    int ok = starts.len == spans.len / 2 && stats.len == spans.len * 2 &&
             prepare(&data, &spans, &table, codes.buf, threads, &j);
    if (ok) {
        const int64_t *first = starts.buf, *counted = stats.buf, records = starts.len / 8;
        /* a piece's codes go after those of the pieces before it in its record: the pieces of records of
         * more than one piece counted first (marked by symbols -1), the others known */
        job count = j;
        count.codes = NULL;
        for (int64_t i = 0; i < j.n; i++) {
            piece *c = &j.pieces[i];
            const int alone = (i == 0 || j.pieces[i - 1].record != c->record) &&
                              (i + 1 == j.n || j.pieces[i + 1].record != c->record);
            c->symbols = alone ? counted[4 * c->record] : -1;
            c->clean = alone && counted[4 * c->record + 3];
        }
        Py_BEGIN_ALLOW_THREADS
        run_parallel(pieces_part, &count, threads);
        Py_END_ALLOW_THREADS
        int64_t at = 0, record = -1;
        for (int64_t i = 0; i < j.n && ok; i++) {
            piece *c = &j.pieces[i];
            if (c->record != record)
                record = c->record, at = first[record];
            c->at = at;
            at += c->symbols;
            ok = c->at >= 0 && c->symbols >= 0 && at <= codes.len;
            if (i + 1 == j.n || j.pieces[i + 1].record != record)  /* its last piece: borders up to the next */
                c->border_to = record + 1 < records ? first[record + 1] : codes.len;
            ok = ok && c->border_to <= codes.len;
        }
        /* the borders before the first record, and around records of no piece (empty: refused earlier) */
        if (ok && records)
            memset(codes.buf, BORDER, (size_t)(first[0] < codes.len ? first[0] : codes.len));
        if (ok) {
            Py_BEGIN_ALLOW_THREADS
            run_parallel(pieces_part, &j, threads);
            Py_END_ALLOW_THREADS
        } else {
            PyErr_SetString(PyExc_ValueError, "encode_records: a record outside the codes");
        }
        free(j.pieces);
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "encode_records: one start and 4 stats a record");
    }
    PyBuffer_Release(&data), PyBuffer_Release(&spans), PyBuffer_Release(&table), PyBuffer_Release(&codes);
    PyBuffer_Release(&starts), PyBuffer_Release(&stats);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

/* IUPAC letters (B D H K M R S V W Y, either case; fasta.py's iupac_letters): the codes call them N, the
 * SNP lines print them. A record a thread. */
typedef struct {
    const uint8_t *data, *table;
    const int64_t *spans, *starts, *at;  /* at: where each record's letters go (write mode) */
    int64_t *count;                      /* count mode: each record's letters */
    int64_t *pos;
    uint8_t *let;
    int64_t total, n, next;              /* total: the letters of every record (write mode) */
} letters_job;

/* The IUPAC letters of bytes [lo, hi), 16 at a time (most records hold none: only those that do are
 * walked byte by byte, to place them). */
static int64_t count_letters(const uint8_t *data, int64_t lo, int64_t hi) {
    int64_t found = 0, x = lo;
    while (hi - x >= 16) {
        bytes16 f = {0};
        for (int i = 0; i < 255 && hi - x >= 16; i++, x += 16) {
            bytes16 v;
            memcpy(&v, data + x, 16);
            const bytes16 u = v & 0xdf;
            f -= (bytes16)((u == 'B') | (u == 'D') | (u == 'H') | (u == 'K') | (u == 'M') | (u == 'R') | (u == 'S') |
                           (u == 'V') | (u == 'W') | (u == 'Y'));
        }
        for (int i = 0; i < 16; i++)
            found += f[i];
    }
    for (; x < hi; x++) {
        const uint8_t u = data[x] & 0xdf;
        found += u == 'B' || u == 'D' || u == 'H' || u == 'K' || u == 'M' || u == 'R' || u == 'S' || u == 'V' ||
                 u == 'W' || u == 'Y';
    }
    return found;
}

static void letters_part(void *p, int t, int threads) {
    letters_job *j = (letters_job *)p;
    (void)t, (void)threads;
    uint8_t iupac[256] = {0};
    for (const char *c = "BDHKMRSVWY"; *c; c++)
        iupac[(uint8_t)*c] = iupac[(uint8_t)(*c | 0x20)] = 1;
    for (;;) {
        const int64_t r = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (r >= j->n)
            return;
        if (!j->pos) {
            j->count[r] = count_letters(j->data, j->spans[2 * r], j->spans[2 * r + 1]);
            continue;
        }
        if ((r + 1 < j->n ? j->at[r + 1] : j->total) == j->at[r])
            continue; /* none in this record */
        int64_t symbols = 0, found = 0;
        for (int64_t x = j->spans[2 * r]; x < j->spans[2 * r + 1]; x++) {
            const uint8_t b = j->data[x];
            if (iupac[b]) {
                j->pos[j->at[r] + found] = j->starts[r] + symbols;
                j->let[j->at[r] + found] = b & 0xdf;
            }
            found += iupac[b];
            symbols += j->table[b] != SKIP;
        }
    }
}

/* iupac_letters(data, spans, table, starts, counts, pos, let, threads): with pos empty, each record's
 * IUPAC letters counted into counts; else counts holds where each record's go (a prefix sum of the
 * counts), and pos (int64) gets their places in the codes (starts: each record's) and let the letters. */
PyObject *py_iupac_letters(PyObject *self, PyObject *args) {
    Py_buffer b[7];
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &threads))
        return NULL;
    const int64_t n = b[1].len / 16;
    int ok = b[2].len == 256 && check_items(&b[3], "iupac_letters", 8, n) &&
             check_items(&b[4], "iupac_letters", 8, n) && check_items(&b[5], "iupac_letters", 8, b[6].len);
    const int64_t *spans = b[1].buf;
    for (int64_t r = 0; r < n && ok; r++)
        ok = spans[2 * r] >= 0 && spans[2 * r] <= spans[2 * r + 1] && spans[2 * r + 1] <= b[0].len;
    const int64_t *at = b[4].buf;
    for (int64_t r = 0; r < n && ok && b[6].len; r++)
        ok = at[r] >= 0 && at[r] <= b[6].len;
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "iupac_letters");
        return release_buffers(b, 7, 0);
    }
    letters_job j = {b[0].buf, b[2].buf, spans, b[3].buf, at, b[4].buf, b[6].len ? b[5].buf : NULL, b[6].buf,
                     b[6].len, n, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(letters_part, &j, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    return release_buffers(b, 7, 1);
}
