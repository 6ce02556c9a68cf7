/* The module gpu_kernels._cpu: its method table, the thread runner and the radix sort that the
 * word and seed stages share. The stages themselves are extend.c, words.c and seeds.c. */
#include "cpu.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    task_fn fn;
    void *arg;
    int t, threads;
    struct watch *watch;
} task;

/* The parts still running, for a caller that waits on them while it watches for Ctrl-C. */
struct watch {
    pthread_mutex_t lock;
    pthread_cond_t done;
    int left;
};

static void *task_main(void *p) {
    task *w = (task *)p;
    w->fn(w->arg, w->t, w->threads);
    if (w->watch) {
        pthread_mutex_lock(&w->watch->lock);
        w->watch->left--;
        pthread_cond_signal(&w->watch->done);
        pthread_mutex_unlock(&w->watch->lock);
    }
    return NULL;
}

/* on_interrupt(fn): fn() is called (with the GIL) when Ctrl-C comes while a compiled stage runs;
 * it ends the process (the command line's: one line, no output left, status 130). None: stages run
 * to their end before Python sees the signal, as a library's caller may expect. */
static PyObject *interrupt_hook = NULL;

PyObject *py_on_interrupt(PyObject *self, PyObject *hook) {
    (void)self;
    Py_XDECREF(interrupt_hook);
    interrupt_hook = hook == Py_None ? NULL : hook;
    Py_XINCREF(interrupt_hook);
    Py_RETURN_NONE;
}

/* Whether Python has a signal to handle; where its handler raises (Ctrl-C), the hook ends the process. */
static void check_interrupt(void) {
    PyGILState_STATE state = PyGILState_Ensure();  /* the caller released the GIL: taken back a moment */
    if (interrupt_hook && PyErr_CheckSignals() < 0) {
        PyErr_Clear();  /* the KeyboardInterrupt raised: the hook is what follows from it */
        PyObject *result = PyObject_CallNoArgs(interrupt_hook);  /* does not return */
        Py_XDECREF(result);
        _exit(130);
    }
    PyGILState_Release(state);
}

#define WATCH_MS 50  /* how often a waiting caller looks for Ctrl-C */

void run_parallel(task_fn fn, void *arg, int threads) {
    if (threads < 1)
        threads = 1;
    task tasks[256];
    pthread_t ids[256];
    int started[256] = {0};
    if (threads > 256)
        threads = 256;
    if (interrupt_hook && PyGILState_Check() == 0) {
        /* every part on a thread of its own; the caller waits, looking for Ctrl-C between waits (the
         * parts write into buffers the caller holds: they are never freed under them, the process ends) */
        struct watch watch = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, threads};
        for (int t = 0; t < threads; t++) {
            tasks[t] = (task){fn, arg, t, threads, &watch};
            started[t] = pthread_create(&ids[t], NULL, task_main, &tasks[t]) == 0;
            if (!started[t]) {  /* no thread to be had: its part here, counted done as task_main counts it */
                tasks[t].watch = NULL;
                fn(arg, t, threads);
                pthread_mutex_lock(&watch.lock);
                watch.left--;
                pthread_mutex_unlock(&watch.lock);
            }
        }
        pthread_mutex_lock(&watch.lock);
        while (watch.left > 0) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += WATCH_MS * 1000000L;
            until.tv_sec += until.tv_nsec / 1000000000L, until.tv_nsec %= 1000000000L;
            if (pthread_cond_timedwait(&watch.done, &watch.lock, &until) == ETIMEDOUT && watch.left > 0) {
                pthread_mutex_unlock(&watch.lock);
                check_interrupt();
                pthread_mutex_lock(&watch.lock);
            }
        }
        pthread_mutex_unlock(&watch.lock);
        for (int t = 0; t < threads; t++)
            if (started[t])
                pthread_join(ids[t], NULL);
        return;
    }
    for (int t = 1; t < threads; t++) {
        tasks[t] = (task){fn, arg, t, threads, NULL};
        started[t] = pthread_create(&ids[t], NULL, task_main, &tasks[t]) == 0;
        if (!started[t])  /* no thread to be had: do its part here */
            fn(arg, t, threads);
    }
    fn(arg, 0, threads);
    for (int t = 1; t < threads; t++)
        if (started[t])
            pthread_join(ids[t], NULL);
}

PyObject *release_buffers(Py_buffer *b, int n, int ok) {
    for (int k = 0; k < n; k++)
        PyBuffer_Release(&b[k]);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

int check_items(const Py_buffer *view, const char *name, Py_ssize_t item_size, Py_ssize_t n) {
    if (view->len != item_size * n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes where %zd items of %zd bytes were expected", name,
                     view->len, n, item_size);
        return 0;
    }
    return 1;
}

static PyMethodDef methods[] = {
    {"on_interrupt", py_on_interrupt, METH_O,
     "on_interrupt(fn or None): fn() ends the process when Ctrl-C comes while a compiled stage runs"},
    {"spaced_words", py_spaced_words, METH_VARARGS,
     "spaced_words(codes, care, span, keys, positions, threads) -> windows: a spaced seed's keys (spaced.c)"},
    {"spaced_counts", py_spaced_counts, METH_VARARGS,
     "spaced_counts(qcodes, q0, q1, care, span, transition, rkeys, buckets, shift, rpos, counts, threads): seeds a window (spaced.c)"},
    {"spaced_fill", py_spaced_fill, METH_VARARGS,
     "spaced_fill(qcodes, q0, q1, care, span, transition, rkeys, buckets, shift, rpos, offsets, sq, sr, threads): the seeds (spaced.c)"},
    {"spaced_extend", py_spaced_extend, METH_VARARGS,
     "spaced_extend(qcodes, rcodes, qseed, rseed, sq, sr, care, span, transition, rkeys, buckets, shift, rpos, xdrop, "
     "entropy, qstart, qend, score, ids, threads): HSPs, -1 where shadowed (spaced.c)"},
    {"extend", py_extend, METH_VARARGS,
     "extend(qcodes, rcodes, sq, sr, k, match, mismatch, n_score, xdrop, min_identity, qstart, qend, score, "
     "identities, threads) -> bases read: the HSP of every seed (extend.c)"},
    {"count_words", py_count_words, METH_VARARGS,
     "count_words(codes, k, bits) -> words: windows of ACGT (bits 2) or without a border (bits 3)"},
    {"word_keys", py_word_keys, METH_VARARGS,
     "word_keys(codes, k, bits, keys, positions, threads): the packed key and start of every word (words.c)"},
    {"drop_frequent", py_drop_frequent, METH_VARARGS,
     "drop_frequent(keys, positions, position_size, starts, max_freq) -> words kept: fast mode's filter, in "
     "place (words.c)"},
    {"words_in", py_words_in, METH_VARARGS,
     "words_in(keys, positions, position_size, lo, hi, keys_out, positions_out, threads) -> the words in "
     "[lo, hi), copied in order when the outputs are not None (words.c)"},
    {"sort_pairs", py_sort_pairs, METH_VARARGS,
     "sort_pairs(keys, values or None, key_bits, threads): stable radix sort by the low key_bits bits"},
    {"count_groups", py_count_groups, METH_VARARGS, "count_groups(qkeys, rkeys) -> (keys on both sides, seeds)"},
    {"seed_groups", py_seed_groups, METH_VARARGS,
     "seed_groups(qkeys, rkeys, qfirst, qcount, rfirst, rcount): the groups of equal keys (seeds.c)"},
    {"seed_keys", py_seed_keys, METH_VARARGS,
     "seed_keys(qfirst, qcount, rfirst, rcount, qpos, rpos, rtotal, width, keys, threads): every seed's "
     "diagonal key, unsorted (seeds.c)"},
    {"kept_seeds", py_kept_seeds, METH_VARARGS,
     "kept_seeds(qcodes, rcodes, qok, rok, qkeys, qpos, rkeys, rpos, position_size, i0, i1, k, (rtotal, width), "
     "parts, threads) -> (seeds, kept keys as a bytearray): the diagonal filter applied as the groups are "
     "enumerated (seeds.c)"},
    {"mem_starts", py_mem_starts, METH_VARARGS,
     "mem_starts(qcodes, rcodes, qok, rok, qkeys, qpos, rkeys, rpos, position_size, i0, i1, k, min_match, parts, "
     "threads) -> (seeds, bases walked, MEMs as a bytearray of (qstart, rstart, length)): MEMs from their left "
     "ends (matches.c)"},
    {"window_hashes", py_window_hashes, METH_VARARGS,
     "window_hashes(codes, length, hashes, valid, threads): the hash of every window of length codes and whether "
     "it holds no border (matches.c)"},
    {"whole_hits", py_whole_hits, METH_VARARGS,
     "whole_hits(qcodes, starts, length, strand, rkeys, rpos, rcodes, counts, hashes, out, threads): the reference "
     "windows equal to whole query records, counted (out None) or written from counts (matches.c)"},
    {"window_starts", py_window_starts, METH_VARARGS,
     "window_starts(codes, k, out): 1 in out at every start of an ACGT window of k (seeds.c)"},
    {"word_starts", py_word_starts, METH_VARARGS,
     "word_starts(positions, position_size, out): 1 in out at every position of the list (seeds.c)"},
    {"encode_counts", py_encode_counts, METH_VARARGS,
     "encode_counts(data, spans, table, stats, threads): symbols, first bad symbol, ACGT count and whether clean, "
     "of each record body (fasta.c)"},
    {"encode_records", py_encode_records, METH_VARARGS,
     "encode_records(data, spans, table, codes, starts, stats, threads): each record body's codes written at its start "
     "(fasta.c)"},
    {"iupac_letters", py_iupac_letters, METH_VARARGS,
     "iupac_letters(data, spans, table, starts, counts, pos, let, threads): each record body's IUPAC letters counted, "
     "or their places in the codes and the letters written (fasta.c)"},
    {"read_file", py_read_file, METH_VARARGS,
     "read_file(path, size, threads) -> bytes: the file's first size bytes, read in parts on threads (fasta.c)"},
    {"copy_bytes", py_copy_bytes, METH_VARARGS,
     "copy_bytes(out, data, threads): data's bytes copied into out on threads (fasta.c)"},
    {"fill_spans", py_fill_spans, METH_VARARGS,
     "fill_spans(codes, starts, lengths, value, threads): each span of codes set to value (fasta.c)"},
    {"reverse_complement", py_reverse_complement, METH_VARARGS,
     "reverse_complement(out, codes, complement, threads): out = complement[codes[::-1]] (bytes.c)"},
    {"gather_spans", py_gather_spans, METH_VARARGS,
     "gather_spans(out, data, starts, lengths, at, reverse, forward_table, reverse_table, threads): spans of data "
     "copied (or mapped through the tables) to out at `at`, on threads (bytes.c)"},
    {"count_in_spans", py_count_in_spans, METH_VARARGS,
     "count_in_spans(data, starts, ends, table, counts, threads): bytes of a set counted in spans, on threads (bytes.c)"},
    {"pack_codes", py_pack_codes, METH_VARARGS,
     "pack_codes(packed, codes, threads): codes packed at two bits a base, on threads (twobit.c)"},
    {"unpack_codes", py_unpack_codes, METH_VARARGS,
     "unpack_codes(out, packed, first, threads): the codes of bases first .. first + len(out), on threads (twobit.c)"},
    {"value_runs", py_value_runs, METH_VARARGS,
     "value_runs(codes, value, threads) -> (starts, ends): the maximal runs of a byte value, found on threads "
     "(twobit.c)"},
    {"sketch_sites", py_sketch_sites, METH_VARARGS,
     "sketch_sites(data, starts, ends, recs, bases, firsts, shift, at, room, run_at, run_room, out, runs, found, "
     "run_found, threads): a genome's sketch, a piece of a record at a time, written where it has room (sketch.c)"},
    {"holds_byte", py_holds_byte, METH_VARARGS,
     "holds_byte(data, byte, threads) -> bool: whether the byte occurs in data, searched on threads (fasta.c)"},
    {"fasta_heads", py_fasta_heads, METH_VARARGS,
     "fasta_heads(data, threads) -> (bytearray of int64: the '>' at a line's start; whether a NUL byte occurs) "
     "(fasta.c)"},
    {"fasta_names", py_fasta_names, METH_VARARGS,
     "fasta_names(data, fields, offsets, out, packed, hashes, threads): the names copied out, a line break after "
     "each, and end to end into packed, and their hashes (fasta.c)"},
    {"fasta_fields", py_fasta_fields, METH_VARARGS,
     "fasta_fields(data, heads, fields, threads): each record's name and body bounds and flags (fasta.c)"},
    {"chain_keys", py_chain_keys, METH_VARARGS,
     "chain_keys(qrec, rrec, strand, qstart, qend, rstart, rend, rlens, nr, max_shift, y, ye, group, bucket, "
     "threads): each HSP's coordinates on its strand, group and diagonal bucket (chains.c)"},
    {"chain_dp", py_chain_dp, METH_VARARGS,
     "chain_dp(x, xe, y, ye, score, group, bucket, byb, bounds, max_gap, max_shift, gap_open, gap_extend, gap_base, "
     "best, pred, threads): each HSP's best chain score and predecessor (chains.c)"},
    {"take_chains", py_take_chains, METH_VARARGS,
     "take_chains(best, pred, visit, chain, scores, heads) -> chains: best-first extraction (chains.c)"},
    {"backbone", py_backbone, METH_VARARGS,
     "backbone(starts, x0, xe, y0, ye, strand, qrec, rrec, qlens, rlens, order, bounds, first, keep, threads, batch, "
     "big, min_new): "
     "the one-to-one chains, the first round a record pair at a time on all cores (backbone.c)"},
    {"chain_seams", py_chain_seams, METH_VARARGS,
     "chain_seams(q, rf, rr, qpos, rpos, x0, xe, y0, trim, seam, strand, match, mismatch, n_score, start, end, "
     "threads): each chain block's start and end once the seams are placed (chains.c)"},
    {"chain_pieces", py_chain_pieces, METH_VARARGS,
     "chain_pieces(q, rf, rr, qpos, rpos, x0, y0, start, end, strand, match, mismatch, n_score, drop, count, fill, "
     "pblock, px0, pxe, pids, threads): the chain blocks' pieces between their drops, counted or written (chains.c)"},
    {"align_anchors", py_align_anchors, METH_VARARGS,
     "align_anchors(q, rf, rr, qpos, rpos, length, strand, min_anchor, count, fill, ax, ay, alen, threads): the "
     "anchors of chain blocks, counted or written at count's sums (align.c)"},
    {"align_fill", py_align_fill, METH_VARARGS,
     "align_fill(q, rf, rr, qpos, rpos, dx, dy, at, strand, match, mismatch, gap_open, gap_extend, band, score, "
     "columns, counts, ops, threads): every gap's banded global alignment (align.c)"},
    {"align_posterior", py_align_posterior, METH_VARARGS,
     "align_posterior(q, rf, rr, qpos, rpos, dx, dy, at, strand, sigma, delta, epsilon, gamma, match, mismatch, "
     "gap_open, gap_extend, band, score, columns, counts, ops, threads): every gap's gamma-centroid columns "
     "(posterior.c)"},
    {"align_extend", py_align_extend, METH_VARARGS,
     "align_extend(q, rf, rr, qpos, rpos, step, lq, lr, strand, at, match, mismatch, gap_open, gap_extend, band, "
     "xdrop, score, dq, dr, counts, ops, threads): the X-drop extension of alignment ends (align.c)"},
    {"split_pieces", py_split_pieces, METH_VARARGS,
     "split_pieces(alen, cut, drift, shift, zdrop, drop_gap, piece, first, last) -> pieces: a chain's anchors "
     "cut where the drop scores' running score falls zdrop below its best (pieces.c)"},
    {"align_text", py_align_text, METH_VARARGS,
     "align_text(q, rf, rr, ax, ay, alen, gat, gcols, ops, first, last, strand, cs, size, out, threads): the "
     "alignments' CIGARs or cs strings, sized (out empty) or written (align.c)"},
    {"trim_walk", py_trim_walk, METH_VARARGS,
     "trim_walk(cigars, offsets, want, q_front, q_back, r_front, r_back, step, q, r, match, mismatch, gap_open, "
     "gap_extend, out, threads): each alignment's cuts found on its CIGAR (align_trim.c)"},
    {"trim_text", py_trim_text, METH_VARARGS,
     "trim_text(kind, text, offsets, front, back, columns, size, out, threads): CIGARs, cs strings or delta "
     "indel lines cut (align_trim.c)"},
    {"trim_snps", py_trim_snps, METH_VARARGS,
     "trim_snps(text, offsets, rows, rs, re, qs, qe, start, length, threads): the SNP lines of cut alignments "
     "inside their spans, as spans of the text (align_trim.c)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cpu", "The compiled CPU stages.", -1, methods};

PyMODINIT_FUNC PyInit__cpu(void) { return PyModule_Create(&module); }
