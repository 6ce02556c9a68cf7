/* FASTA record bodies encoded on the CPU (fasta.py's load_fasta): line breaks and blanks dropped,
 * letters turned into codes by a 256-entry table, on threads. The bodies are cut into pieces of
 * PIECE bytes that threads take from a shared counter: first each piece's symbols, first bad
 * byte and ACGT count (encode_counts), then, once Python has laid the records out, the codes
 * written at each piece's place (encode_records). */
#include "cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PIECE (1 << 20)
#define HUGE_PAGE ((size_t)1 << 21)
#define SKIP 0xfe     /* table entry of a byte dropped (line break, blank) */
#define INVALID 0xff  /* table entry of a byte that is no sequence letter */

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
typedef uint8_t bytes16 __attribute__((vector_size(16)));

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
    c->clean = count_clean(data, c->lo, c->hi, c);
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

/* ---- A large file read on threads (fasta.py's read_bytes): each part's pages touched and copied by
 * its own thread. */

typedef struct {
    int fd;
    char *buf;
    int64_t size;
    int failed;
} read_job;

static void read_part(void *p, int t, int threads) {
    read_job *r = (read_job *)p;
    size_t lo, hi;
    part_range((size_t)r->size, t, threads, &lo, &hi);
    while (lo < hi) {
        ssize_t got = pread(r->fd, r->buf + lo, hi - lo, (off_t)lo);
        if (got <= 0) {
            __atomic_store_n(&r->failed, got < 0 ? errno : -1, __ATOMIC_RELAXED);
            return;
        }
        lo += (size_t)got;
    }
}

/* read_file(path, size, threads) -> bytes: the first `size` bytes of the file, read in `threads` parts
 * at once; OSError where the file cannot be read or is shorter. */
PyObject *py_read_file(PyObject *self, PyObject *args) {
    PyObject *path;
    long long size;
    int threads;
    if (!PyArg_ParseTuple(args, "O&Li", PyUnicode_FSConverter, &path, &size, &threads))
        return NULL;
    PyObject *out = size >= 0 ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size) : NULL;
    int fd = -1, error = 0;
    if (out && size >= HUGE_PAGE) {
        /* huge pages where the kernel gives them on request (as NumPy asks for its large arrays): a
         * 512th of the page faults while the file is read, and of the work when the bytes are freed */
        uintptr_t lo = ((uintptr_t)PyBytes_AS_STRING(out) + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        uintptr_t hi = ((uintptr_t)PyBytes_AS_STRING(out) + (uintptr_t)size) & ~(uintptr_t)(HUGE_PAGE - 1);
        if (hi > lo)
            madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
    if (out) {
        Py_BEGIN_ALLOW_THREADS
        fd = open(PyBytes_AS_STRING(path), O_RDONLY);
        if (fd < 0) {
            error = errno;
        } else {
            read_job r = {fd, PyBytes_AS_STRING(out), size, 0};
            run_parallel(read_part, &r, threads < 1 ? 1 : threads);
            error = r.failed;
            close(fd);
        }
        Py_END_ALLOW_THREADS
    }
    if (out && error) {
        Py_CLEAR(out);
        if (error > 0) {
            errno = error;
            PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
        } else {
            PyErr_SetString(PyExc_OSError, "the file ended before its size (changed while read?)");
        }
    }
    Py_DECREF(path);
    return out;
}

/* ---- Whether a large file holds a byte (fasta.py's holds): a part a thread, memchr on each. */

typedef struct {
    const uint8_t *data;
    int64_t size;
    int needle, found;
} holds_job;

static void holds_part(void *p, int t, int threads) {
    holds_job *j = (holds_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    if (hi > lo && memchr(j->data + lo, j->needle, hi - lo))
        __atomic_store_n(&j->found, 1, __ATOMIC_RELAXED);
}

/* holds_byte(data, byte, threads) -> bool: whether the byte (an int 0..255) occurs in data. */
PyObject *py_holds_byte(PyObject *self, PyObject *args) {
    Py_buffer b;
    int byte, threads;
    if (!PyArg_ParseTuple(args, "y*ii", &b, &byte, &threads))
        return NULL;
    holds_job j = {b.buf, (int64_t)b.len, byte & 0xff, 0};
    Py_BEGIN_ALLOW_THREADS
    run_parallel(holds_part, &j, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&b);
    return PyBool_FromLong(j.found);
}

/* ---- A large copy on threads (arrays.py's to_device: a file's bytes into the pinned buffers that go to
 * the device), a part a thread: one thread's memcpy moves a third of what the memory can. */

typedef struct {
    uint8_t *out;
    const uint8_t *data;
    int64_t size;
} copy_job;

static void copy_part(void *p, int t, int threads) {
    copy_job *j = (copy_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    memcpy(j->out + lo, j->data + lo, hi - lo);
}

/* copy_bytes(out, data, threads): data's bytes into out (at least as long). */
PyObject *py_copy_bytes(PyObject *self, PyObject *args) {
    Py_buffer b[2];
    int threads;
    if (!PyArg_ParseTuple(args, "w*y*i", &b[0], &b[1], &threads))
        return NULL;
    int ok = b[0].len >= b[1].len;
    if (ok) {
        copy_job j = {b[0].buf, b[1].buf, (int64_t)b[1].len};
        /* parts of at least 4 MiB: a thread's start costs more than copying less */
        int parts = (int)(b[1].len >> 22) + 1;
        Py_BEGIN_ALLOW_THREADS
        run_parallel(copy_part, &j, threads < 1 ? 1 : threads < parts ? threads : parts);
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "copy_bytes: the output is shorter than the data");
    }
    return release_buffers(b, 2, ok);
}

/* ---- Spans of codes set to one value (matches.py's _blanked: query records made borders), a part of the
 * spans a thread. */

typedef struct {
    uint8_t *codes;
    const int64_t *starts, *lengths;
    int64_t n;
    uint8_t value;
} fill_job;

static void fill_part(void *p, int t, int threads) {
    fill_job *j = (fill_job *)p;
    size_t lo, hi;
    part_range((size_t)j->n, t, threads, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        memset(j->codes + j->starts[i], j->value, (size_t)j->lengths[i]);
}

/* fill_spans(codes, starts, lengths, value, threads): codes[starts[i] .. starts[i] + lengths[i]) set to value. */
PyObject *py_fill_spans(PyObject *self, PyObject *args) {
    Py_buffer b[3];
    int value, threads;
    if (!PyArg_ParseTuple(args, "w*y*y*ii", &b[0], &b[1], &b[2], &value, &threads))
        return NULL;
    fill_job j = {b[0].buf, b[1].buf, b[2].buf, (int64_t)b[1].len / 8, (uint8_t)value};
    int ok = b[1].len == b[2].len;
    for (int64_t i = 0; ok && i < j.n; i++)
        ok = j.starts[i] >= 0 && j.lengths[i] >= 0 && j.starts[i] + j.lengths[i] <= b[0].len;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        run_parallel(fill_part, &j, threads < 1 ? 1 : threads);
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "fill_spans: a span outside the codes");
    }
    return release_buffers(b, 3, ok);
}

/* ---- The layout of a file of many records (fasta.py's layout, for probe and read sets of millions):
 * header lines found on threads instead of one Python step a record. */

typedef struct {
    int64_t *heads, n, capacity;
    int nul, failed;
} head_list;

typedef struct {
    const uint8_t *data;
    int64_t size;
    head_list *lists;  /* a part's headers (fasta_heads) */
    const int64_t *found;
    int64_t records;
    int64_t *fields;  /* name start, name end, body start, body end, flags: 5 a record */
} layout_job;

/* The '>' bytes at a line's start in part t of the data, kept in the part's own growing list (one
 * pass: the file is read once here, not counted first), and whether the part holds a NUL byte: bytes
 * are tested 16 at a time for either, the rare lanes that hit looked at one by one. */
static void heads_part(void *p, int t, int threads) {
    layout_job *j = (layout_job *)p;
    size_t lo, hi;
    part_range((size_t)j->size, t, threads, &lo, &hi);
    head_list *out = &j->lists[t];
    const uint8_t *d = j->data;
    for (size_t x = lo; x < hi;) {
        if (hi - x >= 16) {
            bytes16 v;
            memcpy(&v, d + x, 16);
            const bytes16 hit = (bytes16)((v == '>') | (v == 0));
            uint64_t halves[2];
            memcpy(halves, &hit, 16);
            if (!(halves[0] | halves[1])) {
                x += 16;
                continue;
            }
        }
        const size_t end = hi - x >= 16 ? x + 16 : hi;
        for (; x < end; x++) {
            if (d[x] == 0)
                out->nul = 1;
            else if (d[x] == '>' && (x == 0 || d[x - 1] == '\n')) {
                if (out->n == out->capacity) {
                    int64_t capacity = out->capacity ? 2 * out->capacity : 4096;
                    int64_t *grown = realloc(out->heads, (size_t)capacity * sizeof(int64_t));
                    if (!grown) {
                        out->failed = 1;
                        return;
                    }
                    out->heads = grown, out->capacity = capacity;
                }
                out->heads[out->n++] = (int64_t)x;
            }
        }
    }
}

/* Record i's name (the header's first word) and body; flags 1 where its header line holds a byte a
 * name cannot be judged by here (a control byte other than tab or a closing CR, or a byte >= 0x80:
 * Python's layout then reads the file) or no name. */
static void fields_part(void *p, int t, int threads) {
    layout_job *j = (layout_job *)p;
    size_t lo, hi;
    part_range((size_t)j->records, t, threads, &lo, &hi);
    for (int64_t i = (int64_t)lo; i < (int64_t)hi; i++) {
        const int64_t head = j->found[i];
        const uint8_t *end = memchr(j->data + head, '\n', (size_t)(j->size - head));
        const int64_t line_end = end ? end - j->data : j->size;
        int64_t flags = 0, a = head + 1;
        for (int64_t x = head + 1; x < line_end; x++) {
            const uint8_t c = j->data[x];
            if (c >= 0x80 || (c < 32 && c != '\t' && !(c == '\r' && x == line_end - 1)))
                flags = 1;
        }
        while (a < line_end && (j->data[a] == ' ' || j->data[a] == '\t'))
            a++;
        int64_t b = a;
        while (b < line_end && j->data[b] != ' ' && j->data[b] != '\t' && j->data[b] != '\r')
            b++;
        int64_t *f = j->fields + 5 * i;
        f[0] = a, f[1] = b;
        f[2] = line_end < j->size ? line_end + 1 : j->size;
        f[3] = i + 1 < j->records ? j->found[i + 1] - 1 : j->size;
        f[4] = flags || b == a;
    }
}

/* fasta_heads(data, threads) -> (bytearray of int64: the positions of '>' at a line's start, ascending;
 * whether the data holds a NUL byte). */
PyObject *py_fasta_heads(PyObject *self, PyObject *args) {
    Py_buffer b;
    int threads;
    if (!PyArg_ParseTuple(args, "y*i", &b, &threads))
        return NULL;
    threads = threads < 1 ? 1 : threads;
    layout_job j = {0};
    j.data = b.buf, j.size = (int64_t)b.len;
    j.lists = calloc((size_t)threads, sizeof(head_list));
    PyObject *out = NULL;
    if (!j.lists) {
        PyErr_NoMemory();
    } else {
        Py_BEGIN_ALLOW_THREADS
        run_parallel(heads_part, &j, threads);
        Py_END_ALLOW_THREADS
        int64_t total = 0;
        int nul = 0, failed = 0;
        for (int t = 0; t < threads; t++)
            total += j.lists[t].n, nul |= j.lists[t].nul, failed |= j.lists[t].failed;
        PyObject *heads = failed ? NULL : PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(total * 8));
        if (heads) {
            char *at = PyByteArray_AS_STRING(heads);
            for (int t = 0; t < threads; t++) {
                if (j.lists[t].n)
                    memcpy(at, j.lists[t].heads, (size_t)j.lists[t].n * 8);
                at += j.lists[t].n * 8;
            }
            out = Py_BuildValue("(NO)", heads, nul ? Py_True : Py_False);
        } else if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        for (int t = 0; t < threads; t++)
            free(j.lists[t].heads);
        free(j.lists);
    }
    PyBuffer_Release(&b);
    return out;
}

/* fasta_fields(data, heads, fields, threads): for each header (heads: int64, ascending) its name's
 * start and end, its body's start and end, and its flags (fields_part), 5 int64 a record. */
PyObject *py_fasta_fields(PyObject *self, PyObject *args) {
    Py_buffer b[3];
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*w*i", &b[0], &b[1], &b[2], &threads))
        return NULL;
    const int64_t records = (int64_t)b[1].len / 8;
    int ok = check_items(&b[2], "fasta_fields", 8, 5 * records);
    if (ok) {
        layout_job j = {0};
        j.data = b[0].buf, j.size = (int64_t)b[0].len, j.found = b[1].buf, j.records = records, j.fields = b[2].buf;
        for (int64_t i = 0; ok && i < records; i++)
            ok = j.found[i] >= 0 && j.found[i] < j.size && (i == 0 || j.found[i] > j.found[i - 1]);
        if (!ok)
            PyErr_SetString(PyExc_ValueError, "fasta_fields: header positions out of order or out of the data");
        else {
            Py_BEGIN_ALLOW_THREADS
            run_parallel(fields_part, &j, threads < 1 ? 1 : threads);
            Py_END_ALLOW_THREADS
        }
    }
    return release_buffers(b, 3, ok);
}

typedef struct {
    const uint8_t *data;
    const int64_t *fields, *offsets;
    int64_t records;
    uint8_t *out, *packed;
    uint64_t *hashes;
} names_job;

static void names_part(void *p, int t, int threads) {
    names_job *j = (names_job *)p;
    size_t lo, hi;
    part_range((size_t)j->records, t, threads, &lo, &hi);
    for (int64_t i = (int64_t)lo; i < (int64_t)hi; i++) {
        const int64_t a = j->fields[5 * i], b = j->fields[5 * i + 1];
        uint64_t h = 0xcbf29ce484222325ULL;  /* FNV-1a */
        for (int64_t x = a; x < b; x++)
            h = (h ^ j->data[x]) * 0x100000001b3ULL;
        memcpy(j->out + j->offsets[i], j->data + a, (size_t)(b - a));
        j->out[j->offsets[i] + (b - a)] = '\n';
        memcpy(j->packed + j->offsets[i] - i, j->data + a, (size_t)(b - a));
        j->hashes[i] = h;
    }
}

/* fasta_names(data, fields, offsets, out, packed, hashes, threads): each record's name (fasta_fields' first
 * two) copied to out at offsets[i], a line break after it, and to packed at offsets[i] - i (the names
 * end to end: a string table), and its hash (to find repeated names). */
PyObject *py_fasta_names(PyObject *self, PyObject *args) {
    Py_buffer b[6];
    int threads;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*w*i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &threads))
        return NULL;
    const int64_t records = (int64_t)b[2].len / 8;
    int ok = check_items(&b[1], "fasta_names", 8, 5 * records) && check_items(&b[5], "fasta_names", 8, records);
    if (ok) {
        names_job j = {b[0].buf, b[1].buf, b[2].buf, records, b[3].buf, b[4].buf, b[5].buf};
        for (int64_t i = 0; ok && i < records; i++) {
            const int64_t a = j.fields[5 * i], e = j.fields[5 * i + 1];
            ok = a >= 0 && e >= a && e <= b[0].len && j.offsets[i] >= i && j.offsets[i] + (e - a) + 1 <= b[3].len &&
                 j.offsets[i] - i + (e - a) <= b[4].len;
        }
        if (!ok)
            PyErr_SetString(PyExc_ValueError, "fasta_names: a name out of the data or of the output");
        else {
            Py_BEGIN_ALLOW_THREADS
            run_parallel(names_part, &j, threads < 1 ? 1 : threads);
            Py_END_ALLOW_THREADS
        }
    }
    return release_buffers(b, 6, ok);
}
