"""HSP tables: columns of equal length, filtered, deduplicated, and mapped to record coordinates.

NumPy: np.maximum.accumulate. CuPy: the running maximum of the deduplication is scan.cu.
"""
from __future__ import annotations

import numpy as np

from .arrays import BLOCK, SCAN_ITEMS, array_module, blocks, cupy, kernel

# Columns of a raw HSP table, all int64, positions on the concatenated axes of the strand searched.
RAW = ("qstart", "qend", "rstart", "rend", "score", "identities")
# Columns of a final HSP table: record indices, record-local coordinates, forward reference axis.
COLUMNS = ("qrec", "rrec", "qstart", "qend", "rstart", "rend", "strand", "score", "identities", "length")


def empty(columns=COLUMNS) -> dict:
    """An HSP table with no rows."""
    return {name: np.zeros(0, dtype=np.int64) for name in columns}


def concat(tables: list[dict], columns=COLUMNS) -> dict:
    """Rows of several tables, one after another."""
    if not tables:
        return empty(columns)
    xp = array_module(tables[0][columns[0]])
    return {name: xp.concatenate([t[name] for t in tables]) for name in columns}


def take(table: dict, index) -> dict:
    """Rows selected by a boolean mask or an index array."""
    return {name: column[index] for name, column in table.items()}


def passes(table: dict, min_len: int, min_identity: float):
    """Mask of rows at least min_len long and at least min_identity percent identical."""
    length = table["qend"] - table["qstart"]
    return (length >= min_len) & (table["identities"] * 100.0 >= min_identity * length)


def sort_order(diag, qstart, qend):
    """Indices ordering rows by diagonal, then qstart, then qend descending: two stable sorts."""
    xp = array_module(diag)
    key = (diag - diag.min()) * (int(qstart.max()) + 1) + qstart  # fits: check_width bounds it
    order = xp.argsort(-qend, kind="stable")
    return order[xp.argsort(key[order], kind="stable")]


def running_max(values):
    """Inclusive running maximum of a 1-D int64 array."""
    return np.maximum.accumulate(values)


def running_max_cupy(values):
    """running_max on the device: block scans, then carries, recursively over the block totals (scan.cu)."""
    cp = cupy()
    n = values.size
    out = cp.empty_like(values)
    if n == 0:
        return out
    tile = BLOCK * SCAN_ITEMS
    count = blocks(n, tile, cap=2**31 - 1)
    totals = cp.empty(count, dtype=cp.int64)
    kernel("scan.cu", "block_max_scan")((count,), (BLOCK,), (values, out, totals, cp.int64(n)))
    if count > 1:
        kernel("scan.cu", "add_carry")((count,), (BLOCK,), (out, running_max_cupy(totals), cp.int64(n)))
    return out


def drop_contained(table: dict) -> dict:
    """Drop duplicate HSPs and HSPs inside another on the same diagonal (one strand's raw table).

    Sorted by (diagonal, qstart, -qend), an HSP is inside an earlier one of its diagonal exactly
    when its qend is not beyond the running maximum qend of that diagonal.
    """
    return _drop_contained(table, running_max)


def drop_contained_cupy(table: dict) -> dict:
    """drop_contained on the device (the running maximum from scan.cu)."""
    return _drop_contained(table, running_max_cupy)


def _drop_contained(table: dict, running_max_fn) -> dict:
    xp = array_module(table["qstart"])
    n = table["qstart"].size
    if n < 2:
        return table
    diag = table["qstart"] - table["rstart"]
    order = sort_order(diag, table["qstart"], table["qend"])
    table = take(table, order)
    diag = diag[order]
    first = xp.concatenate((xp.ones(1, dtype=bool), diag[1:] != diag[:-1]))
    group = xp.cumsum(first) - 1
    span = int(table["qend"].max()) + 1
    end = group * span + table["qend"]
    reach = running_max_fn(end)
    keep = xp.ones(n, dtype=bool)
    keep[1:] = end[1:] > reach[:-1]
    return take(table, keep)


def to_records(raw: dict, strand: int, query, reference) -> dict:
    """Raw HSPs of one strand to the final columns: record indices and record-local coordinates."""
    qrec = query.record_of(raw["qstart"])
    if strand == 0:
        rstart, rend = raw["rstart"], raw["rend"]
    else:  # back from the reverse complement of the whole reference concatenation
        rstart, rend = reference.total - raw["rend"], reference.total - raw["rstart"]
    rrec = reference.record_of(rstart)
    return {
        "qrec": qrec,
        "rrec": rrec,
        "qstart": raw["qstart"] - query.starts[qrec],
        "qend": raw["qend"] - query.starts[qrec],
        "rstart": rstart - reference.starts[rrec],
        "rend": rend - reference.starts[rrec],
        "strand": np.full(qrec.size, strand, dtype=np.int64),
        "score": raw["score"],
        "identities": raw["identities"],
        "length": raw["qend"] - raw["qstart"],
    }


def sort_rows(table: dict) -> dict:
    """Rows in a canonical order: query record, reference record, strand, qstart, rstart, qend."""
    order = np.lexsort(tuple(table[c] for c in ("qend", "rstart", "qstart", "strand", "rrec", "qrec")))
    return take(table, order)
