"""The records the engine carries from extension to output, defined once.

A record is its columns (name, type on the device, type in Parquet, whether stored or derived from
the others) and its canonical row order. Every column list of the package is a view of a record
here: the Parquet schema, the delta-encoded pages, the readers, the text formats, the coverage and
dotplot passes. Adding a column to a record is one line here (and its computation where the record
is made); a variable-width column (a CIGAR string) is a column whose Parquet type is "string".

The HSP record's geometry is ungapped: `length = qend - qstart` and `rend = rstart + length`
(`ungapped_ends` computes both); the text formats derive their CIGAR (`<length>M`) and edit
distance (`length - identities`) from the same columns.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


# A gap's or an alignment end's columns counted by kind, as the fills write them (scoring.h's COUNT_KINDS):
# =, X, I, D, and of the X those holding an N (scored 0: an assembly gap's bases are unknown)
COUNT_KINDS = 5
UNKNOWN = 4

class Column(NamedTuple):
    name: str
    dtype: str          # NumPy / CuPy type while a final table is held (int32 where every record is < 2^31 bases)
    parquet: str        # Arrow type on disk
    derived: str = ""   # how the column follows from the stored ones; empty when it is stored
    doc: str = ""


class Record:
    """A table kind: columns in their on-disk order, the canonical row order, and named views (the
    columns one consumer reads)."""

    def __init__(self, name: str, columns: list[Column], order: tuple[str, ...], views: dict[str, tuple[str, ...]]):
        self.name, self.columns = name, {c.name: c for c in columns}
        self.names = tuple(c.name for c in columns)
        self.stored = tuple(c.name for c in columns if not c.derived)
        self.order = order
        self._views = views
        self.base = self  # the record this one extends (itself where it extends none)
        for cols in (order, *views.values()):
            unknown = set(cols) - set(self.names)
            assert not unknown, f"{name}: unknown columns {unknown}"

    def extended(self, name: str, columns: list[Column]) -> "Record":
        """This record with columns added at the end (same order and views)."""
        record = Record(name, [*self.columns.values(), *columns], self.order, self._views)
        record.base = self.base
        return record

    def view(self, use: str) -> tuple[str, ...]:
        """The columns a consumer reads (a key of the record's views)."""
        return self._views[use]

    def dtype(self, name: str, xp=np):
        """A column's type while held in memory (xp: the array module)."""
        return getattr(xp, self.columns[name].dtype)

    def parquet_dtype(self, name: str):
        """A column's type on disk as a NumPy type (None for variable-width columns)."""
        kind = self.columns[name].parquet
        return None if kind == "string" else np.dtype(kind)

    def physical_bits(self, name: str) -> int:
        """The width of an integer column's Parquet physical type (INT32 or INT64), in which its
        deltas wrap: 32 for Arrow's int8, int16 and int32, 64 for int64."""
        return 64 if self.columns[name].parquet == "int64" else 32

    def arrow_schema(self, metadata: dict | None = None):
        """The Parquet schema (pyarrow), every column non-null."""
        import pyarrow as pa

        fields = [pa.field(c.name, getattr(pa, c.parquet)(), nullable=False) for c in self.columns.values()]
        return pa.schema(fields, metadata=metadata)

    def empty(self, columns=None, xp=np) -> dict:
        """A table of no rows (columns: the record's, by default)."""
        return {name: xp.zeros(0, dtype=self.dtype(name, xp)) for name in (columns or self.names)}


HSP = Record("hsp", [
    Column("qrec", "int32", "int32", doc="query record (index into the metadata's query names)"),
    Column("rrec", "int32", "int32", doc="reference record"),
    Column("qstart", "int64", "int64", doc="query start, 0-based, on the query's forward strand"),
    Column("qend", "int64", "int64", doc="query end, exclusive"),
    Column("rstart", "int64", "int64", doc="reference start, 0-based, forward reference coordinates on both strands"),
    Column("rend", "int64", "int64", derived="rstart + length", doc="reference end, exclusive"),
    Column("strand", "int8", "int8", doc="0 forward, 1 reverse (the query against the reference's reverse complement)"),
    Column("score", "int32", "int64", doc="extension score"),
    Column("identities", "int32", "int64", doc="matching bases"),
    Column("length", "int64", "int64", derived="qend - qstart", doc="aligned columns (the same on both sides)"),
], order=("qrec", "rrec", "strand", "qstart", "rstart", "qend"), views={
    # one strand's table straight from extension, on the concatenated axes, before record coordinates
    "raw": ("qstart", "qend", "rstart", "rend", "score", "identities"),
    "coverage": ("qrec", "rrec", "strand", "qstart", "qend", "rstart"),
    "dots": ("qrec", "rrec", "strand", "qstart", "qend", "rstart", "identities"),
    "line": ("qrec", "rrec", "qstart", "qend", "rstart", "strand"),  # what a dotplot keeps of a drawn HSP
    "matches": ("qrec", "rrec", "strand", "qstart", "qend", "rstart", "length"),
    "query": ("qrec", "qstart", "qend"),
    "reference": ("rrec", "rstart", "rend"),
    "narrow": ("qrec", "rrec", "strand"),  # always 32 bits or fewer, whatever the record lengths
})

# The HSP table of a command line asked for chains too: each HSP's chain.
HSP_CHAINED = HSP.extended("hsp_chained", [
    Column("chain", "int64", "int64", doc="the HSP's chain (the chains table's `chain`), -1 where it is in none"),
])

# An exact match (mummer's rows): query positions on the strand matched, as mummer -b -c gives them.
MATCH = Record("match", [
    Column("qrec", "int64", "int32"), Column("rrec", "int64", "int32"), Column("strand", "int64", "int8"),
    Column("qstart", "int64", "int64", doc="on the query's strand matched"), Column("rstart", "int64", "int64"),
    Column("length", "int64", "int64"),
], order=("qrec", "strand", "qstart", "rstart"), views={})


# A chain of HSPs (chains.py): its spans (reference in forward coordinates on both strands), score,
# HSPs, aligned bases (the HSPs' bases, overlaps trimmed) and their identities, and whether it is
# in the one-to-one backbone. Rows in chain order: score descending.
CHAIN = Record("chain", [
    Column("chain", "int64", "int64", doc="the chain's number: its place in score order"),
    Column("qrec", "int32", "int32"), Column("rrec", "int32", "int32"), Column("strand", "int8", "int8"),
    Column("qstart", "int64", "int64"), Column("qend", "int64", "int64"),
    Column("rstart", "int64", "int64"), Column("rend", "int64", "int64"),
    Column("score", "int64", "int64", doc="chain score: the HSPs' trimmed scores less the gap costs"),
    Column("hsps", "int64", "int64"), Column("aligned", "int64", "int64"), Column("identities", "int64", "int64"),
    Column("backbone", "int8", "int8", doc="1 in the one-to-one backbone, else 0"),
], order=("chain",), views={})


def ungapped_ends(qstart, qend, rstart) -> tuple:
    """(length, rend) of ungapped HSPs: NumPy or CuPy arrays alike."""
    length = qend - qstart
    return length, rstart + length


# A gapped alignment (align.py): a piece of a chain between two splits, its spans (reference in
# forward coordinates on both strands), score, columns by kind and its CIGAR (=/X/I/D, on the
# reverse strand along the reference's forward strand, as PAF has it). Rows in chain order, each
# chain's alignments along it.
ALIGNMENT = Record("alignment", [
    Column("alignment", "int64", "int64", doc="the alignment's number: its place in the table"),
    Column("chain", "int64", "int64", doc="the chain it comes from (the chains table's `chain`)"),
    Column("qrec", "int32", "int32"), Column("rrec", "int32", "int32"), Column("strand", "int8", "int8"),
    Column("qstart", "int64", "int64"), Column("qend", "int64", "int64"),
    Column("rstart", "int64", "int64"), Column("rend", "int64", "int64"),
    Column("score", "int64", "int64", doc="alignment score (align_match, align_mismatch, gap_open, gap_extend)"),
    Column("matches", "int64", "int64", doc="identical columns (=)"),
    Column("mismatches", "int64", "int64", doc="columns of two different bases or an N (X)"),
    Column("unknown", "int64", "int64", doc="of the mismatches, those holding an N (an assembly gap's base: "
           "unknown, scored 0 and left out of identities)"),
    Column("insertions", "int64", "int64", doc="query bases against none (I columns)"),
    Column("deletions", "int64", "int64", doc="reference bases against none (D columns)"),
    Column("backbone", "int8", "int8", doc="1 where its chain is in the one-to-one backbone"),
    Column("cigar", "string", "string", doc="the CIGAR, =/X/I/D"),
], order=("alignment",), views={})
