"""MUMmer's text output (mummer -b -c) of exact matches."""
from __future__ import annotations

from functools import partial

import numpy as np

from ..hsps import in_order, order_by
from ..schema import MATCH
from .rows import format_rows, name_table


MUMMER_ROWS = 1 << 20  # rows of MUMmer text printed at once


def mummer_parts(matches: dict, qnames, qlens, rnames, records: range | None = None):
    """MUMmer's output with -b -c, as pieces of bytes: a '>' header per query record and strand, then
    reference position, query position and length (1-based; reverse query positions on the forward
    strand, as -c gives them), each right-aligned in 8 columns, with the reference name first (padded
    to the longest) when the reference has several records. Rows are printed by format.c a million
    at a time: the pieces are callables that print them (write_parts calls them on its threads).
    records: the query records printed (all by default); matches hold rows of those alone."""
    names = list(rnames)
    width = max(len(n) for n in names)
    qlens = np.asarray(qlens, dtype=np.int64)
    columns = [np.asarray(matches[c]) for c in MATCH.order]
    spans = [len(qnames), 2, int(qlens.max()) + 1, int(columns[3].max()) + 1 if columns[3].size else 1]
    if in_order(columns, spans):
        m = {key: np.asarray(value) for key, value in matches.items()}
    else:
        order = order_by(columns, spans)
        m = {key: np.asarray(value)[order] for key, value in matches.items()}
    bounds = np.searchsorted(m["qrec"] * 2 + m["strand"], np.arange(2 * len(qnames) + 1))
    padded = name_table([f"  {n:<{width}}  " for n in names])
    for i in records if records is not None else range(len(qnames)):
        qname = qnames[i]
        for strand in (0, 1):
            yield f"> {qname}{' Reverse' if strand else ''}\n".encode()
            for at in range(bounds[2 * i + strand], bounds[2 * i + strand + 1], MUMMER_ROWS):
                block = slice(at, min(at + MUMMER_ROWS, bounds[2 * i + strand + 1]))
                qpos = qlens[i] - m["qstart"][block] if strand else m["qstart"][block] + 1
                fields = [("n", m["rrec"][block], padded)] if len(names) > 1 else []
                fields += [("i", m["rstart"][block] + 1, 8), "  ", ("i", qpos, 8), "  ", ("i", m["length"][block], 8),
                           "\n"]
                yield partial(format_rows, block.stop - block.start, tuple(fields))
