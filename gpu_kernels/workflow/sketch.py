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


def make_sketch(data, spans: np.ndarray, shift: int) -> Sketch:
    """The sketch of the record bodies data[spans[i, 0]:spans[i, 1]] (FASTA text: line breaks and
    blanks skipped, bases of any case), records numbered in spans' order."""
    from .. import native

    starts = np.ascontiguousarray(spans[:, 0], dtype=np.int64)
    ends = np.ascontiguousarray(spans[:, 1], dtype=np.int64)
    counts, run_counts = np.zeros(starts.size, dtype=np.int64), np.zeros(starts.size, dtype=np.int64)
    threads = max(1, min(native.threads(), starts.size))
    cpu = native.cpu()
    cpu.sketch_sites(data, starts, ends, shift, counts, run_counts, None, None, threads)
    first, run_first = (np.concatenate([[0], np.cumsum(c)]).astype(np.int64) for c in (counts, run_counts))
    sites, runs = np.zeros(int(first[-1]), dtype=SITE), np.zeros(int(run_first[-1]), dtype=RUN)
    cpu.sketch_sites(data, starts, ends, shift, np.ascontiguousarray(first[:-1]), np.ascontiguousarray(run_first[:-1]),
                     sites.view(np.uint8), runs.view(np.uint8), threads)
    return Sketch(sites, shift, runs)


def coarsened(sites: np.ndarray, shift: int) -> np.ndarray:
    """The sites a coarser shift keeps (its threshold is below the finer one's: a FracMinHash property)."""
    if shift == 0:
        return sites
    return sites[(sites["h20"] >> np.uint64(64 - shift)) == 0]


def save_sketch(sketch: Sketch, path: str) -> None:
    """A sketch as an .npz file (written whole or not at all)."""
    from ..formats import atomic_path

    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            np.savez(handle, sites=sketch.sites, shift=np.int64(sketch.shift), runs=sketch.runs)


def load_sketch(path: str) -> Sketch | None:
    """A saved sketch, or None where there is none (a read set, a read-only results folder)."""
    try:
        with np.load(path) as saved:
            return Sketch(saved["sites"], int(saved["shift"]), saved["runs"])
    except (OSError, ValueError, KeyError):
        return None
