"""Every file format the project writes or reads, in one place: the binary HSP table (.npz), PAF,
GECKO CSV, MUMmer's text and TSV tables.

Writers take columns, record names and lengths (never workflow objects) and are atomic: each
writes to a temporary name beside its target and renames it only when complete.
"""
from __future__ import annotations

import csv
import os
import tempfile
from contextlib import contextmanager

import numpy as np

from .hsps import COLUMNS
from .params import Params


@contextmanager
def atomic_path(path: str):
    """Yield a temporary path beside path; rename it to path only when the block succeeds."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=os.path.basename(path))
    os.close(handle)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# On disk: record-local positions fit 32 bits (a record is shorter than 2^31 bases).
DISK_TYPES = {"qrec": np.int32, "rrec": np.int32, "qstart": np.int32, "qend": np.int32, "rstart": np.int32,
              "rend": np.int32, "strand": np.int8, "score": np.int32, "identities": np.int32, "length": np.int32}


def save_hsps(path: str, hsps: dict, qnames, qlens, rnames, rlens) -> None:
    """Save the HSP columns and both record tables as one uncompressed .npz (a few large writes)."""
    arrays = {f"hsp_{name}": np.asarray(hsps[name]).astype(DISK_TYPES[name], copy=False) for name in COLUMNS}
    arrays.update(query_names=np.array(list(qnames)), query_lengths=np.asarray(qlens, dtype=np.int64),
                  reference_names=np.array(list(rnames)), reference_lengths=np.asarray(rlens, dtype=np.int64))
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            np.savez(handle, **arrays)


def load_hsps(path: str) -> tuple[dict, dict]:
    """(HSP columns, record tables) from a file written by save_hsps."""
    with np.load(path) as data:
        hsps = {name: data[f"hsp_{name}"].astype(np.int64) for name in COLUMNS}
        tables = {key: data[key] for key in ("query_names", "query_lengths", "reference_names", "reference_lengths")}
    return hsps, tables


def paf_lines(hsps: dict, qnames, qlens, rnames, rlens) -> list[str]:
    """PAF rows: cigar <len>M; NM mismatches, AS score, de divergence, id identity percent."""
    qnames, rnames = np.asarray(qnames), np.asarray(rnames)
    qrec, rrec = hsps["qrec"], hsps["rrec"]
    length, ids = hsps["length"], hsps["identities"]
    strand = np.where(hsps["strand"] == 0, "+", "-")
    identity = np.divide(ids, length, out=np.zeros(length.size), where=length > 0)
    columns = [qnames[qrec], np.asarray(qlens)[qrec], hsps["qstart"], hsps["qend"], strand,
               rnames[rrec], np.asarray(rlens)[rrec], hsps["rstart"], hsps["rend"], ids, length,
               np.full(length.size, 255)]
    rows = zip(*(c.tolist() for c in columns), (length - ids).tolist(), hsps["score"].tolist(),
               (1 - identity).tolist(), (100 * identity).tolist())
    return ["%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\tNM:i:%d\tAS:i:%d\tde:f:%.4f\tid:f:%.2f\tcg:Z:%dM\n"
            % (*row, row[10]) for row in rows]


def write_text(path: str, text: str) -> None:
    """Write a text atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "w") as handle:
            handle.write(text)


def write_paf(path: str, hsps: dict, qnames, qlens, rnames, rlens) -> None:
    """Write PAF atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "w") as handle:
            handle.writelines(paf_lines(hsps, qnames, qlens, rnames, rlens))


def write_gecko_csv(path: str, hsps: dict, qgenome: str, qlens, rgenome: str, rlens, params: Params,
                    seeds: int, kept: int) -> None:
    """GECKO's CSV: its 17-line header with real values, then one Frag row per HSP.

    Coordinates are 1-based and inclusive on the records laid end to end (as GECKO numbers a
    multi-FASTA); reverse fragments run from the higher reference coordinate to the lower.
    """
    qlens, rlens = np.asarray(qlens), np.asarray(rlens)
    qoff = np.concatenate(([0], np.cumsum(qlens)[:-1]))
    roff = np.concatenate(([0], np.cumsum(rlens)[:-1]))
    x0 = hsps["qstart"] + qoff[hsps["qrec"]] + 1
    x1 = hsps["qend"] + qoff[hsps["qrec"]]
    lo = hsps["rstart"] + roff[hsps["rrec"]] + 1
    hi = hsps["rend"] + roff[hsps["rrec"]]
    forward = hsps["strand"] == 0
    y0, y1 = np.where(forward, lo, hi), np.where(forward, hi, lo)
    length = hsps["length"]
    similarity = 100.0 * hsps["score"] / np.maximum(1, length * params.extension.match)
    ident = hsps["identities"] / np.maximum(1, length)
    header = [
        "All by-Identity Ungapped Fragments (Hits based approach)",
        "[Abr.98/Apr.2010/Dec.2011 -- <ortrelles@uma.es>",
        f"SeqX filename        : {qgenome}",
        f"SeqY filename        : {rgenome}",
        f"SeqX name            : {qgenome}",
        f"SeqY name            : {rgenome}",
        f"SeqX length          : {int(qlens.sum())}",
        f"SeqY length          : {int(rlens.sum())}",
        f"Min.fragment.length  : {params.reporting.min_len}",
        f"Min.Identity         : {params.extension.min_identity:g}",
        f"Tot Hits (seeds)     : {seeds}",
        f"Tot Hits (seeds) used: {kept}",
        f"Total fragments      : {length.size}",
        "========================================================",
        "Total CSB: 0",
        "========================================================",
        "Type,xStart,yStart,xEnd,yEnd,strand(f/r),block,length,score,ident,similarity,%ident,SeqX,SeqY",
    ]
    strand = np.where(forward, "f", "r")
    rows = zip(x0.tolist(), y0.tolist(), x1.tolist(), y1.tolist(), strand.tolist(), length.tolist(),
               hsps["score"].tolist(), hsps["identities"].tolist(), similarity.tolist(), ident.tolist(),
               hsps["qrec"].tolist(), hsps["rrec"].tolist())
    with atomic_path(path) as tmp:
        with open(tmp, "w") as handle:
            handle.write("\n".join(header) + "\n")
            handle.writelines("Frag,%d,%d,%d,%d,%s,0,%d,%d,%d,%.2f,%.2f,%d,%d\n" % row for row in rows)


def mummer_text(matches: dict, qnames, qlens, rnames) -> str:
    """MUMmer's output with -b -c: a '>' header per query record and strand, then reference position,
    query position and length (1-based; reverse query positions on the forward strand, as -c gives
    them), with the reference name first when the reference has several records."""
    names = list(rnames)
    width = max(len(n) for n in names)
    lines = []
    order = np.lexsort((matches["rstart"], matches["qstart"], matches["strand"], matches["qrec"]))
    m = {key: value[order] for key, value in matches.items()}
    bounds = np.searchsorted(m["qrec"] * 2 + m["strand"], np.arange(2 * len(qnames) + 1))
    for i, qname in enumerate(qnames):
        for strand in (0, 1):
            lines.append(f"> {qname}" + (" Reverse" if strand else ""))
            block = slice(bounds[2 * i + strand], bounds[2 * i + strand + 1])
            qpos = m["qstart"][block] + 1
            if strand:
                qpos = np.asarray(qlens)[i] - m["qstart"][block]
            for rrec, rpos, qp, length in zip(m["rrec"][block].tolist(), (m["rstart"][block] + 1).tolist(),
                                              qpos.tolist(), m["length"][block].tolist()):
                if len(names) > 1:
                    lines.append(f"  {names[rrec]:<{width}}  {rpos:8d}  {qp:8d}  {length:8d}")
                else:
                    lines.append(f"{rpos:8d}  {qp:8d}  {length:8d}")
    return "\n".join(lines) + "\n"


def write_tsv(path: str, rows: list[dict], fields: list[str] | None = None) -> None:
    """Rows as a tab-separated table with a header line, written atomically."""
    fields = fields or (list(rows[0]) if rows else [])
    with atomic_path(path) as tmp:
        with open(tmp, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields, delimiter="\t", lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)


def read_tsv(path: str) -> list[dict]:
    """Rows of a table written by write_tsv."""
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))
