"""Base-exact GECKO extension, vectorized over all live seeds, 32 bases a step.

Per seed: start with score k*match after the seed and walk right base by base; remember the
first position of the best score; stop when the score drops below 0 or the record ends (a
BORDER code). Then walk left from the seed start, continuing from the best right score, the same
way. The HSP spans [best left, best right).

NumPy: every live seed reads a 32-base chunk at once; the cumulative score over the chunk gives
the stop and the first best position inside it exactly. CuPy: one warp per run of seeds over
chunks of 32 * PER_LANE bases (extend.cu), the same ends.
"""
from __future__ import annotations

import functools

import numpy as np

from .arrays import EXTEND_THREADS, array_module, cupy, kernel
from .encode import BORDER, N_CODE
from .params import Extension

CHUNK = 32
NEG = np.int64(-(1 << 62))


SEEDS_PER_WARP = 16  # seeds one warp of extend.cu walks one after another


@functools.lru_cache(maxsize=None)
def pair_tables(match: int, mismatch: int, n_score: int):
    """Lookup tables over a*8+b for codes a, b: score, stop (a BORDER on either side), identity."""
    score = np.zeros(64, dtype=np.int64)
    stop = np.zeros(64, dtype=bool)
    same = np.zeros(64, dtype=np.int64)
    for a in range(6):
        for b in range(6):
            i = a * 8 + b
            if a == BORDER or b == BORDER:
                stop[i] = True
            elif a == N_CODE or b == N_CODE:
                score[i] = n_score
            elif a == b:
                score[i] = match
                same[i] = 1
            else:
                score[i] = mismatch
    return score, stop, same


def _walk(qcodes, rcodes, qpos, rpos, score, step: int, tables, xdrop: int = 0):
    """Walk every seed from (qpos, rpos) in direction step (+1 or -1) while its score stays >= 0.

    qpos/rpos are the first base the walk reads. Returns (best score, bases walked to the best
    position, identities among those bases). Positions grow away from the seed, ties keep the first.
    """
    xp = array_module(qpos)
    score_t, stop_t, same_t = (xp.asarray(t) for t in tables)
    n = qpos.size
    best = score.copy()
    best_len = xp.zeros(n, dtype=xp.int64)
    best_ids = xp.zeros(n, dtype=xp.int64)
    ids = xp.zeros(n, dtype=xp.int64)
    walked = xp.zeros(n, dtype=xp.int64)
    score = score.copy()
    offsets = xp.arange(CHUNK, dtype=xp.int64) * step
    live = xp.arange(n)
    while live.size:
        qi = qpos[live, None] + walked[live, None] * step + offsets
        ri = rpos[live, None] + walked[live, None] * step + offsets
        pair = qcodes[qi].astype(xp.int64) * 8 + rcodes[ri]
        stop = stop_t[pair]
        run = score[live, None] + xp.cumsum(score_t[pair], axis=1)
        run_ids = ids[live, None] + xp.cumsum(same_t[pair], axis=1)
        dead = stop | (run < 0)
        if xdrop:
            peak = xp.maximum(xp.maximum.accumulate(run, axis=1), best[live, None])
            dead |= peak - run > xdrop
        ends = xp.where(dead.any(axis=1), dead.argmax(axis=1), CHUNK)
        run = xp.where(xp.arange(CHUNK) < ends[:, None], run, NEG)
        at = run.argmax(axis=1)
        rows = xp.arange(live.size)
        top = run[rows, at]
        better = top > best[live]
        gain = live[better]
        best[gain] = top[better]
        best_len[gain] = walked[gain] + at[better] + 1
        best_ids[gain] = run_ids[rows, at][better]
        going = ends == CHUNK
        score[live] = run[:, -1]
        ids[live] = run_ids[:, -1]
        walked[live] += CHUNK
        live = live[going]
    return best, best_len, best_ids


def extend(qcodes, rcodes, sq, sr, k: int, extension: Extension):
    """HSPs of seeds: (qstart, qend, score, identities), int64, one row per seed, on the query axis."""
    xp = array_module(sq)
    tables = pair_tables(extension.match, extension.mismatch, extension.n_score)
    seed_score = xp.full(sq.size, k * extension.match, dtype=xp.int64)
    right, right_len, right_ids = _walk(qcodes, rcodes, sq + k, sr + k, seed_score, +1, tables, extension.xdrop)
    score, left_len, left_ids = _walk(qcodes, rcodes, sq - 1, sr - 1, right, -1, tables, extension.xdrop)
    return sq - left_len, sq + k + right_len, score, k + left_ids + right_ids


def extend_cupy(qcodes, rcodes, sq, sr, k: int, extension: Extension):
    """extend on the device: one warp per run of SEEDS_PER_WARP seeds (extend.cu)."""
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
             cp.int32(e.mismatch), cp.int32(e.n_score), cp.int32(e.xdrop), qstart, qend, score, ids))
    return qstart, qend, score.astype(cp.int64), ids.astype(cp.int64)
