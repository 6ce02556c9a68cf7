"""Base-exact, identity-aware ungapped extension.

Each side of a kept seed is walked on its own, the right side from the seed's end and the left
side from its start, each from score k * match (match, mismatch and N scores per base). A walk
stops when its score drops below 0, when it falls more than xdrop below the side's best score
(xdrop 0: never), or at the record's end (a BORDER code). The side's end moves to the n-th base
only where the score there beats the side's best so far (the first position of a tie) and the
side's identity, counting half the seed, clears the threshold:
`(2 * identities + k) * 100 >= min_identity * (2 * n + k)`. The HSP spans [left end, right end);
its score is left best + right best - k * match, and its identity is >= min_identity by construction.

NumPy: every live seed reads a 32-base chunk at once; cumulative sums over the chunk give the
stop and the first best position inside it exactly. CuPy: one warp per run of seeds over
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


def _walk(qcodes, rcodes, qpos, rpos, step: int, k: int, extension: Extension):
    """Walk one side of every seed from (qpos, rpos), the first base read, in direction step (+1 or -1).

    Returns (best score, bases walked to the best position, identities among those bases).
    """
    xp = array_module(qpos)
    score_t, stop_t, same_t = (xp.asarray(t) for t in pair_tables(extension.match, extension.mismatch,
                                                                   extension.n_score))
    n = qpos.size
    score = xp.full(n, k * extension.match, dtype=xp.int64)
    best = score.copy()
    best_len = xp.zeros(n, dtype=xp.int64)
    best_ids = xp.zeros(n, dtype=xp.int64)
    ids = xp.zeros(n, dtype=xp.int64)
    walked = xp.zeros(n, dtype=xp.int64)
    offsets = xp.arange(CHUNK, dtype=xp.int64) * step
    counts = xp.arange(1, CHUNK + 1, dtype=xp.int64)
    live = xp.arange(n)
    while live.size:
        qi = qpos[live, None] + walked[live, None] * step + offsets
        ri = rpos[live, None] + walked[live, None] * step + offsets
        pair = qcodes[qi].astype(xp.int64) * 8 + rcodes[ri]
        stop = stop_t[pair]
        run = score[live, None] + xp.cumsum(score_t[pair], axis=1)
        run_ids = ids[live, None] + xp.cumsum(same_t[pair], axis=1)
        length = walked[live, None] + counts
        # where the side's identity (half the seed counted) clears the threshold
        ok = (2 * run_ids + k) * 100.0 >= extension.min_identity * (2 * length + k)
        candidate = xp.where(ok, run, NEG)
        dead = stop | (run < 0)
        if extension.xdrop:
            top = xp.maximum(xp.maximum.accumulate(candidate, axis=1), best[live, None])
            dead |= top - run > extension.xdrop
        ends = xp.where(dead.any(axis=1), dead.argmax(axis=1), CHUNK)
        candidate = xp.where(xp.arange(CHUNK) < ends[:, None], candidate, NEG)
        at = candidate.argmax(axis=1)
        rows = xp.arange(live.size)
        top = candidate[rows, at]
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


BATCH = 1 << 16  # seeds walked at once: each live seed holds a few 32-column int64 rows (about 3 KB)


def extend(qcodes, rcodes, sq, sr, k: int, extension: Extension):
    """HSPs of seeds: (qstart, qend, score, identities), int64, one row per seed, on the query axis.

    Seeds are walked BATCH at a time, so the temporaries stay near 200 MB however many seeds a tile has."""
    xp = array_module(sq)
    parts = []
    for at in range(0, sq.size, BATCH):
        q, r = sq[at:at + BATCH], sr[at:at + BATCH]
        right, right_len, right_ids = _walk(qcodes, rcodes, q + k, r + k, +1, k, extension)
        left, left_len, left_ids = _walk(qcodes, rcodes, q - 1, r - 1, -1, k, extension)
        parts.append((q - left_len, q + k + right_len, left + right - k * extension.match, k + left_ids + right_ids))
    if len(parts) == 1:
        return parts[0]
    if not parts:
        empty = xp.zeros(0, dtype=xp.int64)
        return empty, empty, empty, empty
    return tuple(xp.concatenate([p[i] for p in parts]) for i in range(4))


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
             cp.int32(e.mismatch), cp.int32(e.n_score), cp.int32(e.xdrop), cp.float64(e.min_identity),
             qstart, qend, score, ids))
    return qstart, qend, score.astype(cp.int64), ids.astype(cp.int64)
