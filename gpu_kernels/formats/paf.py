"""PAF (minimap2's pairwise mapping format), a row an HSP: cigar <len>M, NM mismatches, AS score,
de divergence, id identity percent, tp:A:S (an HSP is one local match among all of them, none chosen
as primary: the alignments' and chains' PAFs mark their one-to-one rows tp:A:P)."""
from __future__ import annotations

from functools import partial

import numpy as np

from ..hsps import complete
from .rows import STRANDS, format_rows, name_table, row_fields


def paf_text(hsps: dict, qnames, qlens, rnames, rlens) -> memoryview:
    """PAF rows of a slice of HSP columns."""
    hsps = complete(hsps)
    qrec, rrec = np.asarray(hsps["qrec"]), np.asarray(hsps["rrec"])
    length, ids = np.asarray(hsps["length"], dtype=np.int64), np.asarray(hsps["identities"], dtype=np.int64)
    if length.size == 0:
        return memoryview(b"")
    identity = np.divide(ids, length, out=np.zeros(length.size), where=length > 0)
    columns = [("n", qrec, name_table(qnames)), ("i", np.asarray(qlens, dtype=np.int64)[qrec]),
               ("i", hsps["qstart"]), ("i", hsps["qend"]), ("n", hsps["strand"], name_table(STRANDS)),
               ("n", rrec, name_table(rnames)), ("i", np.asarray(rlens, dtype=np.int64)[rrec]),
               ("i", hsps["rstart"]), ("i", hsps["rend"]), ("i", ids), ("i", length), "255",
               ["NM:i:", ("i", length - ids)], ["AS:i:", ("i", hsps["score"])], ["de:f:", ("f", 1 - identity, 4)],
               ["id:f:", ("f", 100 * identity, 2)], "tp:A:S", ["cg:Z:", ("i", length), "M"]]
    return format_rows(int(length.size), row_fields(columns, "\t"))


def header(meta: dict, path: str | None = None) -> bytes:
    return b""


def rows(meta: dict):
    """paf_text with the record tables of a table's metadata, their name tables made once."""
    q, r = meta["query"], meta["reference"]
    return partial(paf_text, qnames=name_table(q["names"]), qlens=np.asarray(q["lengths"], dtype=np.int64),
                   rnames=name_table(r["names"]), rlens=np.asarray(r["lengths"], dtype=np.int64))
