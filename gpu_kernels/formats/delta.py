"""MUMmer's delta format (nucmer's alignments file), which show-coords, show-snps, show-aligns,
mummerplot, delta-filter and dnadiff read.

The file starts with the two FASTA paths (reference first) and `NUCMER`; then, for each pair of
records, a header `>REFERENCE QUERY REFLEN QUERYLEN`, and for each alignment of the pair the line
`rstart rend qstart qend errors similarity_errors stops` (1-based, inclusive; a reverse alignment
has qstart > qend, its query positions counted on the forward strand) followed by its indel
positions, ended by 0. An HSP has no indels: its list is the 0 alone, and its errors are its
mismatches (length - identities).
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ..hsps import complete
from .rows import format_rows, name_table


def pair_headers(qrec, rrec, qnames, qlens, rnames, rlens, first_head: bool = True) -> tuple:
    """(which, headers): the `>REFERENCE QUERY RLEN QLEN` headers of rows in record pair order as a
    string table, and the entry each row prints: its pair's header at the pair's first row (the
    slice's first row too where first_head), else the empty entry 0 (names hold no line breaks)."""
    n = int(qrec.size)
    starts = np.ones(n, dtype=bool)
    starts[:1] = first_head
    starts[1:] = (qrec[1:] != qrec[:-1]) | (rrec[1:] != rrec[:-1])
    heads = np.flatnonzero(starts)
    qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
    printed = np.frombuffer(format_rows(int(heads.size), (">", ("n", rrec[heads], name_table(rnames)), " ",
                                                          ("n", qrec[heads], name_table(qnames)), " ",
                                                          ("i", rlens[rrec[heads]]), " ", ("i", qlens[qrec[heads]]),
                                                          "\n")), dtype=np.uint8)
    offsets = np.concatenate(([0, 0], np.flatnonzero(printed == ord("\n")) + 1)).astype(np.int64)
    which = np.zeros(n, dtype=np.int64)
    which[heads] = np.arange(1, heads.size + 1)
    return which, (printed.tobytes(), offsets)


def delta_text(hsps: dict, qnames, qlens, rnames, rlens) -> memoryview:
    """Delta records of a slice of HSP columns (in the canonical order, so a record pair's rows
    follow one another): a pair's header is printed before its first row in the slice."""
    hsps = complete(hsps)
    qrec, rrec = np.asarray(hsps["qrec"], dtype=np.int64), np.asarray(hsps["rrec"], dtype=np.int64)
    n = int(qrec.size)
    if n == 0:
        return memoryview(b"")
    which, headers = pair_headers(qrec, rrec, qnames, qlens, rnames, rlens)
    reverse = np.asarray(hsps["strand"]) == 1
    qstart, qend = np.asarray(hsps["qstart"], dtype=np.int64), np.asarray(hsps["qend"], dtype=np.int64)
    errors = np.asarray(hsps["length"], dtype=np.int64) - np.asarray(hsps["identities"], dtype=np.int64)
    fields = (("n", which, headers), ("i", np.asarray(hsps["rstart"], dtype=np.int64) + 1), " ",
              ("i", hsps["rend"]), " ", ("i", np.where(reverse, qend, qstart + 1)), " ",
              ("i", np.where(reverse, qstart + 1, qend)), " ", ("i", errors), " ", ("i", errors), " 0\n0\n")
    return format_rows(n, fields)


def header(meta: dict, path: str | None = None) -> bytes:
    """The two FASTA paths (reference first; the genome names where the table has no paths) and NUCMER;
    path: the delta file's, beside which a gzipped FASTA is written plain (readable_fasta)."""
    reference = readable_fasta(meta.get("reference_fasta"), path, "reference") or \
        meta.get("reference_genome", "reference")
    query = readable_fasta(meta.get("query_fasta"), path, "query") or meta.get("query_genome", "query")
    return f"{reference} {query}\nNUCMER\n".encode()


def readable_fasta(fasta: str | None, path: str | None, role: str) -> str | None:
    """A FASTA path as MUMmer's tools open it from any folder (show-snps, show-aligns and dnadiff read the
    sequences through it): absolute; a gzipped file, which they read as binary, and standard input's
    temporary copy (files.STDIN_COPIES, removed at exit) are written plain beside the delta
    (PATH.ROLE.fa) where the delta is a file, and that file named. A name, not a file (a table made
    from sequences given in memory), is kept as it is."""
    import gzip
    import os
    import shutil

    from .files import STDIN_COPIES, atomic_path, is_special

    if not fasta or not os.path.isfile(fasta):
        return fasta
    with open(fasta, "rb") as handle:
        zipped = handle.read(2) == b"\x1f\x8b"
    spooled = os.path.abspath(fasta) in STDIN_COPIES
    if not (zipped or spooled) or not path or path == "-" or is_special(path):
        return os.path.abspath(fasta)
    plain = f"{path}.{role}.fa"
    with (gzip.open if zipped else open)(fasta, "rb") as source, atomic_path(plain) as tmp, open(tmp, "wb") as out:
        shutil.copyfileobj(source, out, 1 << 22)
    return os.path.abspath(plain)


def rows(meta: dict):
    """delta_text with the record tables of a table's metadata, their name tables made once."""
    q, r = meta["query"], meta["reference"]
    return partial(delta_text, qnames=name_table(q["names"]), qlens=q["lengths"], rnames=name_table(r["names"]),
                   rlens=r["lengths"])
