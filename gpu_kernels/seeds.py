"""Seeds: every (query word, reference word) pair with equal keys, counted exactly first, and
written as sorted diagonal keys (diagonals.py).

NumPy: searchsorted groups, the cross product as index arithmetic. CuPy: one pass over the sorted
query words (groups.cu), one thread a seed writing its key (seeds.cu).
"""
from __future__ import annotations

from dataclasses import dataclass

from .arrays import BLOCK, array_module, blocks, cupy, kernel
from .diagonals import diagonal_keys


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
    xp = array_module(qkeys)
    if qkeys.size == 0 or rkeys.size == 0:
        return _no_groups(xp)
    starts = xp.flatnonzero(xp.concatenate((xp.ones(1, dtype=bool), qkeys[1:] != qkeys[:-1])))
    qcount = xp.diff(xp.concatenate((starts, xp.array([qkeys.size])))).astype(xp.int64)
    unique = qkeys[starts]
    rfirst = xp.searchsorted(rkeys, unique, side="left").astype(xp.int64)
    rcount = xp.searchsorted(rkeys, unique, side="right").astype(xp.int64) - rfirst
    keep = rcount > 0
    return SeedGroups(starts[keep].astype(xp.int64), qcount[keep], rfirst[keep], rcount[keep])


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
    marks[offsets[1:]] = 1  # groups are never empty, so the offsets are distinct
    return xp.cumsum(marks, dtype=xp.int32), offsets


def seeds(groups: SeedGroups, qpos, rpos):
    """The full cross product of each group: (query positions, reference positions), int64."""
    xp = array_module(qpos)
    if groups.qcount.size == 0:
        empty = xp.zeros(0, dtype=xp.int64)
        return empty, empty
    group, offsets = seed_group_index(groups)
    local = xp.arange(group.size, dtype=xp.int64) - offsets[group]
    rcount = groups.rcount[group]
    qi = groups.qfirst[group] + local // rcount
    ri = groups.rfirst[group] + local % rcount
    return qpos[qi].astype(xp.int64), rpos[ri].astype(xp.int64)


def seed_keys(groups: SeedGroups, qpos, rpos, rtotal: int, width: int):
    """Sorted diagonal keys of every seed the groups make."""
    return diagonal_keys(*seeds(groups, qpos, rpos), rtotal, width)


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
