"""Coverage: query bases inside the union of HSP query intervals, per group, never a sum of lengths."""
from __future__ import annotations

import numpy as np


def union_length(group: np.ndarray, start: np.ndarray, end: np.ndarray, groups: int) -> np.ndarray:
    """Bases covered by the union of [start, end) intervals of each group 0..groups-1."""
    covered = np.zeros(groups, dtype=np.int64)
    if start.size == 0:
        return covered
    # Offsetting each group by span lets one sort and one running maximum serve every group at once.
    span = int(end.max()) + 1
    order = np.argsort(group * span + start, kind="stable")
    group, start, end = group[order], start[order], end[order]
    reach = np.maximum.accumulate(group * span + end) - group * span
    before = np.concatenate(([0], reach[:-1]))
    before[np.concatenate(([True], group[1:] != group[:-1]))] = 0
    np.add.at(covered, group, np.clip(end - np.maximum(start, before), 0, None))
    return covered


def pair_coverage(hsps: dict, nq: int, nr: int) -> dict[str, np.ndarray]:
    """Covered query bases per (query record, reference record): forward, reverse and both, shape (nq, nr)."""
    out = {}
    pair = hsps["qrec"] * nr + hsps["rrec"]
    for name, mask in (("forward", hsps["strand"] == 0), ("reverse", hsps["strand"] == 1),
                       ("both", np.ones(pair.size, dtype=bool))):
        out[name] = union_length(pair[mask], hsps["qstart"][mask], hsps["qend"][mask], nq * nr).reshape(nq, nr)
    return out


def query_coverage(hsps: dict, nq: int) -> dict[str, np.ndarray]:
    """Covered bases per query record against all reference records: forward, reverse and both."""
    out = {}
    for name, mask in (("forward", hsps["strand"] == 0), ("reverse", hsps["strand"] == 1),
                       ("both", np.ones(hsps["qrec"].size, dtype=bool))):
        out[name] = union_length(hsps["qrec"][mask], hsps["qstart"][mask], hsps["qend"][mask], nq)
    return out
