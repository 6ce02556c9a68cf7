"""Coverage: bases inside the union of HSP intervals, per group, never a sum of lengths.

union_length: the covered bases of each group of an in-memory table (the command line's summary;
on the device one kernel, hsps.cu's union_gains).
TableCoverage: the workflow's coverage tables, per chromosome pair, chromosome and strand on both
sides, from a table given a chunk at a time; it keeps only the disjoint covered segments found so
far (merge_intervals), so a table of billions of HSPs is never in memory whole. Both run on either
backend: NumPy's running maximum (np.maximum.accumulate), or scan.cu's on the device.
"""
from __future__ import annotations

import numpy as np

from .arrays import (BLOCK, array_module, blocks, concatenate, cupy, gather, is_sorted, kernel, running_max,
                     running_max_cupy, stable_argsort, to_host, twin)
from .hsps import packed
from .schema import HSP


def union_length(group, start, end, groups: int):
    """Bases covered by the union of [start, end) intervals of each group 0..groups-1 (int64)."""
    return covered_bases(group, start, end, np.arange(groups, dtype=np.int64))


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


def merge_intervals(group, start, end) -> tuple:
    """The union of the [start, end) intervals of each group as disjoint intervals: (group, start,
    end) as int64, ordered by group, then start. group: any int64 keys. Either backend (the running
    maximum from scan.cu on the device)."""
    xp = array_module(start)
    group, start, end = (column.astype(xp.int64, copy=False) for column in (group, start, end))
    if start.size == 0:
        return group, start, end
    span = int(end.max()) + 1
    keys = None
    if (int(group.max()) + 1) * span >= 2**62:  # group * span must fit in int64: use dense group numbers
        keys, group = xp.unique(group, return_inverse=True)
        group = group.ravel()
    group, start, end, span = _by_group(group, start, end, span)
    lift = group * span
    reach = running_max(lift + end) - lift
    # a row opens an interval where its group begins or where it starts past everything before it
    opens = xp.ones(start.size, dtype=bool)
    opens[1:] = (group[1:] != group[:-1]) | (start[1:] > reach[:-1])
    heads = xp.nonzero(opens)[0]
    lasts = xp.empty_like(heads)
    lasts[:-1] = heads[1:] - 1
    lasts[-1] = start.size - 1
    group = group[heads]
    return (group if keys is None else keys[group]), start[heads], reach[lasts]


def _by_group(group, start, end, span: int | None = None) -> tuple:
    """(group as int64, start, end, span): rows ordered by (group, start) (tables in the canonical
    order often need no sort); span is above every end, so that group * span + x orders rows by
    group first for any x below span: one sort and one running maximum serve every group at once."""
    if group.dtype != np.int64:
        group = packed([group], [1])  # as int64 (on the GPU by hsps.cu, no cast kernel of CuPy's)
    span = span or int(end.max()) + 1
    key = packed([group, start], [1, span])
    if not is_sorted(key):
        order = stable_argsort(key)
        group, start, end = gather(group, order), gather(start, order), gather(end, order)
    return group, start, end, span


def group_totals(group, values) -> tuple:
    """(each group once, the sum of its values) for rows ordered by group (int64 sums, exact)."""
    xp = array_module(values)
    if values.size == 0:
        return group[:0], xp.zeros(0, dtype=xp.int64)
    heads = xp.nonzero(xp.concatenate((xp.ones(1, dtype=bool), group[1:] != group[:-1])))[0]
    total = xp.concatenate((xp.zeros(1, dtype=xp.int64), xp.cumsum(values, dtype=xp.int64)))
    bounds = xp.concatenate((heads, xp.asarray([values.size], dtype=heads.dtype)))
    return group[heads], total[bounds[1:]] - total[bounds[:-1]]


def covered_bases(group, start, end, keys: np.ndarray) -> np.ndarray:
    """Bases in the union of each group's intervals, for each of keys (sorted host int64; 0 for a
    key without intervals)."""
    return disjoint_bases(*merge_intervals(group, start, end), keys)


def disjoint_bases(group, start, end, keys: np.ndarray) -> np.ndarray:
    """covered_bases of intervals already disjoint within each group, ordered by group."""
    groups, totals = group_totals(group, end - start)
    out = np.zeros(keys.size, dtype=np.int64)
    groups, totals = to_host(groups), to_host(totals)
    out[np.searchsorted(keys, groups)] = totals
    return out


def strand_bases(group, start, end, keys: np.ndarray) -> dict[str, np.ndarray]:
    """covered_bases of each of keys on the forward strand, the reverse one and either (STRANDS), of segments
    disjoint and in order within each group (key * 2 + strand): one strand's are summed, the two merged."""
    key, forward, reverse = group >> 1, (group & 1) == 0, (group & 1) == 1
    return {"forward": disjoint_bases(key[forward], start[forward], end[forward], keys),
            "reverse": disjoint_bases(key[reverse], start[reverse], end[reverse], keys),
            "both": covered_bases(key, start, end, keys)}


STRANDS = ("forward", "reverse", "both")
PAIR_SUMS = ("hsps", "aligned_bases", "aligned_reverse", "centre_weight")


def _side(hsps: dict, side: str) -> tuple:
    """(record, start, end) columns of one side; rend from rstart and the length when absent."""
    rec, start, end = HSP.view(side)
    if end not in hsps:  # rend = rstart + (qend - qstart): HSPs are ungapped
        return hsps[rec], hsps[start], hsps[start] + (hsps["qend"] - hsps["qstart"])
    return hsps[rec], hsps[start], hsps[end]


class TableCoverage:
    """Coverage of an HSP table given a chunk of rows at a time (row groups, in any order): each
    chunk's intervals are merged into the disjoint intervals covered so far on each side, per
    chromosome pair and strand, so memory holds covered segments, never the whole table (a
    repeat-rich genome pair has billions of HSPs over a few million segments). Columns: qrec, rrec,
    strand, qstart, qend, rstart, as NumPy or CuPy arrays (xp)."""

    def __init__(self, nq: int, nr: int, xp=np):
        self.nq, self.nr, self.xp = nq, nr, xp
        self.covered: dict[str, tuple] = {}  # side -> (pair * 2 + strand, start, end), disjoint
        self.keys = np.zeros(0, dtype=np.int64)  # pairs with HSPs (qrec * nr + rrec), ascending
        self.sums = {name: np.zeros(0) for name in PAIR_SUMS}  # per pair in keys

    def add(self, hsps: dict) -> None:
        """Take in a chunk of HSPs."""
        xp = self.xp
        if hsps["qstart"].size == 0:
            return
        pair = hsps["qrec"].astype(xp.int64) * self.nr + hsps["rrec"]
        group = pair * 2 + hsps["strand"]
        for side in ("query", "reference"):
            _, start, end = _side(hsps, side)
            parts = [(group, start, end)] + ([self.covered[side]] if side in self.covered else [])
            self.covered[side] = merge_intervals(*(concatenate([p[i] for p in parts]) for i in range(3)))
        keys, inverse = xp.unique(pair, return_inverse=True)
        inverse = inverse.ravel()
        length = (hsps["qend"] - hsps["qstart"]).astype(xp.float64)
        reverse = hsps["strand"] == 1
        n = int(keys.size)
        count = twin(inverse, np.bincount, spread_bincount)
        sums = {"hsps": count(inverse, minlength=n).astype(xp.float64),
                "aligned_bases": count(inverse, weights=length, minlength=n),
                "aligned_reverse": count(inverse[reverse], weights=length[reverse], minlength=n),
                "centre_weight": count(inverse, weights=length * (hsps["rstart"] + length / 2), minlength=n)}
        keys = np.concatenate((self.keys, to_host(keys)))
        self.keys, inverse = np.unique(keys, return_inverse=True)
        self.sums = {name: np.bincount(inverse, weights=np.concatenate((self.sums[name], to_host(sums[name]))),
                                       minlength=self.keys.size) for name in PAIR_SUMS}

    def pairs(self) -> tuple[np.ndarray, np.ndarray, dict, dict]:
        """pair_coverage's result for every chunk added."""
        per_pair = {side: strand_bases(*self.intervals(side), self.keys) for side in ("query", "reference")}
        aligned = self.sums["aligned_bases"]
        alignment = {"aligned_bases": aligned.astype(np.int64),
                     "aligned_reverse": self.sums["aligned_reverse"].astype(np.int64),
                     "reference_centre": np.rint(self.sums["centre_weight"] / np.maximum(aligned, 1)).astype(np.int64)}
        return self.keys.copy(), self.sums["hsps"].astype(np.int64), per_pair, alignment

    def records(self, side: str) -> dict[str, np.ndarray]:
        """record_coverage's result for every chunk added."""
        return strand_bases(*self.record_segments(side), np.arange(self.nq if side == "query" else self.nr,
                                                                   dtype=np.int64))

    def record_segments(self, side: str) -> tuple:
        """The disjoint covered segments of each record and strand of one side so far, over every chromosome
        pair: (record * 2 + strand, start, end), in order."""
        group, start, end = self.intervals(side)
        pair = group >> 1
        record = pair // self.nr if side == "query" else pair % self.nr
        return merge_intervals(record * 2 + (group & 1), start, end)

    def intervals(self, side: str) -> tuple:
        """The disjoint covered segments of one side so far: (pair * 2 + strand, start, end)."""
        if side in self.covered:
            return self.covered[side]
        empty = self.xp.zeros(0, dtype=self.xp.int64)
        return empty, empty, empty


SPREAD_BINS = 1 << 22  # bins spread_bincount may use (32 MB of float64)


def spread_bincount(index, weights=None, minlength: int = 0):
    """cupy.bincount with the rows of each bin spread over up to 1024 lanes, then the lanes summed:
    CuPy adds every row into its bin with an atomic, and the few bins of a genome pair's chromosome
    pairs made those queue (3.6 s of a batch pass's 4.2 s on an H200). The same counts; sums of
    weights in another order, as any atomic order gives."""
    cp = cupy()
    lanes = 1 << max(0, min(10, (SPREAD_BINS // max(1, minlength)).bit_length() - 1))
    if lanes == 1:
        return cp.bincount(index, weights, minlength=minlength)
    spread = index.astype(cp.int64) * lanes + (cp.arange(index.size, dtype=cp.int64) & (lanes - 1))
    return cp.bincount(spread, weights, minlength=minlength * lanes).reshape(-1, lanes).sum(axis=1)


def table_coverage(chunks, nq: int, nr: int, xp=np) -> TableCoverage:
    """A TableCoverage of every chunk (dicts of HSP columns) of an iterable."""
    coverage = TableCoverage(nq, nr, xp)
    for chunk in chunks:
        coverage.add(chunk)
    return coverage


def pair_coverage(hsps: dict, nq: int, nr: int) -> tuple[np.ndarray, np.ndarray, dict, dict]:
    """Covered bases of each (query record, reference record) pair that has HSPs, on both sides:
    (the pairs' keys qrec * nr + rrec, ascending; their HSP counts; {query, reference: {forward,
    reverse, both: covered bases per pair}}; pair_alignment's columns).

    Only pairs with HSPs get an entry, so two drafts of 50,000 contigs need no 50,000 x 50,000 table.
    Columns as NumPy or CuPy arrays; results on the host.

    Where the pair's HSPs lie, for ordering query records along the reference (D-GENIES' rule):
    aligned bases (the sum of HSP lengths), those on the reverse strand, and the length-weighted
    mean centre of the HSPs on the reference record (rounded bp)."""
    return table_coverage([hsps], nq, nr, array_module(hsps["qstart"])).pairs()


def record_coverage(hsps: dict, records: int, side: str = "query") -> dict[str, np.ndarray]:
    """Covered bases per record of one side (query or reference) against every record of the other:
    forward, reverse and both strands."""
    other = int(hsps["rrec" if side == "query" else "qrec"].max()) + 1 if hsps["qstart"].size else 1
    nq, nr = (records, other) if side == "query" else (other, records)
    return table_coverage([hsps], nq, nr, array_module(hsps["qstart"])).records(side)
