"""The gapped alignments' formats (align.py makes them): PAF with cg:Z (=/X/I/D) and cs:Z, MUMmer
delta (show-coords, show-snps, mummerplot, delta-filter, dnadiff read it) and the Parquet table (the
ALIGNMENT record, its CIGAR a string column). The texts of each alignment (CIGAR, cs, delta indel
lines) come from align.text_of as string tables; here they are laid into rows."""
from __future__ import annotations

import re

import numpy as np

from .delta import header as delta_header, pair_headers
from .files import write_pieces
from .parquet import arrow_integers
from .rows import STRANDS, format_rows, name_problem, name_table
from .strings import reordered, take_strings


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


def delta_text(al: dict, indels: tuple, qnames, qlens, rnames, rlens, first_head: bool = True) -> memoryview:
    """Delta records of alignments in record pair order: a pair's header before its first alignment
    (first_head: the slice's first row starts a pair), then a line an alignment (1-based inclusive
    spans, a reverse one's query span from its end; errors: columns not `=`, twice; 0 stops) and its
    indel lines."""
    n = int(al["qstart"].size)
    if n == 0:
        return memoryview(b"")
    qrec, rrec = al["qrec"].astype(np.int64), al["rrec"].astype(np.int64)
    which, headers = pair_headers(qrec, rrec, qnames, qlens, rnames, rlens, first_head)
    reverse = al["strand"] == 1
    qstart, qend = al["qstart"], al["qend"]
    errors = al["mismatches"] + al["insertions"] + al["deletions"]
    fields = (("n", which, headers), ("i", al["rstart"] + 1), " ", ("i", al["rend"]), " ",
              ("i", np.where(reverse, qend, qstart + 1)), " ", ("i", np.where(reverse, qstart + 1, qend)), " ",
              ("i", errors), " ", ("i", errors), " 0\n", ("n", np.arange(n, dtype=np.int64), indels))
    return format_rows(n, fields)


# rows x the longest text of a slice printed at once (format_rows' bound, which it allocates)
SLICE_BYTES = 1 << 27
SLICE_ROWS = 4096


def slices(n: int, *texts: tuple):
    """[lo, hi) ranges of n rows, in order, each bounded by SLICE_ROWS rows and SLICE_BYTES of rows x
    their longest string in texts (string tables: bytes, int64 offsets), a row alone past that."""
    longest = np.zeros(n, dtype=np.int64)
    for _, offsets in texts:
        longest += np.diff(offsets)
    pending = [(lo, min(n, lo + SLICE_ROWS)) for lo in range(0, n, SLICE_ROWS)][::-1]
    while pending:
        lo, hi = pending.pop()
        if hi - lo > 1 and (hi - lo) * int(longest[lo:hi].max()) > SLICE_BYTES:
            middle = (lo + hi) // 2
            pending += [(middle, hi), (lo, middle)]
            continue
        yield lo, hi


def sub_table(text: tuple, lo: int, hi: int) -> tuple:
    """Strings lo..hi-1 of a string table, as a table of their own."""
    data, offsets = text
    return data[offsets[lo]:offsets[hi]], offsets[lo:hi + 1] - offsets[lo]


def write_paf(path: str, al: dict, cigars: tuple, cs: tuple, qnames, qlens, rnames, rlens) -> int:
    """The alignments as PAF at path ('-': standard output), a slice of rows at a time; returns the rows
    written."""
    n = int(al["qstart"].size)
    qnames, rnames = name_table(qnames), name_table(rnames)

    def pieces():
        for lo, hi in slices(n, cigars, cs):
            part = {name: np.asarray(v)[lo:hi] for name, v in al.items() if np.ndim(v) and len(v) == n}
            yield hi - lo, paf_text(part, sub_table(cigars, lo, hi), sub_table(cs, lo, hi), qnames, qlens, rnames,
                                    rlens)

    return write_pieces(path, b"", pieces())


# the command that made the SAM file, for its @PG CL: the command line's own (__main__.main sets it)
COMMAND_LINE = ["gpu-genome-compare (the workflow's alignments rule)"]


def sam_header(qnames, rnames, rlens) -> bytes:
    """@HD, an @SQ line a reference record, @PG with the command line (no tab or line break in it)."""
    lines = ["@HD\tVN:1.6\tSO:unsorted"]
    lines += [f"@SQ\tSN:{name}\tLN:{int(length)}" for name, length in zip(rnames, rlens)]
    command = " ".join(COMMAND_LINE[0].split())
    lines.append(f"@PG\tID:gpu-genome-compare\tPN:gpu-genome-compare\tCL:{command}")
    return ("\n".join(lines) + "\n").encode()


def clips(counts, letter: str) -> tuple:
    """A string table of `<count><letter>` a row, empty where the count is 0 (a 0H clip is no clip)."""
    counts = np.asarray(counts, dtype=np.int64)
    text = format_rows(int(counts.size), (("i", counts), letter + "\n")) if counts.size else memoryview(b"")
    data = np.frombuffer(text, dtype=np.uint8)
    ends = np.flatnonzero(data == ord("\n"))
    starts = np.concatenate(([0], ends[:-1] + 1)).astype(np.int64)
    keep = np.ones(data.size, dtype=bool)
    keep[ends] = False
    lengths = np.where(counts > 0, ends - starts, 0)
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    pieces = np.repeat(counts > 0, ends - starts + 1)[:data.size] & keep
    return data[pieces].tobytes(), offsets


SECONDARY, SUPPLEMENTARY = 256, 2048
SAM_QNAME = re.compile(r"[!-?A-~]{1,254}")  # the SAM specification's patterns (v1.6, 1.4 and 1.2.1)
SAM_RNAME = re.compile(r"[0-9A-Za-z!#$%&+./:;?@^_|~-][0-9A-Za-z!#$%&*+./:;=?@^_|~-]*")


def sam_name_problem(qnames, rnames) -> str | None:
    """Why SAM cannot hold these record names (a query name of 255 characters or more, a blank or '@'
    one, a reference name `*` or one starting with '=' or holding a character the specification
    leaves out), or None."""
    rule = "QNAME: 1 to 254 characters of ! to ~ but @; RNAME: no '*' or '=' first"
    return name_problem(((qnames, lambda name: SAM_QNAME.fullmatch(name) and name != "*", "query", rule),
                         (rnames, SAM_RNAME.fullmatch, "reference", rule)), "SAM", "leave --sam out")


def sam_flags(al: dict) -> np.ndarray:
    """Each row's FLAG as minimap2 writes an assembly's: on each aligned query record one primary line (of
    its one-to-one alignments the best-scoring, the first of equals; of its others where it has none),
    its other one-to-one alignments supplementary (2048), the rest secondary (256); 16 on the reverse
    strand."""
    n = int(al["qstart"].size)
    one = np.asarray(al["backbone"]) == 1
    qrec = np.asarray(al["qrec"], dtype=np.int64)
    order = np.lexsort((np.arange(n), -np.asarray(al["score"], dtype=np.int64), ~one, qrec))
    primary = np.zeros(n, dtype=bool)
    first = np.ones(n, dtype=bool)
    first[1:] = qrec[order][1:] != qrec[order][:-1]
    primary[order[first]] = True
    kind = np.where(primary, 0, np.where(one, SUPPLEMENTARY, SECONDARY))
    return kind + np.where(np.asarray(al["strand"]) == 1, 16, 0)


LETTERS = np.full(256, ord("N"), dtype=np.uint8)
LETTERS[:4] = np.frombuffer(b"ACGT", dtype=np.uint8)
COMPLEMENT_LETTERS = np.full(256, ord("N"), dtype=np.uint8)
COMPLEMENT_LETTERS[:4] = np.frombuffer(b"TGCA", dtype=np.uint8)


def seq_spans(al: dict, flags, query) -> tuple:
    """Where each row's SEQ comes from: (written: rows with bases, their first base in the query record,
    each row's SEQ length: the whole record on a primary line, the aligned stretch on a supplementary
    one, 1 for the `*` of a secondary one or of every line where query is None)."""
    n = int(al["qstart"].size)
    written = (flags & SECONDARY) == 0 if query is not None else np.zeros(n, dtype=bool)
    primary = written & ((flags & SUPPLEMENTARY) == 0)
    begin = np.where(primary, 0, np.asarray(al["qstart"], dtype=np.int64))
    end = np.where(primary, np.asarray(query.lengths, dtype=np.int64)[np.asarray(al["qrec"], dtype=np.int64)]
                   if query is not None else 0, np.asarray(al["qend"], dtype=np.int64))
    return written, begin, np.where(written, end - begin, 1)


def sam_seq(al: dict, flags, query) -> tuple:
    """Each row's SEQ as a string table (seq_spans' stretches): the whole query record on a primary line
    (its ends soft-clipped), the aligned stretch on a supplementary one (hard-clipped), `*` on a secondary
    one or where query (its SeqSet: codes and record starts) is None; reverse-complemented on the reverse
    strand, bases other than A, C, G and T as N."""
    from .. import native

    written, begin, lengths = seq_spans(al, flags, query)
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    out[offsets[:-1][~written]] = ord("*")
    rows = np.flatnonzero(written)
    if rows.size:
        starts = np.asarray(query.starts, dtype=np.int64)[np.asarray(al["qrec"], dtype=np.int64)[rows]] + begin[rows]
        native.cpu().gather_spans(out, np.asarray(query.codes), starts, lengths[rows], offsets[:-1][rows],
                                  ((flags[rows] & 16) != 0).astype(np.int8), LETTERS, COMPLEMENT_LETTERS,
                                  native.threads())
    return out, offsets


def sam_text(al: dict, cigars: tuple, flags, seq: tuple, qnames, qlens, rnames) -> memoryview:
    """SAM records: the query record as the read, FLAG (sam_flags), 1-based position, mapq 255, the CIGAR
    (=/X/I/D) with the query's unaligned ends soft-clipped on a primary line and hard-clipped on the
    others, SEQ (sam_seq), no qualities (*), NM:i and AS:i."""
    n = int(al["qstart"].size)
    if n == 0:
        return memoryview(b"")
    qrec, rrec = al["qrec"].astype(np.int64), al["rrec"].astype(np.int64)
    reverse = al["strand"] == 1
    qlen = np.asarray(qlens, dtype=np.int64)[qrec]
    lead = np.where(reverse, qlen - al["qend"], al["qstart"])
    trail = np.where(reverse, al["qstart"], qlen - al["qend"])
    soft = (flags & (SECONDARY | SUPPLEMENTARY)) == 0
    index = np.arange(n, dtype=np.int64)
    nm = al["mismatches"] + al["insertions"] + al["deletions"]
    fields = (("n", qrec, name_table(qnames)), "\t", ("i", flags), "\t", ("n", rrec, name_table(rnames)), "\t",
              ("i", al["rstart"] + 1), "\t255\t", ("n", index, clips(np.where(soft, 0, lead), "H")),
              ("n", index, clips(np.where(soft, lead, 0), "S")), ("n", index, cigars),
              ("n", index, clips(np.where(soft, trail, 0), "S")), ("n", index, clips(np.where(soft, 0, trail), "H")),
              "\t*\t0\t0\t", ("n", index, seq), "\t*\tNM:i:", ("i", nm), "\tAS:i:", ("i", al["score"]), "\n")
    return format_rows(n, fields)


def write_sam(path: str, al: dict, cigars: tuple, qnames, qlens, rnames, rlens, query=None) -> int:
    """The alignments as SAM (samtools, pysam and SyRI read it), a slice of rows at a time; query: the
    query's SeqSet, whose bases are the lines' SEQ (None: `*`)."""
    n = int(al["qstart"].size)
    qtable, rtable = name_table(qnames), name_table(rnames)
    flags = sam_flags(al)
    sizes = (None, np.concatenate(([0], np.cumsum(seq_spans(al, flags, query)[2]))).astype(np.int64))  # SEQ bytes

    def pieces():
        for lo, hi in slices(n, cigars, sizes):
            part = {name: np.asarray(v)[lo:hi] for name, v in al.items() if np.ndim(v) and len(v) == n}
            yield hi - lo, sam_text(part, sub_table(cigars, lo, hi), flags[lo:hi], sam_seq(part, flags[lo:hi], query),
                                    qtable, qlens, rtable)

    return write_pieces(path, sam_header(qnames, rnames, rlens), pieces(), "alignments")


def write_snps(path: str, al: dict, snps: tuple) -> int:
    """The SNPs and indels of the one-to-one alignments (text_of's "snps" lines of the rows with
    backbone 1: a secondary alignment's differences are a repeat copy's, not the two genomes'),
    alignment by alignment, after a header line."""
    one = np.flatnonzero(np.asarray(al["backbone"]) == 1)
    header = b"#P1\tSUB1\tSUB2\tP2\tFRM1\tFRM2\tREFERENCE\tQUERY\n"
    if one.size == int(al["qstart"].size):
        pieces = ((hi - lo, sub_table(snps, lo, hi)[0]) for lo, hi in slices(one.size, snps))
    else:  # the one-to-one rows' lines taken a slice at a time: a whole genome's are GBs, not copied whole
        offsets = np.asarray(snps[1], dtype=np.int64)
        sizes = (None, np.concatenate(([0], np.cumsum(offsets[one + 1] - offsets[one]))))
        pieces = ((hi - lo, take_strings([snps], one[lo:hi])[0]) for lo, hi in slices(one.size, sizes))
    return write_pieces(path, header, pieces, "one-to-one alignments' SNPs and indels")


def write_delta(path: str, al: dict, indels: tuple, meta: dict) -> int:
    """The alignments as a MUMmer delta file (meta: the FASTA paths, as the HSP table's metadata has
    them); returns the alignments written."""
    q, r = meta["query"], meta["reference"]
    n = int(al["qstart"].size)
    qrec, rrec = al["qrec"].astype(np.int64), al["rrec"].astype(np.int64)
    order = np.lexsort((np.arange(n), qrec, rrec))  # record pair by record pair
    ordered = {name: np.asarray(v)[order] for name, v in al.items() if np.ndim(v) and len(v) == n}
    moved = reordered(indels, order)
    qnames, rnames = name_table(q["names"]), name_table(r["names"])

    def pieces():
        for lo, hi in slices(n, moved):
            part = {name: v[lo:hi] for name, v in ordered.items()}
            head = lo == 0 or (qrec[order][lo] != qrec[order][lo - 1] or rrec[order][lo] != rrec[order][lo - 1])
            yield hi - lo, delta_text(part, sub_table(moved, lo, hi), qnames, q["lengths"], rnames, r["lengths"],
                                      first_head=head)

    return write_pieces(path, delta_header(meta, path), pieces(), "alignments")


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
        else:
            values = np.arange(n, dtype=np.int64) if name == "alignment" else al[name]
            columns.append(arrow_integers(values, pa.from_numpy_dtype(ALIGNMENT.parquet_dtype(name))))
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
        pq.write_table(table, tmp, compression="zstd", use_dictionary=False)  # CIGARs are unique strings
    return table.num_rows
