"""HSP tables: columns of equal length, filtered, deduplicated, and mapped to record coordinates.

The record (its columns, types and order) is schema.HSP. NumPy: array operations and
np.maximum.accumulate. CuPy: the HSPs that pass are selected by select.cu, the running maximum of
the deduplication is scan.cu, record coordinates come from hsps.cu.
"""
from __future__ import annotations

import numpy as np

from .arrays import (BLOCK, array_module, blocks, concatenate, cupy, every, gather, has_ties, kernel, running_max,
                     running_max_cupy, select, stable_argsort, sum_difference, twin)
from .schema import HSP, ungapped_ends


def complete(table: dict) -> dict:
    """A table with every column of the HSP record, the derived ones (length, rend) added where missing."""
    if "length" in table and "rend" in table:
        return {name: table[name] for name in HSP.names}
    length, rend = twin(table["qstart"], ungapped_ends, ungapped_ends_cupy)(table["qstart"], table["qend"],
                                                                           table["rstart"])
    full = dict(table, length=length, rend=rend)
    return {name: full[name] for name in HSP.names}


def ungapped_ends_cupy(qstart, qend, rstart) -> tuple:
    """schema.ungapped_ends on the device: one kernel (hsps.cu) for int64 columns, none of CuPy's."""
    cp = cupy()
    if any(c.dtype != cp.int64 for c in (qstart, qend, rstart)):
        return ungapped_ends(qstart, qend, rstart)
    qstart, qend, rstart = (cp.ascontiguousarray(c) for c in (qstart, qend, rstart))
    n = int(qstart.size)
    length, rend = cp.empty(n, dtype=cp.int64), cp.empty(n, dtype=cp.int64)
    if n:
        kernel("hsps.cu", "complete_columns")((blocks(n),), (BLOCK,), (qstart, qend, rstart, cp.int64(n), length, rend))
    return length, rend


def concat(tables: list[dict], columns=HSP.names, xp=None) -> dict:
    """Rows of several tables, one after another (xp: the array module when tables may be empty)."""
    if not tables:
        return HSP.empty(columns, xp or np)
    return {name: concatenate([t[name] for t in tables]) for name in columns}


def take(table: dict, index) -> dict:
    """Rows selected by a boolean mask or an index array."""
    return {name: column[index] for name, column in table.items()}


def passes(table: dict, min_len: int, min_identity: float):
    """Mask of rows at least min_len long and at least min_identity percent identical."""
    length = table["qend"] - table["qstart"]
    return (length >= min_len) & (table["identities"] * 100.0 >= min_identity * length)


def passing(qstart, qend, score, ids, sq, sr, min_len: int, min_identity: float) -> dict:
    """The raw table (HSP.view("raw")) of the extended seeds (sq, sr) that pass (passes): each HSP's
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
    return dict(zip(HSP.view("raw"), select("hsps_count", "hsps_write", n, test, write, [cp.int64] * 6)))


def sort_order(diag, qstart, qend):
    """Indices ordering rows by diagonal, then qstart, then qend descending: two stable sorts."""
    key = lifted(diag, qstart)
    order = stable_argsort(-qend)
    return gather(order, stable_argsort(gather(key, order)))


def lifted(diag, values):
    """(diag - its least value) * span + values, span above every value: such keys order rows by
    diagonal first, then by value (fits in 64 bits: check_width bounds it)."""
    return (diag - diag.min()) * (int(values.max()) + 1) + values


def drop_contained(table: dict) -> dict:
    """Drop duplicate HSPs and HSPs inside another on the same diagonal (one strand's raw table).

    Sorted by (diagonal, qstart, -qend), an HSP is inside an earlier one of its diagonal exactly
    when its qend is not beyond the running maximum qend of that diagonal. The table given is
    changed in place, a column at a time (so it is never held twice), and returned.
    """
    return _drop_contained(table, running_max, beyond_reach)


def drop_contained_cupy(table: dict) -> dict:
    """drop_contained on the device (the running maximum from scan.cu, the test from hsps.cu)."""
    return _drop_contained(table, running_max_cupy, beyond_reach_cupy)


def beyond_reach(end, reach):
    """Rows whose end passes the running maximum of the rows before them (the first row always)."""
    keep = np.ones(end.size, dtype=bool)
    keep[1:] = end[1:] > reach[:-1]
    return keep


def beyond_reach_cupy(end, reach):
    """beyond_reach on the device (hsps.cu)."""
    cp = cupy()
    n = int(end.size)
    keep = cp.empty(n, dtype=bool)
    kernel("hsps.cu", "beyond_reach")((blocks(n),), (BLOCK,), (end, reach, cp.int64(n), keep))
    return keep


def _drop_contained(table: dict, running_max_fn, beyond_fn) -> dict:
    if table["qstart"].size < 2:
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
    keep = beyond_fn(end, reach)
    del end, reach
    reorder(table, keep)
    return table


def reorder(table: dict, index) -> None:
    """Rows of a table selected or reordered in place, a column at a time: a column's old copy is
    freed before the next one is made (where nothing else holds it)."""
    for name in list(table):
        table[name] = gather(table[name], index)


def to_records(raw: dict, strand: int, query, reference) -> dict:
    """Raw HSPs of one strand to the stored HSP columns of a final table, on the raw table's device:
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
    out = {name: cp.empty(n, dtype=HSP.dtype(name, cp)) for name in HSP.stored}
    if n:
        qstarts, rstarts = cp.asarray(query.starts, dtype=cp.int64), cp.asarray(reference.starts, dtype=cp.int64)
        kernel("hsps.cu", "to_records")(
            (blocks(n),), (BLOCK,),
            (*(raw[c] for c in HSP.view("raw")), cp.int64(n), qstarts, cp.int64(qstarts.size), rstarts, cp.int64(rstarts.size),
             cp.int32(strand), cp.int64(reference.total), *(out[c] for c in HSP.stored)))
    return out


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
    return twin(columns[0], _packed, packed_cupy)(columns, spans)


def _packed(columns: list, spans: list[int]):
    xp = array_module(columns[0])
    key = None
    for column, span in zip(columns, spans):
        part = column.astype(xp.int64)
        key = part if key is None else key * int(span) + part
    return key


def packed_cupy(columns: list, spans: list[int]):
    """packed on the device: each integer column added in by hsps.cu."""
    if not all(c.dtype.kind == "i" and c.dtype.itemsize in (1, 4, 8) for c in columns):
        return _packed(columns, spans)
    cp = cupy()
    n = int(columns[0].size)
    key = cp.zeros(n, dtype=cp.int64)
    for column, span in zip(columns, spans):
        if n:
            kernel("hsps.cu", f"pack{column.dtype.itemsize}")(
                (blocks(n),), (BLOCK,), (key, cp.ascontiguousarray(column), cp.int64(span), cp.int64(n)))
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
    columns = [table[c] for c in HSP.order]
    sizes = [spans.get(c) or int(table[c].max()) + 1 for c in HSP.order]
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
