"""The many-genomes screen: pairs whose genomes share next to nothing are not aligned.

Each genome's index holds its screen sketch: the distinct canonical 20-mers whose hash lies below
2^(64 - shift) (FracMinHash, sketch.c's sites), the shift chosen so that about SCREEN_SITES are kept.
Two genomes are compared at the larger of their shifts (a coarser sketch is a subset of a finer one),
and the share of the smaller genome's 20-mers found in the larger, its containment c, gives the
containment ANI c^(1/20) (Mash's and sourmash's estimate of the identity of a genome contained in
another). Homologous sequence at identity p over a share f of the smaller genome keeps about f * p^20
of its 20-mers, so genera that share only rRNA operons and a few conserved genes (under 1 % of a genome)
sit at 64-69 %, pairs of other orders of one class (Klebsiella and Vibrio) at 72-76 %, and pairs that
align at 80 % at 78 % and above (docs/WORKFLOW.md, "The screen"). A pair under the setting's
`comparisons.screen` (percent) is screened: no alignment, no pair folder, a row of ani.tsv that says
so. A pair whose smaller genome keeps fewer than MIN_SITES sites at the common shift (a virus against
a bacterium) is never screened: the sample is too small to tell, and such a pair is cheap to align.
"""
from __future__ import annotations

import math

import numpy as np

from .sketch import SITE_K, make_sketch

SCREEN_SITES = 1 << 16  # about this many 20-mers a genome (0.5 MB), whatever its size
MIN_SITES = 1000
ALIGNED, SCREENED = "aligned", "screened"  # ani.tsv's status of a pair


def screen_shift(bases: int) -> int:
    """The shift that keeps about SCREEN_SITES of a genome's 20-mers (0: every one of a small genome)."""
    return max(0, math.ceil(math.log2(max(1, bases) / SCREEN_SITES)))


def screen_sketch(codes: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, int]:
    """A genome's screen sketch from its records' codes (starts and lengths into codes, as a SeqSet
    lays them): the sorted distinct 20-mer hashes its sites hold, and their shift."""
    starts, lengths = (np.asarray(a, dtype=np.int64) for a in (starts, lengths))
    shift = screen_shift(int(lengths.sum()))
    spans = np.column_stack((starts, starts + lengths))
    sketch = make_sketch(np.ascontiguousarray(codes, dtype=np.uint8), spans, shift)
    return np.unique(sketch.sites["h20"]), shift


def save_screen(path: str, hashes: np.ndarray, shift: int) -> None:
    """A screen sketch as an .npz file (written whole or not at all)."""
    from ..formats import save_arrays

    save_arrays(path, hashes=hashes, shift=np.int64(shift))


def load_screen(path: str) -> tuple[np.ndarray, int]:
    """A saved screen sketch (save_screen's)."""
    with np.load(path) as saved:
        return saved["hashes"], int(saved["shift"])


def coarser(hashes: np.ndarray, shift: int) -> np.ndarray:
    """The hashes a coarser shift keeps."""
    return hashes[(hashes >> np.uint64(64 - shift)) == 0] if shift else hashes


def containment(a: tuple[np.ndarray, int], b: tuple[np.ndarray, int]) -> tuple[int, int]:
    """(20-mers shared, the smaller genome's 20-mers) of two screen sketches at their common shift."""
    shift = max(a[1], b[1])
    x, y = coarser(a[0], shift), coarser(b[0], shift)
    small, large = (x, y) if x.size <= y.size else (y, x)
    if small.size == 0 or large.size == 0:
        return 0, int(small.size)
    at = np.minimum(np.searchsorted(large, small), large.size - 1)
    return int(np.count_nonzero(large[at] == small)), int(small.size)


def containment_ani(shared: int, sites: int) -> float:
    """The containment ANI, percent (c^(1/20) of c = shared / sites; NaN where there are no sites)."""
    if sites == 0:
        return math.nan
    return 100.0 * (shared / sites) ** (1.0 / SITE_K)


def is_screened(shared: int, sites: int, min_ani: float) -> bool:
    """Whether a pair is screened out under a setting of min_ani (percent; 0: none is)."""
    return min_ani > 0 and sites >= MIN_SITES and containment_ani(shared, sites) < min_ani


def screen_pairs(pairs: list[tuple], genomes: dict, min_ani: float) -> tuple[list[tuple], list[dict], dict]:
    """A row's pairs screened (genomes: name -> workflow.genome.Genome, its `screen` the sketch's path;
    a genome without one screens none of its pairs): (the pairs to align, in their order; the screened
    pairs' ANI rows, ani.tsv's layout: their lengths, containment ANI and status, nothing measured;
    each pair's containment ANI, NaN where not known). A genome's sketch is read once and let go after
    its row's last pair holding it."""
    last = {g: at for at, pair in enumerate(pairs) for g in pair}
    sketches, kept, rows, estimates = {}, [], [], {}
    for at, (q, r) in enumerate(pairs):
        shared = sites = 0  # no sketch: no sites, so no estimate (NaN) and never screened
        if genomes[q].screen is not None and genomes[r].screen is not None:
            for name in (q, r):
                if name not in sketches:
                    sketches[name] = load_screen(genomes[name].screen)
            shared, sites = containment(sketches[q], sketches[r])
        estimates[(q, r)] = containment_ani(shared, sites)
        if is_screened(shared, sites, min_ani):
            rows.append({"query": q, "reference": r, "query_length": int(genomes[q].lengths.sum()),
                         "reference_length": int(genomes[r].lengths.sum()), "screen_ani": estimates[(q, r)],
                         "status": SCREENED})
        else:
            kept.append((q, r))
        for name in (q, r):
            if last[name] == at:
                sketches.pop(name, None)
    return kept, rows, estimates
