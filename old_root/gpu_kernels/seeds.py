"""Seeds: every (query word, reference word) pair with equal keys, counted exactly first, and
written as sorted diagonal keys (diagonals.py).

CPU: one merge of the two sorted lists, the cross product written group by group and a radix
sort, compiled, on all cores (seeds.c, cpu.c). CuPy: one pass over the sorted query words
(groups.cu), one thread a seed writing its key (seeds.cu), CuPy's radix sort.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import native
from .arrays import BLOCK, array_module, blocks, cupy, kernel, twin


@dataclass
class SeedGroups:
    """One entry per key present on both sides: where its words lie in the two sorted lists."""

    qfirst: object  # index of the key's first query word
    qcount: object
    rfirst: object  # index of the key's first reference word
    rcount: object

    def sizes(self):
        """Seeds per key: the cross product of the key's occurrences."""
        return self.qcount * self.rcount


def _no_groups(xp) -> SeedGroups:
    empty = xp.zeros(0, dtype=xp.int64)
    return SeedGroups(empty, empty, empty, empty)


def seed_groups(qkeys, rkeys) -> SeedGroups:
    """Group sorted query and reference keys by value; keys absent from either side are left out."""
    if qkeys.size == 0 or rkeys.size == 0:
        return _no_groups(np)
    cpu = native.cpu()
    qkeys, rkeys = np.ascontiguousarray(qkeys), np.ascontiguousarray(rkeys)
    count, _ = cpu.count_groups(qkeys, rkeys)
    columns = [np.empty(count, dtype=np.int64) for _ in range(4)]
    cpu.seed_groups(qkeys, rkeys, *columns)
    return SeedGroups(*columns)


def seed_groups_cupy(qkeys, rkeys) -> SeedGroups:
    """seed_groups on the device: one kernel over the query words (groups.cu), one compaction."""
    cp = cupy()
    nq = qkeys.size
    if nq == 0 or rkeys.size == 0:
        return _no_groups(cp)
    qcount = cp.empty(nq, dtype=cp.int64)
    rfirst = cp.empty(nq, dtype=cp.int64)
    rcount = cp.empty(nq, dtype=cp.int64)
    kernel("groups.cu", "group_starts")((blocks(nq),), (BLOCK,), (qkeys, cp.int64(nq), rkeys, cp.int64(rkeys.size),
                                                                 qcount, rfirst, rcount))
    start = cp.flatnonzero(rcount)
    return SeedGroups(start, qcount[start], rfirst[start], rcount[start])


def count_seeds(groups: SeedGroups) -> int:
    """Exact number of seeds the groups make."""
    return int(groups.sizes().sum())


def seed_group_index(groups: SeedGroups):
    """(group of each seed, first seed of each group): one marker per group start, then a prefix sum.

    Every seed gets its own index, so the work is balanced however frequent a few keys are.
    """
    xp = array_module(groups.qcount)
    sizes = groups.sizes()
    offsets = xp.cumsum(sizes) - sizes
    total = int(sizes.sum())
    marks = xp.zeros(total, dtype=xp.int32)
    # groups are never empty, so the offsets are distinct
    twin(marks, mark_starts, mark_starts_cupy)(offsets, marks)
    return xp.cumsum(marks, dtype=xp.int32), offsets


def mark_starts(offsets, marks) -> None:
    """marks set to 1 at every group's first seed but the first group's."""
    marks[offsets[1:]] = 1


def mark_starts_cupy(offsets, marks) -> None:
    """mark_starts on the device (seeds.cu)."""
    cp = cupy()
    if offsets.size > 1:
        kernel("seeds.cu", "mark_starts")((blocks(offsets.size - 1),), (BLOCK,),
                                          (cp.ascontiguousarray(offsets), cp.int64(offsets.size), marks))


def seed_keys(groups: SeedGroups, qpos, rpos, rtotal: int, width: int):
    """Sorted diagonal keys of every seed the groups make."""
    total = count_seeds(groups)
    keys = np.empty(total, dtype=np.uint64)
    if total:
        cpu, threads = native.cpu(), native.threads()
        qpos, rpos = np.ascontiguousarray(qpos), np.ascontiguousarray(rpos)
        size = max(qpos.dtype.itemsize, rpos.dtype.itemsize)
        qpos, rpos = (p.astype(f"i{size}", copy=False) for p in (qpos, rpos))
        cpu.seed_keys(groups.qfirst, groups.qcount, groups.rfirst, groups.rcount, qpos, rpos, size, rtotal, width,
                      keys, threads)
        top = int(rtotal + int(qpos.max())) * width + width  # above every key
        cpu.sort_pairs(keys, None, top.bit_length(), threads)
    return keys


def seed_keys_cupy(groups: SeedGroups, qpos, rpos, rtotal: int, width: int):
    """seed_keys on the device: each thread writes one seed's key straight from the groups (seeds.cu),
    so the seeds' positions are never stored."""
    cp = cupy()
    if groups.qcount.size == 0:
        return cp.zeros(0, dtype=cp.uint64)
    group, offsets = seed_group_index(groups)
    keys = cp.empty(group.size, dtype=cp.uint64)
    kernel("seeds.cu", "seed_keys")(
        (blocks(group.size),), (BLOCK,),
        (group, offsets, groups.qfirst, groups.rfirst, groups.rcount, qpos, rpos, cp.int64(group.size),
         cp.int64(rtotal), cp.uint64(width), keys))
    del group, offsets
    keys.sort()
    return keys


PARTS_PER_THREAD = 512  # units of work the compiled pair enumerator cuts a batch into, a thread's worth times threads


class KeptSeeds:
    """The CPU's seeds stage and diagonal filter in one compiled pass (seeds.c): the cross product of
    each group is enumerated, never stored, and a seed shadowed by another starting 1 to 2k-1 bases
    before it on its diagonal is dropped there (diagonals.filter_keys' rule, read from the codes).
    So the CPU needs no tiles: it holds the words and a batch's kept seeds, not every seed; a batch
    holds at most the seed budget (--tile-bytes) unless it is a single key.

    Query words are taken a batch at a time (cut where the key changes); `seeds` gives a batch's
    seed count and its kept seeds' sorted diagonal keys (sorted, so that the seeds of a diagonal
    are extended one after another, over bases still in the cache)."""


    def __init__(self, qcodes, rcodes, words_q, words_r, k: int, width: int):
        self.qcodes, self.rcodes = np.ascontiguousarray(qcodes), np.ascontiguousarray(rcodes)
        self.qkeys, self.qpos = words_q
        self.rkeys, self.rpos = words_r
        size = max(self.qpos.dtype.itemsize, self.rpos.dtype.itemsize)
        self.qpos, self.rpos = (p.astype(f"i{size}", copy=False) for p in (self.qpos, self.rpos))
        self.size, self.k, self.width = size, k, width
        self.cpu, self.threads = native.cpu(), native.threads()
        self.qok, self.rok = self._starts(self.qpos, self.qcodes), self._starts(self.rpos, self.rcodes)

    def _starts(self, pos, codes) -> np.ndarray:
        """1 at every position where a word of the list starts: from the codes in one pass when the list
        holds every ACGT window (no word dropped as too frequent), else from the list."""
        ok = np.zeros(codes.size, dtype=np.uint8)
        if pos.size == self.cpu.count_words(codes, self.k, 2):
            self.cpu.window_starts(codes, self.k, ok)
        else:
            self.cpu.word_starts(pos, self.size, ok)
        return ok

    def batches(self, words: int, budget: int):
        """(i0, i1): about `words` query words at a time, cut where the key changes, and cut again
        (halved, where the key changes) until a batch's seeds are at most `budget` or it is one key:
        a batch's kept seeds and their HSPs are held at once (--tile-bytes on the CPU)."""
        for i0, i1 in key_batches(self.qkeys, words):
            todo = [(i0, i1)]
            while todo:
                a, b = todo.pop()
                mid = int(np.searchsorted(self.qkeys, self.qkeys[(a + b) // 2], side="left"))
                if mid <= a:
                    mid = int(np.searchsorted(self.qkeys, self.qkeys[a], side="right"))
                if mid >= b or self.count(a, b) <= budget:
                    yield a, b
                else:
                    todo += [(mid, b), (a, mid)]

    def count(self, i0: int, i1: int) -> int:
        """Seeds of query words [i0, i1) (before the diagonal filter)."""
        lo = int(np.searchsorted(self.rkeys, self.qkeys[i0], side="left"))
        hi = int(np.searchsorted(self.rkeys, self.qkeys[i1 - 1], side="right"))
        return int(self.cpu.count_groups(self.qkeys[i0:i1], self.rkeys[lo:hi])[1])

    def seeds(self, i0: int, i1: int):
        """(seeds, sorted diagonal keys of the kept seeds) of query words [i0, i1)."""
        seeds, keys = self.cpu.kept_seeds(self.qcodes, self.rcodes, self.qok, self.rok, self.qkeys, self.qpos,
                                          self.rkeys, self.rpos, self.size, i0, i1, self.k,
                                          (self.rcodes.size, self.width), PARTS_PER_THREAD * self.threads, self.threads)
        keys = np.frombuffer(keys, dtype=np.uint64)
        top = (self.rcodes.size + self.qcodes.size) * self.width + self.width  # above every key
        self.cpu.sort_pairs(keys, None, top.bit_length(), self.threads)
        return seeds, keys


def key_batches(keys, words: int):
    """(i0, i1) ranges of about `words` sorted keys each, cut where the key changes."""
    n = keys.size
    i0 = 0
    while i0 < n:
        i1 = min(n, i0 + words)
        if i1 < n:
            i1 = int(np.searchsorted(keys, keys[i1], side="left"))
            if i1 <= i0:
                i1 = int(np.searchsorted(keys, keys[i0], side="right"))
        yield i0, i1
        i0 = i1
