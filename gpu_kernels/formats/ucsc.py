"""The gapped alignments as UCSC's MAF and PSL (Ensembl, multiz, Cactus, LAST and BLAT users read them).

MAF: a block an alignment, the reference's row first as UCSC writes them (`s` lines: name, 0-based
start, bases, strand, record length, the aligned text; a reverse alignment's query row is the reverse
complement, its start counted on that strand), `a score=` the alignment's score. Letters are A, C, G,
T and N (any other code), in upper case. PSL: a line an alignment, its blocks the runs of aligned
columns (= and X) of its CIGAR, the query's block starts on the query's aligned strand as PSL counts
them; matches are the = columns, mismatches the X columns of two of A, C, G and T, nCount those holding
any other letter (an assembly gap's N), repMatches 0, the inserts counted between blocks: what LAST's
`maf-convert psl` makes of the MAF, line for line. Rows in the alignment table's order; the texts
made a slice of rows at a time on threads, by format.c (cigar_rows, cigar_blocks) and format_rows.
"""
from __future__ import annotations

import numpy as np

from .alignments import slices, sub_table
from .chains import within_chain
from .files import write_pieces
from .rows import STRANDS, format_rows, name_table
from .threads import default_threads, ordered_map


def _columns(al: dict) -> np.ndarray:
    return (np.asarray(al["matches"]) + np.asarray(al["mismatches"]) + np.asarray(al["insertions"])
            + np.asarray(al["deletions"])).astype(np.int64)


def aligned_rows(al: dict, cigars: tuple, query, reference) -> tuple:
    """The reference's and the query's aligned rows of each alignment (string tables of equal offsets)."""
    from .. import native

    columns = _columns(al)
    offsets = np.zeros(columns.size + 1, dtype=np.int64)
    np.cumsum(columns, out=offsets[1:])
    qrec, rrec = np.asarray(al["qrec"], dtype=np.int64), np.asarray(al["rrec"], dtype=np.int64)
    reverse = np.asarray(al["strand"]) == 1
    qstarts = np.asarray(query.starts, dtype=np.int64)[qrec]
    qfrom = np.where(reverse, qstarts + np.asarray(al["qend"], dtype=np.int64) - 1,
                     qstarts + np.asarray(al["qstart"], dtype=np.int64))
    rfrom = np.asarray(reference.starts, dtype=np.int64)[rrec] + np.asarray(al["rstart"], dtype=np.int64)
    rows_r, rows_q = np.empty(int(offsets[-1]), dtype=np.uint8), np.empty(int(offsets[-1]), dtype=np.uint8)
    data, cigar_offsets = cigars
    native.module("_format").cigar_rows(data, np.ascontiguousarray(cigar_offsets, dtype=np.int64),
                                        np.asarray(query.codes), np.asarray(reference.codes), qfrom, rfrom,
                                        reverse.astype(np.uint8), offsets[:-1].copy(), rows_r, rows_q)
    return (rows_r, offsets), (rows_q, offsets)


def maf_text(al: dict, cigars: tuple, query, reference, qnames, qlens, rnames, rlens) -> memoryview:
    """MAF blocks of alignments (qnames, rnames: name tables)."""
    n = int(np.asarray(al["qstart"]).size)
    if n == 0:
        return memoryview(b"")
    rows_r, rows_q = aligned_rows(al, cigars, query, reference)
    qrec, rrec = np.asarray(al["qrec"], dtype=np.int64), np.asarray(al["rrec"], dtype=np.int64)
    strand = np.asarray(al["strand"], dtype=np.int64)
    qlen = np.asarray(qlens, dtype=np.int64)[qrec]
    qstart, qend = np.asarray(al["qstart"], dtype=np.int64), np.asarray(al["qend"], dtype=np.int64)
    rstart, rend = np.asarray(al["rstart"], dtype=np.int64), np.asarray(al["rend"], dtype=np.int64)
    index = np.arange(n, dtype=np.int64)
    fields = ("a score=", ("i", al["score"]), "\ns ", ("n", rrec, rnames), " ", ("i", rstart), " ", ("i", rend - rstart),
              " + ", ("i", np.asarray(rlens, dtype=np.int64)[rrec]), " ", ("n", index, rows_r), "\ns ",
              ("n", qrec, qnames), " ", ("i", np.where(strand == 1, qlen - qend, qstart)), " ", ("i", qend - qstart),
              " ", ("n", strand, name_table(STRANDS)), " ", ("i", qlen), " ", ("n", index, rows_q), "\n\n")
    return format_rows(n, fields)


def number_lists(values: np.ndarray, group: np.ndarray, groups: int) -> tuple:
    """A string table of `groups` strings, string g the values of group g (groups ascending, as the
    values come) written `v,v,...,` (UCSC's lists end with a comma)."""
    values = np.asarray(values, dtype=np.int64)
    text = format_rows(int(values.size), (("i", values), ",")) if values.size else memoryview(b"")
    digits = np.ones(values.size, dtype=np.int64)
    for power in range(1, 19):
        digits += values >= 10 ** power
    ends = np.cumsum(digits + 1)
    first = np.searchsorted(group, np.arange(groups + 1))
    offsets = np.concatenate(([0], ends))[first].astype(np.int64)
    return bytes(text), offsets


def psl_text(al: dict, cigars: tuple, qnames, qlens, rnames, rlens) -> memoryview:
    """PSL lines of alignments (qnames, rnames: name tables)."""
    from .. import native

    n = int(np.asarray(al["qstart"]).size)
    if n == 0:
        return memoryview(b"")
    data, offsets = cigars
    args = (np.frombuffer(data, dtype=np.uint8), np.ascontiguousarray(offsets, dtype=np.int64),
            np.ones(n, dtype=np.uint8))
    compiled = native.module("_format")
    m = compiled.cigar_blocks(*args, None, None, None, None)
    size, dt, dq, chain = (np.empty(m, dtype=np.int64) for _ in range(4))
    compiled.cigar_blocks(*args, size, dt, dq, chain)
    qrec, rrec = np.asarray(al["qrec"], dtype=np.int64), np.asarray(al["rrec"], dtype=np.int64)
    strand = np.asarray(al["strand"], dtype=np.int64)
    qlen = np.asarray(qlens, dtype=np.int64)[qrec]
    qstart, qend = np.asarray(al["qstart"], dtype=np.int64), np.asarray(al["qend"], dtype=np.int64)
    first = np.searchsorted(chain, np.arange(n))
    order = {"chain": chain, "first": np.zeros(m, dtype=bool)}
    order["first"][first] = True
    tstarts = np.asarray(al["rstart"], dtype=np.int64)[chain] + within_chain(size + dt, order)
    qstarts = np.where(strand == 1, qlen - qend, qstart)[chain] + within_chain(size + dq, order)
    last = np.append(first[1:], m) - 1  # each alignment's last block: the gaps after it are none
    inner = np.ones(m, dtype=bool)
    inner[last] = False
    q_inserts = np.bincount(chain[inner & (dq > 0)], minlength=n)
    t_inserts = np.bincount(chain[inner & (dt > 0)], minlength=n)
    unknown = np.asarray(al["unknown"], dtype=np.int64) if "unknown" in al else np.zeros(n, dtype=np.int64)
    index = np.arange(n, dtype=np.int64)
    fields = (("i", al["matches"]), "\t", ("i", np.asarray(al["mismatches"], dtype=np.int64) - unknown), "\t0\t",
              ("i", unknown), "\t", ("i", q_inserts), "\t", ("i", al["insertions"]), "\t", ("i", t_inserts), "\t",
              ("i", al["deletions"]), "\t", ("n", strand, name_table(STRANDS)), "\t", ("n", qrec, qnames), "\t",
              ("i", qlen), "\t", ("i", qstart), "\t", ("i", qend), "\t", ("n", rrec, rnames), "\t",
              ("i", np.asarray(rlens, dtype=np.int64)[rrec]), "\t", ("i", al["rstart"]), "\t", ("i", al["rend"]), "\t",
              ("i", np.bincount(chain, minlength=n)), "\t", ("n", index, number_lists(size, chain, n)), "\t",
              ("n", index, number_lists(qstarts, chain, n)), "\t", ("n", index, number_lists(tstarts, chain, n)), "\n")
    return format_rows(n, fields)


def _write(path: str, header: bytes, al: dict, cigars: tuple, text, unit_bytes) -> int:
    """Slices of rows (alignments.slices: bounded by their rows and by rows x unit_bytes, a row's
    text at most) formatted on threads by text(part, the part's CIGARs) and written in order."""
    n = int(np.asarray(al["qstart"]).size)
    columns = {name: np.asarray(v) for name, v in al.items() if np.ndim(v) and len(v) == n}
    sizes = (None, np.concatenate(([0], np.cumsum(unit_bytes))).astype(np.int64))

    def piece(span):
        lo, hi = span
        return hi - lo, text({name: v[lo:hi] for name, v in columns.items()}, sub_table(cigars, lo, hi))

    return write_pieces(path, header, ordered_map(piece, slices(n, sizes), default_threads()), "alignments")


def write_maf(path: str, al: dict, cigars: tuple, query, reference, command: str = "") -> int:
    """The alignments as MAF at path ('-': standard output; gzip where it ends in .gz); returns the
    alignments written. query, reference: the SeqSets whose codes the rows are read from."""
    qnames, rnames = name_table(query.names), name_table(reference.names)
    header = b"##maf version=1 scoring=gpu-genome-compare\n" + (f"# {' '.join(command.split())}\n".encode()
                                                                 if command else b"") + b"\n"
    return _write(path, header, al, cigars,
                  lambda part, cig: maf_text(part, cig, query, reference, qnames, query.lengths, rnames,
                                             reference.lengths), 2 * _columns(al) + 200)


def write_psl(path: str, al: dict, cigars: tuple, qnames, qlens, rnames, rlens) -> int:
    """The alignments as PSL (no header, as BLAT's -noHead and maf-convert write it) at path ('-':
    standard output; gzip where it ends in .gz); returns the alignments written."""
    qtable, rtable = name_table(qnames), name_table(rnames)
    return _write(path, b"", al, cigars, lambda part, cig: psl_text(part, cig, qtable, qlens, rtable, rlens),
                  3 * np.diff(np.asarray(cigars[1], dtype=np.int64)) + 200)
