"""Tiles: query x reference windows whose seeds fit a memory budget, counted before generation.

The engine starts from one tile (or a grid of tile_len-sided ones), counts each tile's seeds
exactly from its word lists, and halves a tile that would not fit before generating anything.

A tile owns the seeds whose query position lies in [q0, q1) and reference position in [r0, r1);
it also reads the words of a look-back margin of 2k-1 bases on both axes so the diagonal filter
sees every seed that could shadow an owned seed. The kept seeds are therefore the same for
every tiling, and so are the HSPs, since extension reads whole records.
"""
from __future__ import annotations

from dataclasses import dataclass

@dataclass(frozen=True)
class Tile:
    """Owned query window [q0, q1) x reference window [r0, r1)."""

    q0: int
    q1: int
    r0: int
    r1: int


def tile_words(words_q, words_r, tile: Tile, k: int, qtotal: int, rtotal: int, words_in):
    """The words a tile reads: owned windows plus the 2k-1 look-back margins (words_in: the
    backend's words.words_in)."""
    margin = 2 * k - 1
    qk, qp = words_in(*words_q, tile.q0 - margin, tile.q1, qtotal)
    rk, rp = words_in(*words_r, tile.r0 - margin, tile.r1, rtotal)
    return qk, qp, rk, rp


def grid(qtotal: int, rtotal: int, side: int) -> list[Tile]:
    """Tiles of at most side x side bases covering both axes (side 0: one tile)."""
    qside = side or qtotal
    rside = side or rtotal
    return [Tile(q0, min(q0 + qside, qtotal), r0, min(r0 + rside, rtotal))
            for q0 in range(0, qtotal, qside) for r0 in range(0, rtotal, rside)]


def splittable(tile: Tile, k: int) -> bool:
    """Whether halving the tile can still lower its seed count (a side longer than 2k)."""
    return max(tile.q1 - tile.q0, tile.r1 - tile.r0) > 2 * k


def split(tile: Tile, parts: int = 2) -> list[Tile]:
    """Cut a tile along its longer side into `parts` strips of nearly equal length (at least 2, at
    most one a base pair)."""
    if tile.q1 - tile.q0 >= tile.r1 - tile.r0:
        cuts = _cuts(tile.q0, tile.q1, parts)
        return [Tile(a, b, tile.r0, tile.r1) for a, b in zip(cuts, cuts[1:])]
    cuts = _cuts(tile.r0, tile.r1, parts)
    return [Tile(tile.q0, tile.q1, a, b) for a, b in zip(cuts, cuts[1:])]


def _cuts(lo: int, hi: int, parts: int) -> list[int]:
    parts = max(2, min(parts, (hi - lo) // 2))
    return sorted({lo + (hi - lo) * i // parts for i in range(parts + 1)})
