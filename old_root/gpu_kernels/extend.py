"""Base-exact, identity-aware ungapped extension.

Each side of a kept seed is walked on its own, the right side from the seed's end and the left
side from its start, each from score k * match (match, mismatch and N scores per base). A walk
stops when its score drops below 0, when it falls more than xdrop below the side's best score
(xdrop 0: never), or at the record's end (a BORDER code). The side's end moves to the n-th base
only where the score there beats the side's best so far (the first position of a tie) and the
side's identity, counting half the seed, clears the threshold:
`(2 * identities + k) * 100 >= min_identity * (2 * n + k)`. The HSP spans [left end, right end);
its score is left best + right best - k * match, and its identity is >= min_identity by construction.

CPU: each seed's two sides walked base by base, compiled, threads taking blocks of seeds
(extend.c). CuPy: one warp per run of seeds over chunks of 32 * PER_LANE bases (extend.cu), the
same ends.
"""
from __future__ import annotations

import numpy as np

from . import native
from .arrays import EXTEND_THREADS, cupy, kernel
from .params import Extension

SEEDS_PER_WARP = 16  # seeds one warp of extend.cu walks one after another


def extend(qcodes, rcodes, sq, sr, k: int, extension: Extension):
    """HSPs of seeds: (qstart, qend, score, identities), int64, one row per seed, on the query axis."""
    n = sq.size
    out = [np.empty(n, dtype=np.int64) for _ in range(4)]
    if n:
        e = extension
        native.cpu().extend(np.ascontiguousarray(qcodes), np.ascontiguousarray(rcodes),
                            np.ascontiguousarray(sq, dtype=np.int64), np.ascontiguousarray(sr, dtype=np.int64), k,
                            e.match, e.mismatch, e.n_score, e.xdrop, float(e.min_identity), *out, native.threads())
    return tuple(out)


def extend_cupy(qcodes, rcodes, sq, sr, k: int, extension: Extension):
    """extend on the device: one warp per run of SEEDS_PER_WARP seeds (extend.cu). Unlike extend,
    score and identities are int32 (they never exceed an HSP's length; hsps.passing_cupy widens them)."""
    cp = cupy()
    n = sq.size
    qstart = cp.empty(n, dtype=cp.int64)
    qend = cp.empty(n, dtype=cp.int64)
    score = cp.empty(n, dtype=cp.int32)
    ids = cp.empty(n, dtype=cp.int32)
    if n:
        warps = (n + SEEDS_PER_WARP - 1) // SEEDS_PER_WARP
        grid = (warps * 32 + EXTEND_THREADS - 1) // EXTEND_THREADS
        e = extension
        kernel("extend.cu", "extend_runs")(
            (grid,), (EXTEND_THREADS,),
            (qcodes, rcodes, sq, sr, cp.int64(n), cp.int32(SEEDS_PER_WARP), cp.int32(k), cp.int32(e.match),
             cp.int32(e.mismatch), cp.int32(e.n_score), cp.int32(e.xdrop), cp.float64(e.min_identity),
             qstart, qend, score, ids))
    return qstart, qend, score, ids
