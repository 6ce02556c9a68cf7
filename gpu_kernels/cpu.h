/* Shared by the compiled CPU stages (cpu.c, fasta.c, extend.c, words.c, seeds.c, matches.c): one
 * Python module, gpu_kernels._cpu, whose functions are the hot loops of the NumPy backend.
 *
 * Arrays come in through the buffer protocol (no NumPy headers): Python allocates every output
 * and passes it writable, so the C side never owns an array Python sees. Each function releases
 * the GIL and splits its work over `threads` POSIX threads.
 */
#ifndef GPU_KERNELS_CPU_H
#define GPU_KERNELS_CPU_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

/* 16 bytes worked on at once (GCC vector extension): the FASTA scans of fasta.c and fasta_layout.c */
typedef uint8_t bytes16 __attribute__((vector_size(16)));

/* Codes (encode.py): A C G T are 0..3, N 4, the border between records 5. */
#if !defined(N_CODE) || !defined(BORDER)
#error "N_CODE and BORDER come from kernels.py as -D options (native.COMPILE_ARGS)"
#endif

/* fn(arg, t, threads) on threads t = 0..threads-1 (t = 0 on the calling thread); returns when all are done. */
typedef void (*task_fn)(void *arg, int t, int threads);
void run_parallel(task_fn fn, void *arg, int threads);

/* counts[0..n) replaced by the sums of the counts before each (where each part writes); returns the total. */
/* v's decimal digits into digits (24 bytes), the last first; returns how many (the texts' numbers). */
static inline int reversed_digits(int64_t v, char *digits) {
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return n;
}

static inline int64_t exclusive_sum(int64_t *counts, int n) {
    int64_t total = 0;
    for (int t = 0; t < n; t++) {
        int64_t c = counts[t];
        counts[t] = total;
        total += c;
    }
    return total;
}

/* [lo, hi) of part t of n items cut in `parts` nearly equal parts. */
static inline void part_range(size_t n, int t, int parts, size_t *lo, size_t *hi) {
    *lo = n * (size_t)t / (size_t)parts;
    *hi = n * (size_t)(t + 1) / (size_t)parts;
}

/* Sort keys (and the values beside them, value_size 4 or 8 bytes, or none when values is NULL)
 * by their low key_bits bits, stably, in place; 0 on success, -1 when memory runs out. */
int radix_sort(uint64_t *keys, void *values, int value_size, size_t n, int key_bits, int threads, void *scratch);

/* ---- Pairs of equal keys enumerated on threads (seeds.c): the query words [i0, i1) against every
 * reference word; visit(f, out, q, r) sees each pair and may push items to its part's buffer
 * (returns 0 when memory runs out). */
typedef struct {
    uint64_t *items;
    int64_t size, capacity, seeds;
    int64_t walked;  /* bases the visits read (mem_starts) */
} part_items;

typedef struct pairs pairs;
struct pairs {
    const uint8_t *qcodes, *rcodes, *qok, *rok;  /* qok, rok: 1 where a word of the list starts */
    int64_t qsize, rsize;
    int k;
    const uint64_t *qkeys, *rkeys;
    const char *qpos, *rpos;
    int position_size;
    int64_t nr, i0, i1;
    int64_t rtotal;      /* kept_seeds */
    uint64_t width;      /* kept_seeds */
    int64_t min_match;   /* mem_starts */
    int (*visit)(const pairs *f, part_items *out, int64_t q, int64_t r);
    int parts;           /* units of work threads take, cut where the key changes */
    part_items *out;
    int next, failed;
};

int push_item(part_items *out, uint64_t value);
/* Parses (qcodes, rcodes, qok, rok, qkeys, qpos, rkeys, rpos, position_size, i0, i1, k, <extra>, parts,
 * threads) into f and v (8 buffers, released on failure); extra: one format unit for extra_value. */
int parse_pairs(PyObject *args, const char *extra, pairs *f, Py_buffer *v, int *threads, void *extra_value);
/* Every pair visited; the items pushed, in part order, as a bytearray of uint64 (NULL on error). */
PyObject *enumerate_pairs(pairs *f, int threads, long long *seeds, long long *walked);

static inline int64_t position(const char *p, int size, int64_t i) {
    return size == 4 ? (int64_t)((const int32_t *)p)[i] : ((const int64_t *)p)[i];
}

/* The n buffers released; None, or NULL where ok is 0 (the Python error is set): a function's end. */
PyObject *release_buffers(Py_buffer *b, int n, int ok);
/* Checks that a buffer holds n items of item_size bytes; sets a Python error and returns 0 if not. */
int check_items(const Py_buffer *view, const char *name, Py_ssize_t item_size, Py_ssize_t n);

PyObject *py_extend(PyObject *self, PyObject *args);
PyObject *py_spaced_words(PyObject *self, PyObject *args);
PyObject *py_spaced_counts(PyObject *self, PyObject *args);
PyObject *py_spaced_fill(PyObject *self, PyObject *args);
PyObject *py_spaced_extend(PyObject *self, PyObject *args);
PyObject *py_count_words(PyObject *self, PyObject *args);
PyObject *py_word_keys(PyObject *self, PyObject *args);
PyObject *py_words_in(PyObject *self, PyObject *args);
PyObject *py_drop_frequent(PyObject *self, PyObject *args);
PyObject *py_sort_pairs(PyObject *self, PyObject *args);
PyObject *py_count_groups(PyObject *self, PyObject *args);
PyObject *py_seed_groups(PyObject *self, PyObject *args);
PyObject *py_seed_keys(PyObject *self, PyObject *args);
PyObject *py_kept_seeds(PyObject *self, PyObject *args);
PyObject *py_word_starts(PyObject *self, PyObject *args);
PyObject *py_window_starts(PyObject *self, PyObject *args);
PyObject *py_mem_starts(PyObject *self, PyObject *args);
PyObject *py_window_hashes(PyObject *self, PyObject *args);
PyObject *py_whole_hits(PyObject *self, PyObject *args);
PyObject *py_encode_counts(PyObject *self, PyObject *args);
PyObject *py_encode_records(PyObject *self, PyObject *args);
PyObject *py_iupac_letters(PyObject *self, PyObject *args);
PyObject *py_fasta_heads(PyObject *self, PyObject *args);
PyObject *py_read_file(PyObject *self, PyObject *args);
PyObject *py_holds_byte(PyObject *self, PyObject *args);
PyObject *py_copy_bytes(PyObject *self, PyObject *args);
PyObject *py_gather_spans(PyObject *self, PyObject *args);
PyObject *py_count_in_spans(PyObject *self, PyObject *args);
/* Threads for a pass over `bytes` bytes: parts of at least 4 MiB (bytes.c). */
int byte_threads(int64_t bytes, int threads);
PyObject *py_pack_codes(PyObject *self, PyObject *args);
PyObject *py_unpack_codes(PyObject *self, PyObject *args);
PyObject *py_value_runs(PyObject *self, PyObject *args);
PyObject *py_sketch_sites(PyObject *self, PyObject *args);
PyObject *py_fill_spans(PyObject *self, PyObject *args);
PyObject *py_reverse_complement(PyObject *self, PyObject *args);
PyObject *py_fasta_names(PyObject *self, PyObject *args);
PyObject *py_fasta_fields(PyObject *self, PyObject *args);
PyObject *py_chain_keys(PyObject *self, PyObject *args);
PyObject *py_chain_dp(PyObject *self, PyObject *args);
PyObject *py_take_chains(PyObject *self, PyObject *args);
PyObject *py_backbone(PyObject *self, PyObject *args);
PyObject *py_chain_seams(PyObject *self, PyObject *args);
PyObject *py_chain_pieces(PyObject *self, PyObject *args);
PyObject *py_align_anchors(PyObject *self, PyObject *args);
PyObject *py_align_fill(PyObject *self, PyObject *args);
PyObject *py_align_posterior(PyObject *self, PyObject *args);
int gap_buffers_ok(const Py_buffer *b, const char *name);
PyObject *py_align_text(PyObject *self, PyObject *args);
PyObject *py_trim_walk(PyObject *self, PyObject *args);
PyObject *py_trim_text(PyObject *self, PyObject *args);
PyObject *py_trim_snps(PyObject *self, PyObject *args);
PyObject *py_split_pieces(PyObject *self, PyObject *args);
PyObject *py_align_extend(PyObject *self, PyObject *args);

#endif
