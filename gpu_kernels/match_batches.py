"""The exact-match modes' batches of query records, held to a budget of matches whatever the repeats.

A read set against a genome of young repeat copies finds matches by the thousand a read, so a batch
of query records is cut by the matches it finds, not by its bases alone (bounded_batches): a batch
whose matches pass the budget stops as soon as the count says so (TooManyMatches) and is matched
again in shorter runs of records, and the next runs are sized by the density met so far. A
reference matched a tile at a time (matches.reference_tiles) finds each query record's matches
tile by tile; they wait on disk (MatchSpill), and come back a run of query records at a time, each
run within the budget, in the order one pass gives.
"""
from __future__ import annotations

import logging
import os
import shutil
import tempfile

import numpy as np

from .seqset import record_slice

log = logging.getLogger(__name__)

MATCH_ROWS = 1 << 26  # matches a batch holds at once: six int64 columns of 3 GiB, about 12 GiB of host at its peak
SHRINK = 0.8  # a run resized from a density aims this far under the budget


class TooManyMatches(Exception):
    """A batch's matches passed its budget: rows, those found (or estimated from those found so far)."""

    def __init__(self, rows: int):
        super().__init__(f"{rows} matches")
        self.rows = int(rows)


def run_end(ends: np.ndarray, first: int, bases: int) -> int:
    """The end of the run of records from first holding at most `bases` bases (one record at least).
    ends: the records' cumulative lengths."""
    before = int(ends[first - 1]) if first else 0
    return min(ends.size, max(first + 1, int(np.searchsorted(ends, before + bases, side="right"))))


def bounded_batches(query, match, bases: int, rows: int = MATCH_ROWS):
    """(table, first, end) for consecutive runs of query records in turn, table = match(batch, limit)
    with its qrec counted from the whole set: runs of at most `bases` bases, fewer where the matches
    are dense. match raises TooManyMatches past limit (None: no limit, for a record alone, which no
    cut makes smaller); such a run is matched again, shorter."""
    lengths = np.asarray(query.lengths, dtype=np.int64)
    ends = np.cumsum(lengths)
    first, size = 0, bases
    while first < lengths.size:
        end = run_end(ends, first, size)
        batch = query if first == 0 and end == lengths.size else record_slice(query, first, end)
        held = int(ends[end - 1] - (ends[first - 1] if first else 0))
        try:
            table = match(batch, rows if end - first > 1 else None)
        except TooManyMatches as over:
            size = max(1, int(held * SHRINK * rows / max(over.rows, 1)))
            log.info("query records %d to %d: %d matches or more, past the %d a batch holds; matched again in runs "
                     "of %d bases", first + 1, end, over.rows, rows, size)
            continue
        if first:
            table["qrec"] += first
        found = int(table["length"].size)
        yield table, first, end
        size = bases if not found else max(1, min(bases, int(held * SHRINK * rows / found)))
        first = end


class MatchSpill:
    """The matches of every reference tile, a file a column a batch in a temporary folder, until all
    tiles are matched (then chunks() gives them back a run of query records at a time). Columns are
    kept as narrow as the sets allow."""

    def __init__(self, records: int, longest: int, references: int):
        self.folder = tempfile.mkdtemp(prefix="gpu-genome-compare-matches-")
        self.counts = np.zeros(records, dtype=np.int64)
        self.files: list[tuple[int, int, str]] = []  # (first, end, prefix) of each batch, tiles in turn
        position = np.int32 if longest < 2**31 else np.int64
        self.dtypes = {"qrec": np.int32 if records < 2**31 else np.int64,
                       "rrec": np.int32 if references < 2**31 else np.int64,
                       "strand": np.int8, "qstart": position, "rstart": position, "length": position}
        self.bytes = 0

    def add(self, table: dict, first: int, end: int) -> None:
        """A batch's table of query records first .. end - 1, in find_matches' order."""
        if not np.asarray(table["qrec"]).size:
            return
        prefix = os.path.join(self.folder, str(len(self.files)))
        for name, dtype in self.dtypes.items():
            column = np.asarray(table[name]).astype(dtype, copy=False)
            try:
                np.save(f"{prefix}.{name}.npy", column)
            except OSError as error:  # a full disk names the tiles' folder ($TMPDIR), not the output
                raise OSError(error.errno, f"{error.strerror or error} (the reference tiles' matches, "
                              f"{self.bytes / 1e9:.1f} GB so far; set TMPDIR to a disk with room)",
                              self.folder) from None
            self.bytes += column.nbytes
        self.counts += np.bincount(table["qrec"], minlength=self.counts.size)
        self.files.append((first, end, prefix))

    def chunks(self, rows: int):
        """(table, first, end): the matches of query records first .. end - 1 of all tiles, tiles in
        turn (as one pass would order ties), runs of records holding at most `rows` matches (or one
        record). A batch's files are removed once read through."""
        ends = np.cumsum(self.counts)
        first = 0
        while first < self.counts.size:
            end = run_end(ends, first, rows)
            parts = []
            for low, high, prefix in self.files:
                if high <= first or low >= end:
                    continue
                qrec = np.load(f"{prefix}.qrec.npy", mmap_mode="r")
                lo, hi = np.searchsorted(qrec, [first, end])
                parts.append({name: np.array(np.load(f"{prefix}.{name}.npy", mmap_mode="r")[lo:hi], dtype=np.int64)
                              for name in self.dtypes})
            for low, high, prefix in self.files:
                if high <= end:  # read through
                    for name in self.dtypes:
                        if os.path.exists(f"{prefix}.{name}.npy"):
                            os.remove(f"{prefix}.{name}.npy")
            yield {name: np.concatenate([p[name] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
                   for name in self.dtypes}, first, end
            first = end

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
