"""The gapped alignments' formats (align.py makes them): PAF with cg:Z (=/X/I/D) and cs:Z, MUMmer
delta (show-coords, show-snps, mummerplot, delta-filter, dnadiff read it) and the Parquet table (the
ALIGNMENT record, its CIGAR a string column). The texts of each alignment (CIGAR, cs, delta indel
lines) come from align.text_of as string tables; here they are laid into rows."""
from __future__ import annotations

import numpy as np

from .delta import header as delta_header
from .files import write_pieces
from .rows import STRANDS, format_rows, name_table


def paf_text(al: dict, cigars: tuple, cs: tuple, qnames, qlens, rnames, rlens) -> memoryview:
    """PAF rows: spans, identical columns, columns, mapq 255, NM:i (columns not `=`), AS:i the score,
    tp:A P (backbone) or S, cg:Z and cs:Z."""
    n = int(al["qstart"].size)
    if n == 0:
        return memoryview(b"")
    columns = al["matches"] + al["mismatches"] + al["insertions"] + al["deletions"]
    qrec, rrec = al["qrec"].astype(np.int64), al["rrec"].astype(np.int64)
    index = np.arange(n, dtype=np.int64)
    fields = (("n", qrec, name_table(qnames)), "\t", ("i", np.asarray(qlens, dtype=np.int64)[qrec]), "\t",
              ("i", al["qstart"]), "\t", ("i", al["qend"]), "\t", ("n", al["strand"].astype(np.int64),
                                                                    name_table(STRANDS)), "\t",
              ("n", rrec, name_table(rnames)), "\t", ("i", np.asarray(rlens, dtype=np.int64)[rrec]), "\t",
              ("i", al["rstart"]), "\t", ("i", al["rend"]), "\t", ("i", al["matches"]), "\t", ("i", columns),
              "\t255\tNM:i:", ("i", columns - al["matches"]), "\tAS:i:", ("i", al["score"]), "\ttp:A:",
              ("n", 1 - al["backbone"].astype(np.int64), name_table(("P", "S"))), "\tcg:Z:", ("n", index, cigars),
              "\tcs:Z:", ("n", index, cs), "\n")
    return format_rows(n, fields)


def delta_text(al: dict, indels: tuple, qnames, qlens, rnames, rlens) -> memoryview:
    """Delta records, record pair by record pair (each pair's alignments in table order): a pair's
    header, then a line an alignment (1-based inclusive spans, a reverse one's query span from its
    end; errors: columns not `=`, twice; 0 stops) and its indel lines."""
    n = int(al["qstart"].size)
    if n == 0:
        return memoryview(b"")
    qrec, rrec = al["qrec"].astype(np.int64), al["rrec"].astype(np.int64)
    order = np.lexsort((np.arange(n), qrec, rrec))
    qrec, rrec = qrec[order], rrec[order]
    heads = np.ones(n, dtype=bool)
    heads[1:] = (qrec[1:] != qrec[:-1]) | (rrec[1:] != rrec[:-1])
    first = np.flatnonzero(heads)
    qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
    printed = np.frombuffer(format_rows(int(first.size), (">", ("n", rrec[first], name_table(rnames)), " ",
                                                          ("n", qrec[first], name_table(qnames)), " ",
                                                          ("i", rlens[rrec[first]]), " ", ("i", qlens[qrec[first]]),
                                                          "\n")), dtype=np.uint8)
    offsets = np.concatenate(([0, 0], np.flatnonzero(printed == ord("\n")) + 1)).astype(np.int64)
    which = np.zeros(n, dtype=np.int64)
    which[first] = np.arange(1, first.size + 1)
    reverse = al["strand"][order] == 1
    qstart, qend = al["qstart"][order], al["qend"][order]
    errors = (al["mismatches"] + al["insertions"] + al["deletions"])[order]
    fields = (("n", which, (printed.tobytes(), offsets)), ("i", al["rstart"][order] + 1), " ",
              ("i", al["rend"][order]), " ", ("i", np.where(reverse, qend, qstart + 1)), " ",
              ("i", np.where(reverse, qstart + 1, qend)), " ", ("i", errors), " ", ("i", errors), " 0\n",
              ("n", order.astype(np.int64), indels))
    return format_rows(n, fields)


def write_paf(path: str, al: dict, cigars: tuple, cs: tuple, qnames, qlens, rnames, rlens) -> int:
    """The alignments as PAF at path ('-': standard output); returns the rows written."""
    return write_pieces(path, b"", [(int(al["qstart"].size), paf_text(al, cigars, cs, qnames, qlens, rnames,
                                                                        rlens))])


def write_delta(path: str, al: dict, indels: tuple, meta: dict) -> int:
    """The alignments as a MUMmer delta file (meta: the FASTA paths, as the HSP table's metadata has
    them); returns the alignments written."""
    q, r = meta["query"], meta["reference"]
    text = delta_text(al, indels, q["names"], q["lengths"], r["names"], r["lengths"])
    return write_pieces(path, delta_header(meta), [(int(al["qstart"].size), text)])


def arrow_table(al: dict, cigars: tuple):
    """The alignments as a pyarrow table of the ALIGNMENT record (the CIGAR a string column)."""
    import pyarrow as pa

    from ..schema import ALIGNMENT

    n = int(al["qstart"].size)
    columns = []
    for name in ALIGNMENT.names:
        if name == "cigar":
            data, offsets = cigars
            columns.append(pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets.astype(np.int64)),
                                                            pa.py_buffer(data)).cast(pa.string()))
        elif name == "alignment":
            columns.append(pa.array(np.arange(n, dtype=np.int64)))
        else:
            columns.append(pa.array(np.asarray(al[name]).astype(ALIGNMENT.parquet_dtype(name))))
    return pa.Table.from_arrays(columns, schema=ALIGNMENT.arrow_schema())


def write_table(path: str, al: dict, cigars: tuple, meta: dict) -> int:
    """The alignments as an Apache Parquet table (the ALIGNMENT record; the run's metadata as the HSP
    table's, `gpu_kernels`), atomically; returns the rows written."""
    import pyarrow.parquet as pq

    from .files import atomic_path
    from .parquet import metadata_fields

    table = arrow_table(al, cigars)
    table = table.replace_schema_metadata(metadata_fields(meta))
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return table.num_rows
