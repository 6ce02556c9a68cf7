"""Coverage: bases inside the union of HSP intervals, per group, never a sum of lengths.

NumPy: np.maximum.accumulate and a running sum. CuPy: the running maximum from scan.cu, the gains
added up by hsps.cu.
"""
from __future__ import annotations

import numpy as np

from .arrays import BLOCK, array_module, blocks, cupy, gather, is_sorted, kernel, stable_argsort, to_host
from .hsps import packed, running_max, running_max_cupy


def union_length(group, start, end, groups: int):
    """Bases covered by the union of [start, end) intervals of each group 0..groups-1 (int64)."""
    covered = np.zeros(groups, dtype=np.int64)
    if start.size == 0:
        return covered
    group, start, end, span = _by_group(np.asarray(group), np.asarray(start), np.asarray(end))
    reach = running_max(group * span + end) - group * span
    before = np.concatenate((np.zeros(1, dtype=np.int64), reach[:-1]))
    first = np.concatenate((np.ones(1, dtype=bool), group[1:] != group[:-1]))
    before = np.where(first, 0, before)
    gain = np.clip(end - np.maximum(start, before), 0, None)
    # rows are grouped: a group's sum is the difference of the running sum at its two ends
    total = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(gain)))
    bounds = np.searchsorted(group, np.arange(groups + 1, dtype=np.int64), side="left")
    return total[bounds[1:]] - total[bounds[:-1]]


def union_length_cupy(group, start, end, groups: int):
    """union_length on the device: the running maximum from scan.cu, each row's gain added to its
    group's total by hsps.cu's union_gains."""
    cp = cupy()
    covered = cp.zeros(groups, dtype=cp.int64)
    if start.size == 0:
        return covered
    group, start, end, span = _by_group(group, start, end)
    start, end = cp.ascontiguousarray(start), cp.ascontiguousarray(end)  # the kernel reads them densely
    reach = running_max_cupy(packed([group, end], [1, span]))
    n = int(start.size)
    kernel("hsps.cu", "union_gains")((blocks(n),), (BLOCK,), (group, start, end, reach, cp.int64(span), cp.int64(n),
                                                             covered))
    return covered


def _by_group(group, start, end) -> tuple:
    """(group as int64, start, end, span): rows ordered by (group, start) (tables in the canonical
    order often need no sort); span is above every end, so that group * span + x orders rows by
    group first for any x below span: one sort and one running maximum serve every group at once."""
    group = packed([group], [1])  # as int64
    span = int(end.max()) + 1
    key = packed([group, start], [1, span])
    if not is_sorted(key):
        order = stable_argsort(key)
        group, start, end = gather(group, order), gather(start, order), gather(end, order)
    return group, start, end, span


SIDES = {"query": ("qrec", "qstart", "qend"), "reference": ("rrec", "rstart", "rend")}
STRANDS = ("forward", "reverse", "both")


def _side(hsps: dict, side: str) -> tuple:
    """(record, start, end) columns of one side; rend from rstart and the length when absent."""
    rec, start, end = SIDES[side]
    if end not in hsps:  # rend = rstart + (qend - qstart): HSPs are ungapped
        return hsps[rec], hsps[start], hsps[start] + (hsps["qend"] - hsps["qstart"])
    return hsps[rec], hsps[start], hsps[end]


def _by_strand(hsps: dict, group, start, end, groups: int, union) -> dict:
    out = {}
    for name, mask in (("forward", hsps["strand"] == 0), ("reverse", hsps["strand"] == 1), ("both", None)):
        part = (group, start, end) if mask is None else (group[mask], start[mask], end[mask])
        out[name] = to_host(union(*part, groups))
    return out


def pair_coverage(hsps: dict, nq: int, nr: int, union=union_length) -> tuple[np.ndarray, np.ndarray, dict, dict]:
    """Covered bases of each (query record, reference record) pair that has HSPs, on both sides:
    (the pairs' keys qrec * nr + rrec, ascending; their HSP counts; {query, reference: {forward,
    reverse, both: covered bases per pair}}; pair_alignment's columns).

    Only pairs with HSPs get an entry, so two drafts of 50,000 contigs need no 50,000 x 50,000 table.
    union: union_length or union_length_cupy (then the columns are device arrays; results on the host)."""
    xp = array_module(hsps["qstart"])
    pair = hsps["qrec"].astype(xp.int64) * nr + hsps["rrec"]
    keys, group, counts = xp.unique(pair, return_inverse=True, return_counts=True)
    del pair
    out = {side: _by_strand(hsps, group, *_side(hsps, side)[1:], int(keys.size), union) for side in SIDES}
    return to_host(keys), to_host(counts), out, pair_alignment(hsps, group, int(keys.size))


def pair_alignment(hsps: dict, group, groups: int) -> dict:
    """Where each pair's HSPs lie, for ordering query records along the reference (D-GENIES' rule):
    aligned bases (the sum of HSP lengths), those on the reverse strand, and the length-weighted
    mean centre of the HSPs on the reference record (rounded bp)."""
    xp = array_module(hsps["qstart"])
    length = (hsps["qend"] - hsps["qstart"]).astype(xp.float64)
    reverse = hsps["strand"] == 1
    aligned = xp.bincount(group, weights=length, minlength=groups)
    centre = xp.bincount(group, weights=length * (hsps["rstart"] + length / 2), minlength=groups)
    return {"aligned_bases": to_host(aligned).astype(np.int64),
            "aligned_reverse": to_host(xp.bincount(group[reverse], weights=length[reverse], minlength=groups)).astype(np.int64),
            "reference_centre": np.rint(to_host(centre / xp.maximum(aligned, 1))).astype(np.int64)}


def record_coverage(hsps: dict, records: int, side: str = "query", union=union_length) -> dict[str, np.ndarray]:
    """Covered bases per record of one side (query or reference) against every record of the other:
    forward, reverse and both strands."""
    rec, start, end = _side(hsps, side)
    return _by_strand(hsps, rec, start, end, records, union)
