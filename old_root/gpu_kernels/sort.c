/* The stable radix sort of (key, value) pairs that the word and seed stages share (cpu.h's sort_pairs;
 * _cpu.sort_pairs for tests). */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>

/* ---- radix sort, stable. One pass on the most significant 8 bits, in parallel (each thread counts
 * its part's digits, then scatters its part to offsets that keep the parts in order within each
 * digit), cuts the keys into buckets of about n / 256; threads then take buckets from a shared
 * counter and sort each by its lower bits (sort_into). Digits of 11 bits below the first; a pass
 * whose digit is the same in every key is skipped. */

#define DIGIT_BITS 11
#define RADIX (1 << DIGIT_BITS)
#define TOP_BITS 8  /* the parallel first pass: 256 buckets, so its scatter writes few enough places at
                     * once to stay in the TLB and the caches (2048 cost 27 ns a key on 20 M keys) */
#define TOP_RADIX (1 << TOP_BITS)

typedef struct {
    uint64_t *keys, *keys_tmp;
    char *values, *values_tmp;
    int value_size, shift;  /* shift: of the most significant digit */
    size_t n;
    size_t (*counts)[TOP_RADIX];  /* one row a thread; then where each thread writes each digit */
    size_t starts[TOP_RADIX + 1];  /* buckets, in keys_tmp after the first pass */
    int next;                  /* next bucket to hand out */
} sort_job;

static inline void move(char *to, const char *from, int size) {
    if (size == 4)
        memcpy(to, from, 4);
    else if (size == 8)
        memcpy(to, from, 8);
}

static void count_top(void *p, int t, int threads) {
    sort_job *s = (sort_job *)p;
    size_t lo, hi, *c = s->counts[t];
    part_range(s->n, t, threads, &lo, &hi);
    memset(c, 0, TOP_RADIX * sizeof(size_t));
    for (size_t i = lo; i < hi; i++)
        c[(s->keys[i] >> s->shift) & (TOP_RADIX - 1)]++;
}

static void scatter_top(void *p, int t, int threads) {
    sort_job *s = (sort_job *)p;
    size_t lo, hi, *at = s->counts[t];
    part_range(s->n, t, threads, &lo, &hi);
    const int vs = s->value_size;
    for (size_t i = lo; i < hi; i++) {
        uint64_t key = s->keys[i];
        size_t to = at[(key >> s->shift) & (TOP_RADIX - 1)]++;
        s->keys_tmp[to] = key;
        move(s->values_tmp + to * vs, s->values + i * vs, vs);
    }
}

#define SMALL (1 << 16)  /* items a thread sorts least significant digit first, in its cache */
#define FEW (8 * RADIX)   /* fewer items: a pass's RADIX counters cost more than its items do */
#define TINY 16           /* items sorted by insertion */

/* (src, vsrc) copied to (dst, vdst) and sorted there by insertion on the low `bits` bits, stably. */
static void insertion_into(const uint64_t *src, const char *vsrc, uint64_t *dst, char *vdst, size_t n, int bits,
                           int vs) {
    const uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    char value[8];
    for (size_t i = 0; i < n; i++) {
        const uint64_t key = src[i];
        move(value, vsrc + i * vs, vs);
        size_t j = i;
        for (; j > 0 && (dst[j - 1] & mask) > (key & mask); j--) {
            dst[j] = dst[j - 1];
            move(vdst + j * vs, vdst + (j - 1) * vs, vs);
        }
        dst[j] = key;
        move(vdst + j * vs, value, vs);
    }
}

/* Sorts the n items at (src, vsrc) by their low `bits` bits into (dst, vdst), stably; src is
 * scratch. A handful of items: by insertion. Few bits, or between FEW and SMALL items (a cache's
 * worth): least significant digit first, back and forth between the two. Else one pass on the
 * most significant digit (of 11 bits, or of fewer where there are fewer than FEW items, so that
 * its buckets hold about 8), then each digit's items the same way. */
static void sort_into(uint64_t *src, char *vsrc, uint64_t *dst, char *vdst, size_t n, int bits, int vs) {
    size_t count[RADIX];
    if (n <= TINY) {
        insertion_into(src, vsrc, dst, vdst, n, bits, vs);
        return;
    }
    if (bits <= DIGIT_BITS || (n <= SMALL && n >= FEW)) {
        uint64_t *k0 = src, *k1 = dst;
        char *v0 = vsrc, *v1 = vdst;
        for (int shift = 0; shift < bits && n > 1; shift += DIGIT_BITS) {
            memset(count, 0, sizeof count);
            for (size_t i = 0; i < n; i++)
                count[(k0[i] >> shift) & (RADIX - 1)]++;
            if (count[(k0[0] >> shift) & (RADIX - 1)] == n)
                continue;
            size_t sum = 0;
            for (int d = 0; d < RADIX; d++) {
                size_t c = count[d];
                count[d] = sum;
                sum += c;
            }
            for (size_t i = 0; i < n; i++) {
                size_t to = count[(k0[i] >> shift) & (RADIX - 1)]++;
                k1[to] = k0[i];
                move(v1 + to * vs, v0 + i * vs, vs);
            }
            uint64_t *k = k0;
            k0 = k1, k1 = k;
            char *v = v0;
            v0 = v1, v1 = v;
        }
        if (k0 != dst) {
            memcpy(dst, k0, n * sizeof(uint64_t));
            memcpy(vdst, v0, n * (size_t)vs);
        }
        return;
    }
    int width = DIGIT_BITS;  /* bits > DIGIT_BITS here, so shift > 0 */
    if (n < FEW)
        for (width = 4; width < DIGIT_BITS && ((size_t)8 << width) < n; width++)
            ;
    const size_t radix = (size_t)1 << width;
    const int shift = bits - width;
    memset(count, 0, radix * sizeof(size_t));
    for (size_t i = 0; i < n; i++)
        count[(src[i] >> shift) & (radix - 1)]++;
    if (count[(src[0] >> shift) & (radix - 1)] == n) {
        sort_into(src, vsrc, dst, vdst, n, shift, vs);
        return;
    }
    size_t starts[RADIX + 1], sum = 0;
    for (size_t d = 0; d < radix; d++) {
        starts[d] = sum;
        sum += count[d];
        count[d] = starts[d];
    }
    starts[radix] = n;
    for (size_t i = 0; i < n; i++) {
        size_t to = count[(src[i] >> shift) & (radix - 1)]++;
        dst[to] = src[i];
        move(vdst + to * vs, vsrc + i * vs, vs);
    }
    for (size_t d = 0; d < radix; d++) {
        size_t lo = starts[d], m = starts[d + 1] - lo;
        if (m < 2)
            continue;
        sort_into(dst + lo, vdst + lo * vs, src + lo, vsrc + lo * vs, m, shift, vs);
        memcpy(dst + lo, src + lo, m * sizeof(uint64_t));
        memcpy(vdst + lo * vs, vsrc + lo * vs, m * (size_t)vs);
    }
}

/* Sorts items [lo, hi) of keys_tmp (their values beside) by the bits below shift into keys. */
static void sort_bucket(sort_job *s, size_t lo, size_t hi) {
    const int vs = s->value_size;
    sort_into(s->keys_tmp + lo, s->values_tmp + lo * vs, s->keys + lo, s->values + lo * vs, hi - lo, s->shift, vs);
}

static void sort_buckets(void *p, int t, int threads) {
    sort_job *s = (sort_job *)p;
    (void)t, (void)threads;
    for (;;) {
        int b = __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED);
        if (b >= TOP_RADIX)
            return;
        if (s->starts[b + 1] > s->starts[b])
            sort_bucket(s, s->starts[b], s->starts[b + 1]);
    }
}

int radix_sort(uint64_t *keys, void *values, int value_size, size_t n, int key_bits, int threads, void *scratch) {
    if (n < 2)
        return 0;
    if ((size_t)threads > n / 65536 + 1)  /* small arrays: threads cost more than they save */
        threads = (int)(n / 65536 + 1);
    if (!values)
        value_size = 0;
    if (key_bits > 64)
        key_bits = 64;
    sort_job *s = calloc(1, sizeof(sort_job));
    if (!s)
        return -1;
    if (scratch) {  /* the caller's: n keys, then n values */
        s->keys_tmp = scratch;
        s->values_tmp = value_size ? (char *)scratch + n * sizeof(uint64_t) : NULL;
    } else {
        s->keys_tmp = malloc(n * sizeof(uint64_t));
        s->values_tmp = value_size ? malloc(n * (size_t)value_size) : NULL;
    }
    s->counts = malloc((size_t)threads * sizeof *s->counts);
    const int ok = s->keys_tmp && (!value_size || s->values_tmp) && s->counts;
    if (ok) {
        s->keys = keys, s->values = values, s->value_size = value_size, s->n = n;
        s->shift = key_bits > TOP_BITS ? key_bits - TOP_BITS : 0;
        run_parallel(count_top, s, threads);
        size_t sum = 0;
        for (int d = 0; d < TOP_RADIX; d++) {
            s->starts[d] = sum;
            for (int t = 0; t < threads; t++) {
                size_t c = s->counts[t][d];
                s->counts[t][d] = sum;
                sum += c;
            }
        }
        s->starts[TOP_RADIX] = n;
        run_parallel(scatter_top, s, threads);
        run_parallel(sort_buckets, s, threads);
    }
    if (!scratch)
        free(s->keys_tmp), free(s->values_tmp);
    free(s->counts), free(s);
    return ok ? 0 : -1;
}

/* sort_pairs(keys, values or None, key_bits, threads[, scratch]): keys uint64, values of 4 or 8 bytes
 * each; scratch: a writable buffer the sort uses for its second copy where it holds n keys and n
 * values (else it allocates its own), so that one buffer serves several sorts. */
PyObject *py_sort_pairs(PyObject *self, PyObject *args) {
    Py_buffer keys, values = {0}, scratch = {0};
    PyObject *values_obj;
    int key_bits, threads;
    if (!PyArg_ParseTuple(args, "w*Oii|w*", &keys, &values_obj, &key_bits, &threads, &scratch))
        return NULL;
    Py_ssize_t n = keys.len / 8;
    int value_size = 0;
    if (values_obj != Py_None) {
        if (PyObject_GetBuffer(values_obj, &values, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&keys), PyBuffer_Release(&scratch);
            return NULL;
        }
        value_size = n ? (int)(values.len / n) : 8;
        if ((value_size != 4 && value_size != 8) || !check_items(&values, "values", value_size, n)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "values: items of 4 or 8 bytes expected");
            PyBuffer_Release(&keys), PyBuffer_Release(&values), PyBuffer_Release(&scratch);
            return NULL;
        }
    }
    const int given = scratch.buf && (size_t)scratch.len >= (size_t)n * (8 + (size_t)value_size);
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = radix_sort((uint64_t *)keys.buf, value_size ? values.buf : NULL, value_size, (size_t)n, key_bits, threads,
                        given ? scratch.buf : NULL);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&keys);
    if (value_size)
        PyBuffer_Release(&values);
    PyBuffer_Release(&scratch);  /* a no-op where none was given (no object) */
    if (status)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}
