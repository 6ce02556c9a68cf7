"""Base-exact GECKO extension, vectorized over all live seeds, 32 bases a step.

Per seed: start with score k*match after the seed and walk right base by base; remember the
first position of the best score; stop when the score drops below 0 or the record ends (a
BORDER code). Then walk left from the seed start, continuing from the best right score, the same
way. The HSP spans [best left, best right). Every live seed reads a 32-base chunk at once; the
cumulative score over the chunk gives the stop and the first best position inside it exactly.
"""
from __future__ import annotations

import numpy as np

from .encode import BORDER, N_CODE, array_module

CHUNK = 32
NEG = np.int64(-(1 << 62))


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


def extend(qcodes, rcodes, sq, sr, k: int, tables, match: int, xdrop: int = 0):
    """HSPs of seeds: (qstart, qend, score, identities) with qstart/qend on the query axis."""
    xp = array_module(sq)
    seed_score = xp.full(sq.size, k * match, dtype=xp.int64)
    right, right_len, right_ids = _walk(qcodes, rcodes, sq + k, sr + k, seed_score, +1, tables, xdrop)
    score, left_len, left_ids = _walk(qcodes, rcodes, sq - 1, sr - 1, right, -1, tables, xdrop)
    return sq - left_len, sq + k + right_len, score, k + left_ids + right_ids
