"""Tiles: query x reference windows whose seeds fit a memory budget, counted before generation.

A tile owns the seeds whose query position lies in [q0, q1) and reference position in [r0, r1);
it also reads the words of a look-back margin of 2k-1 bases on both axes so the diagonal filter
sees every seed that could shadow an owned seed. The kept seeds are therefore the same for
every tiling, and so are the HSPs, since extension reads whole records.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from .seeds import count_seeds, seed_groups
from .words import words_in

log = logging.getLogger(__name__)

# Bytes a seed occupies while a tile is processed (positions, group indices, diagonal keys).
SEED_BYTES = 48


@dataclass(frozen=True)
class Tile:
    """Owned query window [q0, q1) x reference window [r0, r1), and its seed count with margins."""

    q0: int
    q1: int
    r0: int
    r1: int
    seeds: int = 0


def tile_words(words_q, words_r, tile: Tile, k: int):
    """The words a tile reads: owned windows plus the 2k-1 look-back margins."""
    margin = 2 * k - 1
    qk, qp = words_in(*words_q, tile.q0 - margin, tile.q1)
    rk, rp = words_in(*words_r, tile.r0 - margin, tile.r1)
    return qk, qp, rk, rp


def count_tile(words_q, words_r, tile: Tile, k: int) -> Tile:
    """The tile with its exact seed count."""
    qk, _, rk, _ = tile_words(words_q, words_r, tile, k)
    n = count_seeds(seed_groups(qk, rk))
    return Tile(tile.q0, tile.q1, tile.r0, tile.r1, n)


def grid(qtotal: int, rtotal: int, side: int) -> list[Tile]:
    """Tiles of at most side x side bases covering both axes (side 0: one tile)."""
    qside = side or qtotal
    rside = side or rtotal
    return [Tile(q0, min(q0 + qside, qtotal), r0, min(r0 + rside, rtotal))
            for q0 in range(0, qtotal, qside) for r0 in range(0, rtotal, rside)]


def split(tile: Tile) -> list[Tile]:
    """Halve a tile along its longer side."""
    if tile.q1 - tile.q0 >= tile.r1 - tile.r0:
        mid = (tile.q0 + tile.q1) // 2
        return [Tile(tile.q0, mid, tile.r0, tile.r1), Tile(mid, tile.q1, tile.r0, tile.r1)]
    mid = (tile.r0 + tile.r1) // 2
    return [Tile(tile.q0, tile.q1, tile.r0, mid), Tile(tile.q0, tile.q1, mid, tile.r1)]


def plan(words_q, words_r, qtotal: int, rtotal: int, k: int,
         budget_seeds: int, side: int = 0) -> list[Tile]:
    """Tiles covering the pair, each with at most budget_seeds seeds where a split can achieve it."""
    todo = [count_tile(words_q, words_r, t, k) for t in grid(qtotal, rtotal, side)]
    done: list[Tile] = []
    while todo:
        tile = todo.pop()
        small = max(tile.q1 - tile.q0, tile.r1 - tile.r0) <= 2 * k
        if tile.seeds <= budget_seeds or small:
            if tile.seeds:
                done.append(tile)
            continue
        todo.extend(count_tile(words_q, words_r, t, k) for t in split(tile))
    done.sort(key=lambda t: (t.q0, t.r0))
    return done
