"""Writing HSP tables: binary columnar (.npz) and PAF, each written to a temporary name first."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager

import numpy as np

from .hsps import COLUMNS


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


def save_hsps(path: str, hsps: dict, query, reference) -> None:
    """Save the HSP columns and both record tables as one uncompressed .npz (a few large writes)."""
    arrays = {f"hsp_{name}": np.asarray(hsps[name]).astype(DISK_TYPES[name], copy=False) for name in COLUMNS}
    arrays.update(query_names=np.array(query.names), query_lengths=query.lengths,
                  reference_names=np.array(reference.names), reference_lengths=reference.lengths)
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


def write_paf(path: str, hsps: dict, qnames, qlens, rnames, rlens) -> None:
    """Write PAF atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "w") as handle:
            handle.writelines(paf_lines(hsps, qnames, qlens, rnames, rlens))
