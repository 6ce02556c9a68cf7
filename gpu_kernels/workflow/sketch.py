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
FORWARD, PERIODIC = 1, 2  # flags: the 20-mer read forward; the 32-mer periodic (counted apart, exactly)
PERIODIC_SLOTS = 1 << 18  # sketch.c's table of periodic 32-mers, a thread
SITE_K, WORD_K = 20, 32
# Sites a genome: at least a 256th of its bases (a few thousand on a bacterium), at most about 2 M
# (64 MB of sites for a human-sized genome, a few seconds to compare two of them).
MIN_SHIFT, MOST_SITES = 5, 1 << 21


def sketch_shift(bases: int) -> int:
    """A genome's shift: a 2^-shift share of its bases are sites."""
    return max(MIN_SHIFT, int(math.ceil(math.log2(max(1, bases) / MOST_SITES))))


@dataclass(frozen=True)
class Sketch:
    """A genome's sketch: its sites, their shift, and every periodic 32-mer with its count (keys are
    the canonical 32-mers, packed two bits a base)."""

    sites: np.ndarray
    shift: int
    periodic_keys: np.ndarray
    periodic_counts: np.ndarray


def make_sketch(data, spans: np.ndarray, shift: int) -> Sketch:
    """The sketch of the record bodies data[spans[i, 0]:spans[i, 1]] (FASTA text: line breaks and
    blanks skipped, bases of any case), records numbered in spans' order."""
    from .. import native

    starts = np.ascontiguousarray(spans[:, 0], dtype=np.int64)
    ends = np.ascontiguousarray(spans[:, 1], dtype=np.int64)
    counts = np.zeros(starts.size, dtype=np.int64)
    threads = max(1, min(native.threads(), starts.size))
    cpu = native.cpu()
    cpu.sketch_sites(data, starts, ends, shift, counts, None, None, None, threads)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    out = np.zeros(int(offsets[-1]), dtype=SITE)
    keys = np.zeros(threads * PERIODIC_SLOTS, dtype=np.uint64)
    tallies = np.zeros(threads * PERIODIC_SLOTS, dtype=np.int64)
    cpu.sketch_sites(data, starts, ends, shift, np.ascontiguousarray(offsets[:-1]), out.view(np.uint8), keys, tallies,
                     threads)
    used = keys != 0
    unique, at = np.unique(keys[used] - np.uint64(1), return_inverse=True)
    return Sketch(out, shift, unique, np.bincount(at, weights=tallies[used], minlength=unique.size).astype(np.int64))


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
            np.savez(handle, sites=sketch.sites, shift=np.int64(sketch.shift), periodic_keys=sketch.periodic_keys,
                     periodic_counts=sketch.periodic_counts)


def load_sketch(path: str) -> Sketch | None:
    """A saved sketch, or None where there is none (a read set, a read-only results folder)."""
    try:
        with np.load(path) as saved:
            return Sketch(saved["sites"], int(saved["shift"]), saved["periodic_keys"], saved["periodic_counts"])
    except (OSError, ValueError, KeyError):
        return None
