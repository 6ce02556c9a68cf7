/* seeds on the CPU: one merge of the two sorted key lists finds the groups of equal keys (as
 * seeds.py's searchsorted does), then every group's cross product is written as diagonal keys,
 * d * width + q with d = q - r + rtotal (diagonals.py), threads taking ranges of groups. */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>

/* Walk the keys present on both sides; store them when qfirst is not NULL. Returns the groups. */
static int64_t merge(const uint64_t *qk, int64_t nq, const uint64_t *rk, int64_t nr, int64_t *seeds,
                     int64_t *qfirst, int64_t *qcount, int64_t *rfirst, int64_t *rcount) {
    int64_t i = 0, j = 0, groups = 0, total = 0;
    while (i < nq && j < nr) {
        uint64_t key = qk[i];
        if (rk[j] < key) {
            j++;
            continue;
        }
        int64_t i1 = i + 1;
        while (i1 < nq && qk[i1] == key)
            i1++;
        if (rk[j] == key) {
            int64_t j1 = j + 1;
            while (j1 < nr && rk[j1] == key)
                j1++;
            if (qfirst) {
                qfirst[groups] = i, qcount[groups] = i1 - i, rfirst[groups] = j, rcount[groups] = j1 - j;
            }
            groups++;
            total += (i1 - i) * (j1 - j);
            j = j1;
        }
        i = i1;
    }
    if (seeds)
        *seeds = total;
    return groups;
}

static int keys_of(PyObject *args, Py_buffer *q, Py_buffer *r, const char *format, Py_buffer *out) {
    return out ? PyArg_ParseTuple(args, format, q, r, &out[0], &out[1], &out[2], &out[3])
               : PyArg_ParseTuple(args, format, q, r);
}

/* count_groups(qkeys, rkeys) -> (groups, seeds): keys present on both sorted lists, and their seeds. */
PyObject *py_count_groups(PyObject *self, PyObject *args) {
    Py_buffer q, r;
    if (!keys_of(args, &q, &r, "y*y*", NULL))
        return NULL;
    int64_t groups, seeds;
    Py_BEGIN_ALLOW_THREADS
    groups = merge(q.buf, q.len / 8, r.buf, r.len / 8, &seeds, NULL, NULL, NULL, NULL);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&q), PyBuffer_Release(&r);
    return Py_BuildValue("LL", (long long)groups, (long long)seeds);
}

/* seed_groups(qkeys, rkeys, qfirst, qcount, rfirst, rcount): the groups, int64 arrays of
 * count_groups(...)[0] items. */
PyObject *py_seed_groups(PyObject *self, PyObject *args) {
    Py_buffer q, r, out[4];
    if (!keys_of(args, &q, &r, "y*y*w*w*w*w*", out))
        return NULL;
    int64_t groups;
    Py_BEGIN_ALLOW_THREADS
    groups = merge(q.buf, q.len / 8, r.buf, r.len / 8, NULL, NULL, NULL, NULL, NULL);
    Py_END_ALLOW_THREADS
    int ok = 1;
    for (int i = 0; i < 4 && ok; i++)
        ok = check_items(&out[i], "groups", 8, groups);
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        merge(q.buf, q.len / 8, r.buf, r.len / 8, NULL, out[0].buf, out[1].buf, out[2].buf, out[3].buf);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&q), PyBuffer_Release(&r);
    for (int i = 0; i < 4; i++)
        PyBuffer_Release(&out[i]);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

typedef struct {
    const int64_t *qfirst, *qcount, *rfirst, *rcount;
    const char *qpos, *rpos;
    int position_size;
    int64_t groups, rtotal;
    uint64_t width;
    uint64_t *keys;
    int64_t *at;  /* seeds before each thread's groups */
    int fill;
} job;

static void keys_part(void *p, int t, int threads) {
    job *j = (job *)p;
    size_t lo, hi;
    part_range((size_t)j->groups, t, threads, &lo, &hi);
    if (!j->fill) {
        int64_t seeds = 0;
        for (size_t g = lo; g < hi; g++)
            seeds += j->qcount[g] * j->rcount[g];
        j->at[t] = seeds;
        return;
    }
    uint64_t *out = j->keys + j->at[t];
    const int ps = j->position_size;
    for (size_t g = lo; g < hi; g++) {
        int64_t q0 = j->qfirst[g], q1 = q0 + j->qcount[g], r0 = j->rfirst[g], r1 = r0 + j->rcount[g];
        for (int64_t a = q0; a < q1; a++) {
            int64_t q = position(j->qpos, ps, a);
            uint64_t base = (uint64_t)(q + j->rtotal) * j->width + (uint64_t)q;
            for (int64_t b = r0; b < r1; b++)
                *out++ = base - (uint64_t)position(j->rpos, ps, b) * j->width;
        }
    }
}

/* seed_keys(qfirst, qcount, rfirst, rcount, qpos, rpos, position_size, rtotal, width, keys, threads): the
 * diagonal key of every seed, group after group (unsorted); positions of position_size (4 or 8) bytes. */
PyObject *py_seed_keys(PyObject *self, PyObject *args) {
    Py_buffer g[4], qpos, rpos, keys;
    long long rtotal;
    unsigned long long width;
    int threads, position_size;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*iLKw*i", &g[0], &g[1], &g[2], &g[3], &qpos, &rpos, &position_size,
                          &rtotal, &width, &keys, &threads))
        return NULL;
    int64_t at[64];
    job j = {g[0].buf, g[1].buf, g[2].buf, g[3].buf, qpos.buf, rpos.buf, position_size, g[0].len / 8, rtotal, width, keys.buf, at, 0};
    int ok = 1;
    for (int i = 1; i < 4 && ok; i++)
        ok = check_items(&g[i], "groups", 8, j.groups);
    if (ok && position_size != 4 && position_size != 8) {
        PyErr_SetString(PyExc_ValueError, "seed_keys: positions of 4 or 8 bytes");
        ok = 0;
    }
    if (ok && j.groups) {
        if (threads > 64)
            threads = 64;
        if (threads > j.groups / 4096 + 1)
            threads = (int)(j.groups / 4096 + 1);
        int64_t total = 0;
        Py_BEGIN_ALLOW_THREADS
        run_parallel(keys_part, &j, threads);
        total = exclusive_sum(at, threads);
        Py_END_ALLOW_THREADS
        ok = check_items(&keys, "keys", 8, total);
        if (ok) {
            j.fill = 1;
            Py_BEGIN_ALLOW_THREADS
            run_parallel(keys_part, &j, threads);
            Py_END_ALLOW_THREADS
        }
    }
    for (int i = 0; i < 4; i++)
        PyBuffer_Release(&g[i]);
    PyBuffer_Release(&qpos), PyBuffer_Release(&rpos), PyBuffer_Release(&keys);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

/* ---- Every pair of equal keys, enumerated on threads and never stored (pairs in cpu.h): threads
 * take parts of the query words (cut where the key changes), merge them with the reference words,
 * and hand each pair to the caller's visit function, which may push items to its part's buffer.
 * The buffers are joined in part order, so the items come out in the same order whatever the
 * threads. kept_seeds below and matches.c's mem_starts are its two users. */

int push_item(part_items *out, uint64_t value) {
    if (out->size == out->capacity) {
        int64_t capacity = out->capacity ? 2 * out->capacity : 1024;
        uint64_t *items = realloc(out->items, (size_t)capacity * sizeof(uint64_t));
        if (!items)
            return 0;
        out->items = items, out->capacity = capacity;
    }
    out->items[out->size++] = value;
    return 1;
}

/* Query words [lo, hi) of part p (both ends moved forward to where the key changes). */
static void part_of(const pairs *f, int p, int64_t *lo, int64_t *hi) {
    int64_t bounds[2];
    for (int e = 0; e < 2; e++) {
        int64_t x = f->i0 + (f->i1 - f->i0) * (p + e) / f->parts;
        while (x > f->i0 && x < f->i1 && f->qkeys[x] == f->qkeys[x - 1])
            x++;
        bounds[e] = x;
    }
    *lo = bounds[0], *hi = bounds[1];
}

static void pairs_part(pairs *f, int p) {
    int64_t lo, hi;
    part_of(f, p, &lo, &hi);
    part_items *out = &f->out[p];
    /* the first reference word not below the part's first key */
    int64_t j = 0, top = lo < hi ? f->nr : 0;
    while (j < top) {
        int64_t mid = j + (top - j) / 2;
        if (f->rkeys[mid] < f->qkeys[lo])
            j = mid + 1;
        else
            top = mid;
    }
    const int ps = f->position_size;
    for (int64_t i = lo; i < hi && j < f->nr;) {
        uint64_t key = f->qkeys[i];
        int64_t i1 = i + 1;
        while (i1 < hi && f->qkeys[i1] == key)
            i1++;
        while (j < f->nr && f->rkeys[j] < key)
            j++;
        int64_t j1 = j;
        while (j1 < f->nr && f->rkeys[j1] == key)
            j1++;
        out->seeds += (i1 - i) * (j1 - j);
        for (int64_t a = i; a < i1; a++) {
            int64_t q = position(f->qpos, ps, a);
            for (int64_t b = j; b < j1; b++)
                if (!f->visit(f, out, q, position(f->rpos, ps, b))) {
                    f->failed = 1;
                    return;
                }
        }
        j = j1;
        i = i1;
    }
}

static void pairs_parts(void *p, int t, int threads) {
    pairs *f = (pairs *)p;
    (void)t, (void)threads;
    for (;;) {
        int part = __atomic_fetch_add(&f->next, 1, __ATOMIC_RELAXED);
        if (part >= f->parts || f->failed)
            return;
        pairs_part(f, part);
    }
}

PyObject *enumerate_pairs(pairs *f, int threads, long long *seeds, long long *walked) {
    if (!(f->out = calloc((size_t)f->parts, sizeof(part_items))))
        return PyErr_NoMemory();
    Py_BEGIN_ALLOW_THREADS
    run_parallel(pairs_parts, f, threads);
    Py_END_ALLOW_THREADS
    int64_t items = 0;
    *seeds = *walked = 0;
    for (int p = 0; p < f->parts; p++)
        *seeds += f->out[p].seeds, *walked += f->out[p].walked, items += f->out[p].size;
    PyObject *result = f->failed ? PyErr_NoMemory() : PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(items * 8));
    if (result) {
        char *at = PyByteArray_AS_STRING(result);
        for (int p = 0; p < f->parts; p++) {
            memcpy(at, f->out[p].items, (size_t)f->out[p].size * 8);
            at += f->out[p].size * 8;
        }
    }
    for (int p = 0; p < f->parts; p++)
        free(f->out[p].items);
    free(f->out);
    f->out = NULL;
    return result;
}

int parse_pairs(PyObject *args, const char *extra, pairs *f, Py_buffer *v, int *threads, void *extra_value) {
    long long i0, i1;
    char format[64];
    snprintf(format, sizeof format, "y*y*y*y*y*y*y*y*iLLi%sii", extra);
    if (!PyArg_ParseTuple(args, format, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &f->position_size, &i0,
                          &i1, &f->k, extra_value, &f->parts, threads))
        return 0;
    f->qcodes = v[0].buf, f->rcodes = v[1].buf, f->qok = v[2].buf, f->rok = v[3].buf;
    f->qsize = v[0].len, f->rsize = v[1].len;
    f->qkeys = v[4].buf, f->qpos = v[5].buf, f->rkeys = v[6].buf, f->rpos = v[7].buf;
    f->nr = v[6].len / 8, f->i0 = i0, f->i1 = i1;
    if (f->parts > 0 && (f->position_size == 4 || f->position_size == 8) && i0 >= 0 && i0 <= i1 && i1 <= v[4].len / 8
        && f->k >= 1 && f->k <= 32)
        return 1;
    PyErr_SetString(PyExc_ValueError, "inconsistent arguments");
    for (int i = 0; i < 8; i++)
        PyBuffer_Release(&v[i]);
    return 0;
}

/* ---- kept_seeds: the CPU's seeds stage and diagonal filter in one pass: a seed is dropped where
 * another seed of its diagonal starts 1 to 2k-1 bases before it (diagonals.filter_keys' rule, read
 * from the codes and the words kept on each side); a kept seed is pushed as its diagonal key. */

/* Whether a seed of (q, r)'s diagonal starts 1 to 2k-1 bases before it: the window j bases back
 * is a seed when both its words were kept and its bases equal, and the seed's own bases already
 * are, so the bases j-k+1..j back (those before q) must all be equal. */
static int shadowed(const pairs *f, int64_t q, int64_t r) {
    const int k = f->k;
    int run = 0;  /* equal bases ending j back */
    for (int j = 1; j < 2 * k; j++) {
        int64_t a = q - j, b = r - j;
        if (a < 0 || b < 0)
            return 0;
        run = f->qcodes[a] == f->rcodes[b] ? run + 1 : 0;
        if (run >= (j < k ? j : k) && f->qok[a] && f->rok[b])
            return 1;
    }
    return 0;
}

static int keep_seed(const pairs *f, part_items *out, int64_t q, int64_t r) {
    if (shadowed(f, q, r))
        return 1;
    return push_item(out, (uint64_t)(q - r + f->rtotal) * f->width + (uint64_t)q);
}

/* kept_seeds(qcodes, rcodes, qok, rok, qkeys, qpos, rkeys, rpos, position_size, i0, i1, k, (rtotal, width),
 * parts, threads) -> (seeds, keys): the seeds of query words [i0, i1) (i1 where the key changes) and
 * the diagonal keys of the kept ones, unsorted, as a bytearray of uint64. qok/rok: 1 where a kept word
 * starts. */
PyObject *py_kept_seeds(PyObject *self, PyObject *args) {
    Py_buffer v[8];
    pairs f = {0};
    int threads;
    long long frame[2];  /* rtotal, width */
    PyObject *frame_obj = NULL;
    if (!parse_pairs(args, "O", &f, v, &threads, &frame_obj))
        return NULL;
    PyObject *result = NULL;
    if (PyArg_ParseTuple(frame_obj, "LL", &frame[0], &frame[1])) {
        f.rtotal = frame[0], f.width = (uint64_t)frame[1], f.visit = keep_seed;
        long long seeds, walked;
        PyObject *keys = enumerate_pairs(&f, threads, &seeds, &walked);
        if (keys)
            result = Py_BuildValue("LN", seeds, keys);
    }
    for (int i = 0; i < 8; i++)
        PyBuffer_Release(&v[i]);
    return result;
}

/* word_starts(positions, position_size, out): out[p] = 1 at every position p of the list (out zeroed). */
PyObject *py_word_starts(PyObject *self, PyObject *args) {
    Py_buffer pos, out;
    int size;
    if (!PyArg_ParseTuple(args, "y*iw*", &pos, &size, &out))
        return NULL;
    int64_t n = pos.len / (size == 4 ? 4 : 8);
    uint8_t *o = out.buf;
    int ok = 1;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 0; i < n && ok; i++) {
        int64_t p = size == 4 ? ((const int32_t *)pos.buf)[i] : ((const int64_t *)pos.buf)[i];
        if (p < 0 || p >= out.len)
            ok = 0;
        else
            o[p] = 1;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&pos), PyBuffer_Release(&out);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "word_starts: a position outside the codes");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* window_starts(codes, k, out): out[p] = 1 where the window p..p+k-1 is made only of ACGT (codes below N_CODE).
 * When no word was dropped from a list these are exactly its words' starts (word_starts), found in one
 * pass over the codes instead of a scattered write a word (a cache miss each on a chromosome). */
PyObject *py_window_starts(PyObject *self, PyObject *args) {
    Py_buffer codes, out;
    int k;
    if (!PyArg_ParseTuple(args, "y*iw*", &codes, &k, &out))
        return NULL;
    int ok = out.len == codes.len && k >= 1;
    if (ok) {
        const uint8_t *c = codes.buf;
        uint8_t *o = out.buf;
        Py_BEGIN_ALLOW_THREADS
        int64_t run = 0;  /* ACGT codes from i on */
        for (int64_t i = (int64_t)codes.len - 1; i >= 0; i--) {
            run = c[i] < N_CODE ? run + 1 : 0;
            o[i] = run >= k;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&codes), PyBuffer_Release(&out);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "window_starts: out as long as the codes and k >= 1 expected");
        return NULL;
    }
    Py_RETURN_NONE;
}
