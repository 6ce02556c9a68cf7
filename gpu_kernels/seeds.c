/* seeds on the CPU: one merge of the two sorted key lists finds the groups of equal keys (as
 * seeds.py's searchsorted does), then every group's cross product is written as diagonal keys,
 * d * width + q with d = q - r + rtotal (diagonals.py), threads taking ranges of groups. */
#include "cpu.h"

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

static inline int64_t position(const char *p, int size, int64_t i) {
    return size == 4 ? (int64_t)((const int32_t *)p)[i] : ((const int64_t *)p)[i];
}

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
        for (int t = 0; t < threads; t++) {
            int64_t c = at[t];
            at[t] = total;
            total += c;
        }
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
