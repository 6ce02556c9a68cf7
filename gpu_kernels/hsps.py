"""HSP tables: columns of equal length, filtered, deduplicated, and mapped to record coordinates.

NumPy: array operations and np.maximum.accumulate. CuPy: the HSPs that pass are selected by
select.cu, the running maximum of the deduplication is scan.cu, record coordinates come from hsps.cu.
"""
from __future__ import annotations

import numpy as np

from .arrays import (BLOCK, SCAN_ITEMS, array_module, blocks, concatenate, cupy, every, gather, has_ties, kernel,
                     select, stable_argsort, sum_difference)

# Columns of a raw HSP table, all int64, positions on the concatenated axes of the strand searched.
RAW = ("qstart", "qend", "rstart", "rend", "score", "identities")
# Columns of a final HSP table: record indices, record-local coordinates, forward reference axis.
COLUMNS = ("qrec", "rrec", "qstart", "qend", "rstart", "rend", "strand", "score", "identities", "length")
# The columns a final table holds while it is on the device: length and rend follow from the others.
STORED = ("qrec", "rrec", "qstart", "qend", "rstart", "strand", "score", "identities")


def complete(table: dict) -> dict:
    """A table with every one of COLUMNS, length (qend - qstart) and rend (rstart + length) added
    where missing."""
    if "length" in table and "rend" in table:
        return {name: table[name] for name in COLUMNS}
    xp = array_module(table["qstart"])
    if xp is np or any(table[c].dtype != xp.int64 for c in ("qstart", "qend", "rstart")):
        length = table["qend"] - table["qstart"]
        rend = table["rstart"] + length
    else:  # one kernel (hsps.cu), none of CuPy's
        qstart, qend, rstart = (xp.ascontiguousarray(table[c]) for c in ("qstart", "qend", "rstart"))
        n = int(qstart.size)
        length, rend = xp.empty(n, dtype=xp.int64), xp.empty(n, dtype=xp.int64)
        if n:
            kernel("hsps.cu", "complete_columns")((blocks(n),), (BLOCK,), (qstart, qend, rstart, xp.int64(n), length, rend))
    full = dict(table, length=length, rend=rend)
    return {name: full[name] for name in COLUMNS}


def empty(columns=COLUMNS, xp=np) -> dict:
    """An HSP table with no rows (the stored types of record indices and strand where they apply)."""
    types = {"qrec": xp.int32, "rrec": xp.int32, "strand": xp.int8}
    return {name: xp.zeros(0, dtype=types.get(name, xp.int64)) for name in columns}


def concat(tables: list[dict], columns=COLUMNS, xp=None) -> dict:
    """Rows of several tables, one after another (xp: the array module when tables may be empty)."""
    if not tables:
        return empty(columns, xp or np)
    return {name: concatenate([t[name] for t in tables]) for name in columns}


def take(table: dict, index) -> dict:
    """Rows selected by a boolean mask or an index array."""
    return {name: column[index] for name, column in table.items()}


def passes(table: dict, min_len: int, min_identity: float):
    """Mask of rows at least min_len long and at least min_identity percent identical."""
    length = table["qend"] - table["qstart"]
    return (length >= min_len) & (table["identities"] * 100.0 >= min_identity * length)


def passing(qstart, qend, score, ids, sq, sr, min_len: int, min_identity: float) -> dict:
    """The raw table (RAW columns) of the extended seeds (sq, sr) that pass (passes): each HSP's
    reference coordinates are its query coordinates moved to its seed's diagonal."""
    raw = {"qstart": qstart, "qend": qend, "rstart": sr - (sq - qstart), "rend": sr + (qend - sq),
           "score": score, "identities": ids}
    return take(raw, passes(raw, min_len, min_identity))


def passing_cupy(qstart, qend, score, ids, sq, sr, min_len: int, min_identity: float) -> dict:
    """passing on the device: tested and written in order by select.cu (score and ids may be int32,
    as extend_cupy gives them; the table's columns are int64)."""
    cp = cupy()
    n = int(qstart.size)
    score, ids = (cp.ascontiguousarray(a, dtype=cp.int32) for a in (score, ids))
    test = (qstart, qend, ids, cp.int64(n), cp.int64(min_len), cp.float64(min_identity))
    write = (qstart, qend, score, ids, sq, sr, cp.int64(n), cp.int64(min_len), cp.float64(min_identity))
    return dict(zip(RAW, select("hsps_count", "hsps_write", n, test, write, [cp.int64] * 6)))


def sort_order(diag, qstart, qend):
    """Indices ordering rows by diagonal, then qstart, then qend descending: two stable sorts."""
    key = lifted(diag, qstart)
    order = stable_argsort(-qend)
    return gather(order, stable_argsort(gather(key, order)))


def lifted(diag, values):
    """(diag - its least value) * span + values, span above every value: such keys order rows by
    diagonal first, then by value (fits in 64 bits: check_width bounds it)."""
    return (diag - diag.min()) * (int(values.max()) + 1) + values


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
    when its qend is not beyond the running maximum qend of that diagonal. The table given is
    changed in place, a column at a time (so it is never held twice), and returned.
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
    reorder(table, order)
    diag = diag[order]
    del order
    # a diagonal's ends lifted above every earlier diagonal's: one running maximum serves them all
    end = lifted(diag, table["qend"])
    del diag
    reach = running_max_fn(end)
    if xp is np:
        keep = np.ones(n, dtype=bool)
        keep[1:] = end[1:] > reach[:-1]
    else:
        keep = xp.empty(n, dtype=bool)
        kernel("hsps.cu", "beyond_reach")((blocks(n),), (BLOCK,), (end, reach, xp.int64(n), keep))
    del end, reach
    reorder(table, keep)
    return table


def reorder(table: dict, index) -> None:
    """Rows of a table selected or reordered in place, a column at a time: a column's old copy is
    freed before the next one is made (where nothing else holds it)."""
    for name in list(table):
        table[name] = gather(table[name], index)


def to_records(raw: dict, strand: int, query, reference) -> dict:
    """Raw HSPs of one strand to the STORED columns of a final table, on the raw table's device:
    record indices (int32) and record-local coordinates (int64); strand int8; score and identities
    int32 when every record is shorter than 2^31 bases (they never exceed an HSP's length), else int64."""
    xp = array_module(raw["qstart"])
    qstarts, rstarts = xp.asarray(query.starts), xp.asarray(reference.starts)
    qrec = xp.searchsorted(qstarts, raw["qstart"], side="right") - 1
    if strand == 0:
        rstart = raw["rstart"]
    else:  # back from the reverse complement of the whole reference concatenation
        rstart = reference.total - raw["rend"]
    rrec = xp.searchsorted(rstarts, rstart, side="right") - 1
    narrow = max(int(query.lengths.max()), int(reference.lengths.max())) < 1 << 31
    counts = xp.int32 if narrow else xp.int64
    return {
        "qrec": qrec.astype(xp.int32),
        "rrec": rrec.astype(xp.int32),
        "qstart": raw["qstart"] - qstarts[qrec],
        "qend": raw["qend"] - qstarts[qrec],
        "rstart": rstart - rstarts[rrec],
        "strand": xp.full(qrec.size, strand, dtype=xp.int8),
        "score": raw["score"].astype(counts),
        "identities": raw["identities"].astype(counts),
    }


def to_records_cupy(raw: dict, strand: int, query, reference) -> dict:
    """to_records on the device: one kernel (hsps.cu) where every record is shorter than 2^31 bases
    (the stored types then are int32 and int8), else to_records' array operations."""
    if max(int(query.lengths.max()), int(reference.lengths.max())) >= 1 << 31:
        return to_records(raw, strand, query, reference)
    cp = cupy()
    n = int(raw["qstart"].size)
    types = {"qrec": cp.int32, "rrec": cp.int32, "strand": cp.int8, "score": cp.int32, "identities": cp.int32}
    out = {name: cp.empty(n, dtype=types.get(name, cp.int64)) for name in STORED}
    if n:
        qstarts, rstarts = cp.asarray(query.starts, dtype=cp.int64), cp.asarray(reference.starts, dtype=cp.int64)
        kernel("hsps.cu", "to_records")(
            (blocks(n),), (BLOCK,),
            (*(raw[c] for c in RAW), cp.int64(n), qstarts, cp.int64(qstarts.size), rstarts, cp.int64(rstarts.size),
             cp.int32(strand), cp.int64(reference.total), *(out[c] for c in STORED)))
    return out


ORDER = ("qrec", "rrec", "strand", "qstart", "rstart", "qend")  # the canonical row order, most significant first


def order_by(columns: list, spans: list[int]):
    """Indices ordering rows by several non-negative integer columns (most significant first), each
    below its span, on the columns' device.

    Columns are packed, most significant first, into as few 63-bit keys as fit. One stable sort of
    the first key is enough when it has no ties (the usual case for HSPs: rows with equal record
    pair, strand, qstart and rstart would lie inside one another); otherwise one stable sort a key,
    least significant first."""
    keys = packed_keys(columns, spans)
    order = stable_argsort(keys[0])
    if len(keys) == 1:
        return order
    if not has_ties(gather(keys[0], order)):
        return order
    order = stable_argsort(keys[-1])
    for key in reversed(keys[:-1]):  # least significant first; stable sorts keep the earlier order among ties
        order = gather(order, stable_argsort(gather(key, order)))
    return order


def packed_keys(columns: list, spans: list[int]) -> list:
    """The columns (most significant first, each below its span) packed into as few 63-bit keys as
    fit: rows compare as their keys compare, the first key first."""
    keys, first, width = [], 0, 1
    spans = [max(1, int(span)) for span in spans]
    for i, span in enumerate(spans):
        if i > first and width * span >= 1 << 63:
            keys.append(packed(columns[first:i], spans[first:i]))
            first, width = i, 1
        width *= span
    keys.append(packed(columns[first:], spans[first:]))
    return keys


def packed(columns: list, spans: list[int]):
    """One int64 key of integer columns, most significant first: key * span + column, column by column
    (the caller knows that the key fits). On the GPU each column is added in by hsps.cu: CuPy's
    casts and arithmetic would be compiled for each dtype, and again for arrays past 2 GB."""
    xp = array_module(columns[0])
    n = int(columns[0].size)
    if xp is np or not all(c.dtype.kind == "i" and c.dtype.itemsize in (1, 4, 8) for c in columns):
        key = None
        for column, span in zip(columns, spans):
            part = column.astype(xp.int64)
            key = part if key is None else key * int(span) + part
        return key
    key = xp.zeros(n, dtype=xp.int64)
    for column, span in zip(columns, spans):
        if n:
            kernel("hsps.cu", f"pack{column.dtype.itemsize}")(
                (blocks(n),), (BLOCK,), (key, xp.ascontiguousarray(column), xp.int64(span), xp.int64(n)))
    return key


def in_order(columns: list, spans: list[int]) -> bool:
    """Whether the rows are already sorted by the columns (most significant first, each below its span)."""
    if columns[0].size < 2:
        return True
    keys = packed_keys(columns, spans)
    tied = None
    for key in keys:
        step = key[1:] - key[:-1]
        if not every(step >= 0 if tied is None else (step >= 0) | ~tied):
            return False
        if len(keys) == 1:
            return True
        tied = step == 0 if tied is None else tied & (step == 0)
    return True


def sort_rows(table: dict, nq: int | None = None, nr: int | None = None) -> dict:
    """Rows in the canonical order: query record, reference record, strand, qstart, rstart, qend.
    Columns are reordered one at a time, so the table is never held twice."""
    if table["qstart"].size < 2:
        return table
    spans = {"qrec": nq, "rrec": nr, "strand": 2}
    columns = [table[c] for c in ORDER]
    sizes = [spans.get(c) or int(table[c].max()) + 1 for c in ORDER]
    order = order_by(columns, sizes)
    del columns
    table = dict(table)
    reorder(table, order)
    return table


def summarize(table: dict, nq: int, backend) -> dict:
    """Counts of a final table: query bases covered (union of HSPs, by the backend), HSPs, bases in HSPs."""
    covered = backend.union_length(table["qrec"], table["qstart"], table["qend"], nq)
    return {"query_covered": int(covered.sum()), "hsps": int(table["qstart"].size),
            "hsp_bases": sum_difference(table["qend"], table["qstart"])}
