"""A set of records laid end to end in one code array, BORDER codes between and around them.

The engine compares two such sets at once, so a bin of many small contigs is one job and not
thousands. The borders are encode.GAP codes wide.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .arrays import array_module
from .encode import BORDER, COMPLEMENT, GAP


@dataclass
class SeqSet:
    """Records concatenated: codes, record names, lengths and start offsets into codes."""

    names: list[str]
    lengths: np.ndarray  # int64, one per record
    starts: np.ndarray   # int64, offset of each record in codes
    codes: np.ndarray    # uint8, GAP borders, record 0, GAP borders, record 1, ..., GAP borders
    letters: tuple | None = None  # (places in codes, letters) of its IUPAC codes (letters.py), where known

    @cached_property
    def reverse_codes(self) -> np.ndarray:
        """The codes' reverse complement (host codes), made once: the alignments' stages and texts
        all read the reference's reverse strand."""
        return reverse_complement(self.codes)

    @cached_property
    def name_table(self) -> tuple:
        """The names as a string table of format.c (bytes, int64 offsets): formats.rows.name_table's
        form, made once (a probe set's millions of names are printed twice, a header a strand)."""
        from .formats.rows import name_table

        return name_table(self.names)

    @cached_property
    def has_acgt(self) -> np.ndarray:
        """Whether each record holds an A, C, G or T (bool; host codes): fasta.encode_fasta sets it
        from its counts."""
        codes = np.asarray(self.codes)
        if not self.starts.size:
            return np.zeros(0, dtype=bool)
        return np.minimum.reduceat(codes, np.asarray(self.starts, dtype=np.int64)) < 4  # borders between: 5

    @property
    def total(self) -> int:
        """Length of the concatenated code array."""
        return int(self.codes.size)

    def subset(self, records) -> "SeqSet":
        """The records of the given indices (in that order) as a SeqSet of their own, on the host."""
        from .letters import subset_letters

        codes = np.asarray(self.codes)
        records = np.asarray(records, dtype=np.int64)
        out = make_seqset([self.names[i] for i in records],
                          [codes[self.starts[i]:self.starts[i] + self.lengths[i]] for i in records])
        out.letters = subset_letters(self.letters, self.starts, self.lengths, records, out.starts)
        return out

    def record_of(self, pos: np.ndarray) -> np.ndarray:
        """Index of the record holding each concatenated position."""
        return np.searchsorted(self.starts, pos, side="right") - 1

    def reverse_starts(self) -> np.ndarray:
        """Where each record starts in the reverse complement of the concatenation (last record first)."""
        return self.total - self.starts - self.lengths

    def reverse_record_of(self, pos: np.ndarray) -> np.ndarray:
        """Index of the record holding each position of the reverse-complemented concatenation."""
        starts = self.reverse_starts()[::-1]  # ascending
        return self.lengths.size - np.searchsorted(starts, pos, side="right")


def empty_layout(lengths) -> tuple[np.ndarray, np.ndarray]:
    """(starts, codes) of records of these lengths laid end to end with borders: the borders written,
    the records' bytes left for the caller to write (a genome's 3 GB first touched by the threads
    that write its records, not by one filling it with borders first)."""
    from . import native

    lengths = np.asarray(lengths, dtype=np.int64)
    starts = GAP + np.concatenate(([0], np.cumsum(lengths + GAP)[:-1])).astype(np.int64)
    codes = np.empty(int(GAP + lengths.sum() + GAP * lengths.size), dtype=np.uint8)
    borders = np.concatenate(([0], starts + lengths)).astype(np.int64)
    native.cpu().fill_spans(codes, borders, np.full(borders.size, GAP, dtype=np.int64), BORDER,
                            min(native.threads(), max(1, borders.size >> 12)))
    return starts, codes


def make_seqset(names: list[str], arrays: list[np.ndarray]) -> SeqSet:
    """Lay records end to end with borders (records of a genome's codes file, memory-mapped, copied
    on the compiled stages' threads)."""
    from . import native

    lengths = np.array([a.size for a in arrays], dtype=np.int64)
    starts, codes = empty_layout(lengths)
    for start, array in zip(starts, arrays):
        if array.size >= (1 << 22) and array.dtype == np.uint8 and array.flags.c_contiguous:
            native.cpu().copy_bytes(codes[start:start + array.size], array, native.threads())
        else:
            codes[start:start + array.size] = array
    return SeqSet(list(names), lengths, starts, codes)


def seqset_of(records) -> SeqSet:
    """A SeqSet of fasta.Records."""
    return make_seqset([r.name for r in records], [r.codes for r in records])


def reverse_complement(codes):
    """Reverse complement of a code array (NumPy or CuPy); BORDER and N stay as they are. Large host
    codes on the compiled stages' threads (a genome's: seconds a gigabase on one)."""
    xp = array_module(codes)
    if xp is not np or codes.size < (1 << 22) or codes.dtype != np.uint8:
        return xp.asarray(COMPLEMENT)[codes[::-1]]
    from . import native

    table = np.arange(256, dtype=np.uint8)
    table[:COMPLEMENT.size] = COMPLEMENT
    out = np.empty_like(codes)
    native.cpu().reverse_complement(out, np.ascontiguousarray(codes), table, native.threads())
    return out


def record_slice(records: SeqSet, first: int, end: int) -> SeqSet:
    """Records first .. end - 1 of a set, with the borders around them (a view of its codes, on their
    device)."""
    starts = np.asarray(records.starts, dtype=np.int64)
    lengths = np.asarray(records.lengths, dtype=np.int64)
    low, high = int(starts[first]) - GAP, int(starts[end - 1] + lengths[end - 1]) + GAP
    return SeqSet(records.names[first:end], lengths[first:end], starts[first:end] - low, records.codes[low:high])
