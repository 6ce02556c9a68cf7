"""A genome's sketch, made by the workflow's scan: what the size estimates (estimate.py) know of a
genome before any job runs.

The sites are the places whose canonical 20-mer hashes below 2^(64 - shift) (FracMinHash: the same
20-mers are kept in every genome, a 2^-shift share of each), each with the hash of the canonical
32-mer centred on it (the engine's words) and its record, place and orientation. Their counts give
a genome's repeat content, the 20-mers and 32-mers two genomes share give their divergence and how
much of them aligns, the single-copy sites they share give their collinear blocks.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..arrays import exclusive_sum

SITE = np.dtype([("h20", "<u8"), ("h32", "<u8"), ("pos", "<i8"), ("rec", "<i4"), ("flags", "<i4")])
FORWARD, PERIODIC = 1, 2  # flags: the 20-mer read forward; the 32-mer periodic (its runs are kept whole)
# a run of periodic 32-mers: its family (the period in the high 16 bits, the least rotation of the unit
# on either strand in the low ones) and its bases
RUN = np.dtype([("family", "<u4"), ("length", "<u4")])
SITE_K, WORD_K = 20, 32
# Sites a genome: a 32nd of a bacterium's bases (enough to see alignments of a kilobase), at most 2^18
# and a 2048th of the bases (156 k sites, 5 MB, for 20 Mbp; 1.5 M, 48 MB, for a human-sized genome,
# 3 s to compare two of them).
MIN_SHIFT, BASE_SITES, LARGE_SHIFT = 5, 1 << 18, 11


def sketch_shift(bases: int) -> int:
    """A genome's shift: a 2^-shift share of its bases are sites."""
    bases = max(1, bases)
    target = min(bases / (1 << MIN_SHIFT), BASE_SITES + bases / (1 << LARGE_SHIFT))
    return max(MIN_SHIFT, int(math.ceil(math.log2(bases / target))))


@dataclass(frozen=True)
class Sketch:
    """A genome's sketch: its sites, their shift, and every run of periodic 32-mers (RUN)."""

    sites: np.ndarray
    shift: int
    runs: np.ndarray


# a run as sketch.c writes it, in a piece of a record: its family, record, and its first and last
# periodic 32-mer's last base (runs a cut split are joined here)
RUN_AT = np.dtype([("family", "<u4"), ("rec", "<i4"), ("first", "<i8"), ("last", "<i8")])
MERGE_GAP = 40  # sketch.c's: periodic 32-mers of a family this near are one run
PIECES_A_THREAD, MIN_PIECE = 8, 1 << 20


def make_sketch(data, spans: np.ndarray, shift: int | None, piece_bytes: int | None = None,
                lengths: np.ndarray | None = None) -> Sketch:
    """The sketch of the record bodies data[spans[i, 0]:spans[i, 1]] (FASTA text: line breaks and
    blanks skipped, bases of any case), records numbered in spans' order. The bodies are cut in pieces
    of about piece_bytes (by default a share of the genome that keeps every thread busy), the same
    sketch for any cut. Its sites come in 20-mer order (records and positions in order within one).
    shift None: the genome's (sketch_shift of its bases, counted here); lengths: an int64 array a
    record, given each record's bases (the scan's lengths, from the one count of the blanks)."""
    from .. import native
    from ..fasta import BLANK_TABLE

    spans = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    threads = native.threads()
    sizes = spans[:, 1] - spans[:, 0]
    if piece_bytes is None:
        piece_bytes = max(MIN_PIECE, int(sizes.sum()) // (threads * PIECES_A_THREAD) + 1)
    cuts = np.maximum(1, -(-sizes // piece_bytes))
    recs = np.repeat(np.arange(spans.shape[0], dtype=np.int64), cuts)
    first_piece = exclusive_sum(cuts)[:-1]
    within = np.arange(recs.size, dtype=np.int64) - np.repeat(first_piece, cuts)
    starts = spans[recs, 0] + within * sizes[recs] // cuts[recs]
    ends = np.where(within + 1 == cuts[recs], spans[recs, 1], spans[recs, 0] + (within + 1) * sizes[recs] // cuts[recs])
    # each piece's first base: the bases of the record's pieces before it
    blanks = np.zeros(recs.size, dtype=np.int64)
    cpu = native.cpu()
    cpu.count_in_spans(data, starts, ends, BLANK_TABLE, blanks, threads)
    held = ends - starts - blanks
    if lengths is not None:
        lengths[:] = np.bincount(recs, weights=held, minlength=spans.shape[0]).astype(np.int64)
    if shift is None:
        shift = sketch_shift(int(held.sum()))
    bases = exclusive_sum(held)[:-1]
    bases -= np.repeat(bases[first_piece], cuts)
    firsts = np.ascontiguousarray(spans[recs, 0])
    threads = max(1, min(threads, recs.size))
    pieces = (data, starts, ends, recs, bases, firsts, shift)
    # room for the sites a piece's bases make on average, and a margin; the few pieces a repeat fills
    # beyond it are read again with room enough
    room = (held.astype(np.float64) / float(1 << shift) * ROOM_MARGIN).astype(np.int64) + ROOM_EXTRA
    run_room = held // RUN_SPACING + RUN_EXTRA
    found, run_found, sites, runs = _written(cpu, pieces, room, run_room, threads)
    over = (found > room) | (run_found > run_room)
    sites_again = runs_again = None
    if over.any():
        again = [np.ascontiguousarray(column[over]) for column in pieces[1:6]]
        _, _, sites_again, runs_again = _written(cpu, (data, *again, shift), found[over], run_found[over], threads)
    sites, runs = _spliced(sites, room, found, over, sites_again), _spliced(runs, run_room, run_found, over, runs_again)
    # in 20-mer order (stable: records and positions in order within a 20-mer), as estimate.py reads them,
    # so that each pair's estimate finds them sorted (a many-genomes run estimates every pair)
    return Sketch(sites[np.argsort(sites["h20"], kind="stable")], shift, joined_runs(runs))


def sketch_of_codes(codes: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> Sketch:
    """The sketch of a SeqSet's records (its codes on the host, each record's start and length) as the
    genome scan makes it of the FASTA they were read from: the same sites, the same shift (sketch.c
    reads the codes 0-4 as the letters they stand for)."""
    starts = np.asarray(starts, dtype=np.int64)
    spans = np.column_stack((starts, starts + np.asarray(lengths, dtype=np.int64)))
    return make_sketch(np.ascontiguousarray(codes, dtype=np.uint8), spans, sketch_shift(int(np.sum(lengths))))


# a piece's room: its bases' share of sites (1 in 2^shift) times ROOM_MARGIN, and ROOM_EXTRA; a run
# a RUN_SPACING bases, and RUN_EXTRA
ROOM_MARGIN, ROOM_EXTRA, RUN_SPACING, RUN_EXTRA = 1.25, 64, 64, 16


def _written(cpu, pieces: tuple, room: np.ndarray, run_room: np.ndarray, threads: int) -> tuple:
    """sketch.c's pass over the pieces with that room: (sites found, runs found, the sites and runs
    written, each piece's at the sum of the rooms before it)."""
    n = room.size
    at, run_at = (exclusive_sum(r)[:-1] for r in (room, run_room))
    sites, runs = np.zeros(int(room.sum()), dtype=SITE), np.zeros(int(run_room.sum()), dtype=RUN_AT)
    found, run_found = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    cpu.sketch_sites(*pieces, at, np.ascontiguousarray(room, dtype=np.int64), run_at,
                     np.ascontiguousarray(run_room, dtype=np.int64), sites.view(np.uint8), runs.view(np.uint8), found,
                     run_found, threads)
    return found, run_found, sites, runs


def _spliced(written: np.ndarray, room: np.ndarray, found: np.ndarray, over: np.ndarray,
             again: np.ndarray | None) -> np.ndarray:
    """The rows each piece found, end to end in piece order: from `written` (each piece's at the sum
    of the rooms before it), those of the pieces `over` their room (a mask) from `again` (theirs end
    to end)."""
    total = int(found.sum())
    piece = np.repeat(np.arange(found.size), found)
    within = np.arange(total, dtype=np.int64) - np.repeat(exclusive_sum(found)[:-1], found)
    source = exclusive_sum(room)[:-1][piece] + within
    out = np.empty(total, dtype=written.dtype)
    kept = ~over[piece]
    out[kept] = written[source[kept]]
    if again is not None:
        out[~kept] = again
    return out


def joined_runs(runs: np.ndarray) -> np.ndarray:
    """RUN_AT rows (in the genome's order) as RUN rows, a run that pieces' cuts split joined again."""
    joins = np.zeros(runs.size, dtype=bool)
    joins[1:] = (runs["rec"][1:] == runs["rec"][:-1]) & (runs["family"][1:] == runs["family"][:-1]) & \
        (runs["first"][1:] - runs["last"][:-1] <= MERGE_GAP)
    heads = np.flatnonzero(~joins)
    tails = np.append(heads[1:], runs.size)[:heads.size] - 1
    joined = np.zeros(heads.size, dtype=RUN)
    joined["family"] = runs["family"][heads]
    joined["length"] = runs["last"][tails] - runs["first"][heads] + WORD_K
    return joined


def coarsened(sites: np.ndarray, shift: int) -> np.ndarray:
    """The sites a coarser shift keeps (its threshold is below the finer one's: a FracMinHash property)."""
    if shift == 0:
        return sites
    return sites[(sites["h20"] >> np.uint64(64 - shift)) == 0]


def save_sketch(sketch: Sketch, path: str) -> None:
    """A sketch as an .npz file (written whole or not at all)."""
    from ..formats import save_arrays

    save_arrays(path, sites=sketch.sites, shift=np.int64(sketch.shift), runs=sketch.runs)


def load_sketch(path: str) -> Sketch | None:
    """A saved sketch, or None where there is none (a read set, a read-only results folder)."""
    try:
        with np.load(path) as saved:
            return Sketch(saved["sites"], int(saved["shift"]), saved["runs"])
    except (OSError, ValueError, KeyError):
        return None
