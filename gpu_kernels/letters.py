"""IUPAC letters of FASTA records. The codes call every letter but A, C, G, T and U N (encode.py), which
is what seeds, HSPs and alignments need; SNP lines print the letter the file held, as show-snps does,
and list a column only where its two letters share no base (R against C, never R against A or N). So a
SeqSet keeps the places and letters of its IUPAC codes (B, D, H, K, M, R, S, V, W and Y) beside its
codes: none in most assemblies, a few in some. align_text.c reads them. A FASTA's case is kept the same
way where spaced seeds ask for it (soft_masked)."""
from __future__ import annotations

import numpy as np

NONE = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8))


def iupac_letters(data: bytes, bodies: np.ndarray, starts: np.ndarray, table: bytes) -> tuple:
    """(places in the codes, upper-case letters) of the IUPAC letters of the record bodies (int64
    (start, end) a record, bytes of data) whose codes start at starts; table: fasta.COMPILED_TABLE
    (the bytes it drops are no symbols). Counted on threads, then written (fasta.c)."""
    from . import native

    cpu, threads = native.cpu(), native.threads()
    bodies = np.ascontiguousarray(bodies, dtype=np.int64)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    counts = np.zeros(starts.size, dtype=np.int64)
    cpu.iupac_letters(data, bodies, table, starts, counts, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8),
                      threads)
    total = int(counts.sum())
    if not total:
        return NONE
    at = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    pos, let = np.empty(total, dtype=np.int64), np.empty(total, dtype=np.uint8)
    cpu.iupac_letters(data, bodies, table, starts, at, pos, let, threads)
    return pos, let


def subset_letters(letters, starts: np.ndarray, lengths: np.ndarray, records, new_starts: np.ndarray) -> tuple:
    """The letters of some records (their indices, in that order) moved to the records' new starts."""
    pos, let = letters if letters is not None else NONE
    if not pos.size:
        return NONE
    parts = []
    for record, new in zip(np.asarray(records, dtype=np.int64), new_starts):
        lo, hi = np.searchsorted(pos, [starts[record], starts[record] + lengths[record]])
        parts.append((pos[lo:hi] - starts[record] + new, let[lo:hi]))
    if not parts:
        return NONE
    return (np.concatenate([p for p, _ in parts]).astype(np.int64), np.concatenate([lt for _, lt in parts]))


def soft_masked(data: bytes, bodies: np.ndarray, seqset, table: bytes) -> np.ndarray:
    """1 where a record's letter is lowercase (soft-masked), 0 at its other letters, the border code
    between records: an array beside seqset.codes, written by fasta.c as the codes are, with a table of
    its own made from the codes' (table: fasta.COMPILED_TABLE; bodies: int64 (start, end) a record)."""
    from . import native

    soft_table = np.frombuffer(table, dtype=np.uint8).copy()
    letters = soft_table < 6
    soft_table[letters] = 0
    soft_table[[b for b in range(ord("a"), ord("z") + 1) if letters[b]]] = 1
    # what encode_records reads of encode_counts' stats, known from the codes already: each record's
    # symbols (its length) and that it is not clean (write_clean's arithmetic reads no case)
    stats = np.zeros((len(seqset.names), 4), dtype=np.int64)
    stats[:, 0] = seqset.lengths
    cpu, threads = native.cpu(), native.threads()
    soft = np.empty(seqset.codes.size, dtype=np.uint8)
    cpu.encode_records(data, bodies, soft_table.tobytes(), soft, seqset.starts, stats, threads)
    return soft
