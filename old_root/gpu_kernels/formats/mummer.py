"""MUMmer's text output (mummer -b -c) of exact matches."""
from __future__ import annotations

from functools import partial

import numpy as np

from .. import native
from ..hsps import in_order, order_by
from ..schema import MATCH
from .rows import format_rows, name_table


MUMMER_ROWS = 1 << 20  # rows of MUMmer text printed at once
MUMMER_GROUPS = 1 << 18  # headers (query records and strands) printed at once


def mummer_parts(matches: dict, qnames, qlens, rnames, records: range | None = None, qtable=None,
                 ordered: bool = False):
    """MUMmer's output with -b -c, as pieces of bytes: a '>' header per query record and strand, then
    reference position, query position and length (1-based; reverse query positions on the forward
    strand, as -c gives them), each right-aligned in 8 columns, with the reference name first (padded
    to the longest) when the reference has several records. The pieces are callables that print about
    MUMMER_ROWS rows and their headers at once, by format.c (write_parts calls them on its threads): no
    Python call per record or row, for probe sets of millions of records.
    records: the query records printed (all by default); matches hold rows of those alone. qtable: the
    query names as a string table (SeqSet.name_table), where one is made already. ordered: the rows are
    in MATCH's order already (matches.find_matches orders them), so they are not checked again."""
    names = list(rnames)
    width = max(len(n) for n in names)
    qlens = np.asarray(qlens, dtype=np.int64)
    columns = [np.asarray(matches[c]) for c in MATCH.order]
    spans = [len(qnames), 2, int(qlens.max()) + 1, int(columns[3].max()) + 1 if columns[3].size else 1]
    if ordered or in_order(columns, spans):
        m = {key: np.asarray(value) for key, value in matches.items()}
    else:
        order = order_by(columns, spans)
        m = {key: np.asarray(value)[order] for key, value in matches.items()}
    first, last = (0, len(qnames)) if records is None else (records.start, records.stop)
    # groups: (record, strand) in output order; bounds[g]: the first row of group g
    bounds = np.zeros(2 * (last - first) + 1, dtype=np.int64)
    np.cumsum(np.bincount(m["qrec"] * 2 + m["strand"] - 2 * first, minlength=2 * (last - first)), out=bounds[1:])
    qtable = name_table(qnames) if qtable is None else qtable
    rtable = name_table([f"  {n:<{width}}  " for n in names]) if len(names) > 1 else None
    groups, at = 2 * (last - first), 0
    while at < groups:  # a piece: groups from `at` while their rows fit MUMMER_ROWS (a bigger group alone)
        end = int(np.searchsorted(bounds, bounds[at] + MUMMER_ROWS, side="right")) - 1
        end = min(groups, at + MUMMER_GROUPS, max(end, at + 1))
        if bounds[end] - bounds[at] > MUMMER_ROWS and end - at == 1:  # one group of many rows: in blocks
            yield partial(_mummer_text, m, qlens, qtable, rtable, first, at, at + 1, bounds, True)
            for row in range(int(bounds[at]), int(bounds[at + 1]), MUMMER_ROWS):
                yield partial(_mummer_rows, m, qlens, rtable, row, min(row + MUMMER_ROWS, int(bounds[at + 1])))
        else:
            yield partial(_mummer_text, m, qlens, qtable, rtable, first, at, end, bounds, False)
        at = end


def _mummer_rows(m: dict, qlens, rtable, lo: int, hi: int, ends=None) -> memoryview:
    """Match rows [lo, hi) of m (ordered by record, strand, ...) as MUMmer prints them (ends: where
    each row ends, format_rows')."""
    block = slice(lo, hi)
    strand = m["strand"][block]
    qrec = m["qrec"][block]
    qpos = np.where(strand == 1, qlens[qrec] - m["qstart"][block], m["qstart"][block] + 1)
    fields = [("n", m["rrec"][block], rtable)] if rtable is not None else []
    fields += [("i", m["rstart"][block] + 1, 8), "  ", ("i", qpos, 8), "  ", ("i", m["length"][block], 8), "\n"]
    return format_rows(hi - lo, tuple(fields), ends)


def _mummer_text(m: dict, qlens, qtable, rtable, first: int, g0: int, g1: int, bounds, headers_only: bool):
    """Groups [g0, g1) (record first + g // 2, strand g % 2): each one's header line, then its rows."""
    group = np.arange(g0, g1, dtype=np.int64)
    record, reverse = first + group // 2, group % 2
    table = (b"\n Reverse\n", np.array([0, 1, 10], dtype=np.int64))
    head_ends = np.empty(group.size, dtype=np.int64)
    heads = format_rows(group.size, ("> ", ("n", record, qtable), ("n", reverse, table)), head_ends)
    lo, hi = int(bounds[g0]), int(bounds[g1])
    if headers_only or hi == lo:
        return heads
    row_ends = np.zeros(hi - lo + 1, dtype=np.int64)
    rows = _mummer_rows(m, qlens, rtable, lo, hi, row_ends[1:])
    out = np.empty(len(heads) + len(rows), dtype=np.uint8)
    written = native.module("_format").interleave(out, heads, head_ends, rows, row_ends[bounds[g0 + 1:g1 + 1] - lo])
    return memoryview(out)[:written]
