/* The module gpu_kernels._cpu: its method table, the thread runner and the radix sort that the
 * word and seed stages share. The stages themselves are extend.c, words.c and seeds.c. */
#include "cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    task_fn fn;
    void *arg;
    int t, threads;
} task;

static void *task_main(void *p) {
    task *w = (task *)p;
    w->fn(w->arg, w->t, w->threads);
    return NULL;
}

void run_parallel(task_fn fn, void *arg, int threads) {
    if (threads < 1)
        threads = 1;
    task tasks[256];
    pthread_t ids[256];
    int started[256] = {0};
    if (threads > 256)
        threads = 256;
    for (int t = 1; t < threads; t++) {
        tasks[t] = (task){fn, arg, t, threads};
        started[t] = pthread_create(&ids[t], NULL, task_main, &tasks[t]) == 0;
        if (!started[t])  /* no thread to be had: do its part here */
            fn(arg, t, threads);
    }
    fn(arg, 0, threads);
    for (int t = 1; t < threads; t++)
        if (started[t])
            pthread_join(ids[t], NULL);
}

int check_items(const Py_buffer *view, const char *name, Py_ssize_t item_size, Py_ssize_t n) {
    if (view->len != item_size * n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes where %zd items of %zd bytes were expected", name,
                     view->len, n, item_size);
        return 0;
    }
    return 1;
}

/* ---- radix sort: least significant byte first, so every pass is stable; a pass whose byte is
 * the same in every key is skipped. Each thread counts its part's digits, then scatters its part
 * to offsets that put the parts in order within each digit. */

typedef struct {
    const uint64_t *keys;
    uint64_t *keys_out;
    const char *values;
    char *values_out;
    int value_size, shift;
    size_t n;
    size_t (*counts)[256];  /* one row a thread */
} pass;

static void count_digits(void *p, int t, int threads) {
    pass *s = (pass *)p;
    size_t lo, hi, *c = s->counts[t];
    part_range(s->n, t, threads, &lo, &hi);
    memset(c, 0, 256 * sizeof(size_t));
    for (size_t i = lo; i < hi; i++)
        c[(s->keys[i] >> s->shift) & 255]++;
}

static void scatter(void *p, int t, int threads) {
    pass *s = (pass *)p;
    size_t lo, hi, *at = s->counts[t];  /* offsets by now */
    part_range(s->n, t, threads, &lo, &hi);
    const int vs = s->value_size;
    for (size_t i = lo; i < hi; i++) {
        uint64_t key = s->keys[i];
        size_t to = at[(key >> s->shift) & 255]++;
        s->keys_out[to] = key;
        if (vs == 4)
            memcpy(s->values_out + to * 4, s->values + i * 4, 4);
        else if (vs == 8)
            memcpy(s->values_out + to * 8, s->values + i * 8, 8);
    }
}

int radix_sort(uint64_t *keys, void *values, int value_size, size_t n, int key_bits, int threads) {
    if (n < 2)
        return 0;
    if ((size_t)threads > n / 65536 + 1)  /* small arrays: threads cost more than they save */
        threads = (int)(n / 65536 + 1);
    if (!values)
        value_size = 0;
    uint64_t *keys_tmp = malloc(n * sizeof(uint64_t));
    char *values_tmp = value_size ? malloc(n * (size_t)value_size) : NULL;
    size_t(*counts)[256] = malloc((size_t)threads * sizeof *counts);
    if (!keys_tmp || (value_size && !values_tmp) || !counts) {
        free(keys_tmp), free(values_tmp), free(counts);
        return -1;
    }
    uint64_t *src = keys, *dst = keys_tmp;
    char *vsrc = values, *vdst = values_tmp;
    for (int shift = 0; shift < key_bits && shift < 64; shift += 8) {
        pass s = {src, dst, vsrc, vdst, value_size, shift, n, counts};
        run_parallel(count_digits, &s, threads);
        int trivial = 0;
        size_t sum = 0;
        for (int d = 0; d < 256 && !trivial; d++) {
            size_t total = 0;
            for (int t = 0; t < threads; t++)
                total += counts[t][d];
            trivial = total == n;
        }
        if (trivial)
            continue;
        for (int d = 0; d < 256; d++)
            for (int t = 0; t < threads; t++) {
                size_t c = counts[t][d];
                counts[t][d] = sum;
                sum += c;
            }
        run_parallel(scatter, &s, threads);
        uint64_t *k = src;
        src = dst, dst = k;
        char *v = vsrc;
        vsrc = vdst, vdst = v;
    }
    if (src != keys) {
        memcpy(keys, src, n * sizeof(uint64_t));
        if (value_size)
            memcpy(values, vsrc, n * (size_t)value_size);
    }
    free(keys_tmp), free(values_tmp), free(counts);
    return 0;
}

/* sort_pairs(keys, values or None, key_bits, threads): keys uint64, values of 4 or 8 bytes each. */
PyObject *py_sort_pairs(PyObject *self, PyObject *args) {
    Py_buffer keys, values = {0};
    PyObject *values_obj;
    int key_bits, threads;
    if (!PyArg_ParseTuple(args, "w*Oii", &keys, &values_obj, &key_bits, &threads))
        return NULL;
    Py_ssize_t n = keys.len / 8;
    int value_size = 0;
    if (values_obj != Py_None) {
        if (PyObject_GetBuffer(values_obj, &values, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&keys);
            return NULL;
        }
        value_size = n ? (int)(values.len / n) : 8;
        if ((value_size != 4 && value_size != 8) || !check_items(&values, "values", value_size, n)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "values: items of 4 or 8 bytes expected");
            PyBuffer_Release(&keys), PyBuffer_Release(&values);
            return NULL;
        }
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = radix_sort((uint64_t *)keys.buf, value_size ? values.buf : NULL, value_size, (size_t)n, key_bits, threads);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&keys);
    if (value_size)
        PyBuffer_Release(&values);
    if (status)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"extend", py_extend, METH_VARARGS,
     "extend(qcodes, rcodes, sq, sr, k, match, mismatch, n_score, xdrop, min_identity, qstart, qend, score, "
     "identities, threads): the HSP of every seed (extend.c)"},
    {"count_words", py_count_words, METH_VARARGS, "count_words(codes, k) -> windows made only of ACGT"},
    {"word_keys", py_word_keys, METH_VARARGS,
     "word_keys(codes, k, keys, positions, threads): the packed key and start of every ACGT window (words.c)"},
    {"sort_pairs", py_sort_pairs, METH_VARARGS,
     "sort_pairs(keys, values or None, key_bits, threads): stable radix sort by the low key_bits bits"},
    {"count_groups", py_count_groups, METH_VARARGS, "count_groups(qkeys, rkeys) -> (keys on both sides, seeds)"},
    {"seed_groups", py_seed_groups, METH_VARARGS,
     "seed_groups(qkeys, rkeys, qfirst, qcount, rfirst, rcount): the groups of equal keys (seeds.c)"},
    {"seed_keys", py_seed_keys, METH_VARARGS,
     "seed_keys(qfirst, qcount, rfirst, rcount, qpos, rpos, rtotal, width, keys, threads): every seed's "
     "diagonal key, unsorted (seeds.c)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cpu", "The compiled CPU stages.", -1, methods};

PyMODINIT_FUNC PyInit__cpu(void) { return PyModule_Create(&module); }
