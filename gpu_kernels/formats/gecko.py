"""GECKO's CSV as GECKO writes it (getInfoCSB, 2018 on): the 17-line header GECKO-MGV reads, then a
row an HSP."""
from __future__ import annotations

from functools import partial

import numpy as np

from ..hsps import complete
from ..params import Params
from .rows import format_rows, name_table, row_fields


def gecko_header(qgenome: str, qlens, rgenome: str, rlens, params: Params, seeds: int, kept: int, rows: int) -> bytes:
    """GECKO's 17-line CSV header with real values."""
    e, rep = params.extension, params.reporting
    lines = [
        "All by-Identity Ungapped Fragments (Hits based approach)",
        "[Abr.98/Apr.2010/Dec.2011 -- <ortrelles@uma.es>",
        f"SeqX filename        : {qgenome}",
        f"SeqY filename        : {rgenome}",
        f"SeqX name            : {qgenome}",
        f"SeqY name            : {rgenome}",
        f"SeqX length          : {int(np.sum(qlens))}",
        f"SeqY length          : {int(np.sum(rlens))}",
        f"Min.fragment.length  : {rep.min_len}",
        f"Min.Identity         : {e.min_identity:g}",
        f"Tot Hits (seeds)     : {seeds}",
        f"Tot Hits (seeds) used: {kept}",
        f"Total fragments      : {rows}",
        "========================================================",
        "Total CSB: 0",
        "========================================================",
        "Type,xStart,yStart,xEnd,yEnd,strand(f/r),block,length,score,ident,similarity,%ident,SeqX,SeqY",
    ]
    return ("\n".join(lines) + "\n").encode()


def gecko_text(hsps: dict, qlens, rlens, match: int) -> memoryview:
    """GECKO CSV rows (after the header), as GECKO's getInfoCSB writes them since 2018: coordinates
    0-based and inclusive on the records laid end to end (GECKO numbers a multi-FASTA so), reverse
    fragments from the higher reference coordinate to the lower; similarity (score over the best
    possible score) and %ident both percentages with two decimals (GECKO-MGV filters both on 0-100)."""
    hsps = complete(hsps)
    qrec, rrec = np.asarray(hsps["qrec"], dtype=np.int64), np.asarray(hsps["rrec"], dtype=np.int64)
    if qrec.size == 0:
        return memoryview(b"")
    qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
    qoff = np.concatenate(([0], np.cumsum(qlens)[:-1]))
    roff = np.concatenate(([0], np.cumsum(rlens)[:-1]))
    x0 = hsps["qstart"] + qoff[qrec]
    x1 = hsps["qend"] - 1 + qoff[qrec]
    lo = hsps["rstart"] + roff[rrec]
    hi = hsps["rend"] - 1 + roff[rrec]
    forward = np.asarray(hsps["strand"]) == 0
    length = np.asarray(hsps["length"], dtype=np.int64)
    score = np.asarray(hsps["score"], dtype=np.int64)
    ids = np.asarray(hsps["identities"], dtype=np.int64)
    columns = ["Frag", ("i", x0), ("i", np.where(forward, lo, hi)), ("i", x1), ("i", np.where(forward, hi, lo)),
               ("n", (~forward).astype(np.int64), name_table(("f", "r"))), "0", ("i", length), ("i", score),
               ("i", ids), ("f", 100.0 * score / np.maximum(1, length * match), 2),
               ("f", 100.0 * ids / np.maximum(1, length), 2), ("i", qrec), ("i", rrec)]
    return format_rows(int(qrec.size), row_fields(columns, ","))


def _params(meta: dict) -> Params:
    return Params(**meta["params"]) if meta.get("params") else Params()


def header(meta: dict, path: str | None = None) -> bytes:
    """The header of a table's metadata (genome names, seed counts and rows as the merge records them)."""
    return gecko_header(meta.get("query_genome", "query"), meta["query"]["lengths"],
                        meta.get("reference_genome", "reference"), meta["reference"]["lengths"], _params(meta),
                        int(meta.get("seeds", 0)), int(meta.get("kept_seeds", 0)), int(meta.get("rows", 0)))


def rows(meta: dict):
    return partial(gecko_text, qlens=meta["query"]["lengths"], rlens=meta["reference"]["lengths"],
                   match=_params(meta).extension.match)
