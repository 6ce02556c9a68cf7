"""MUMs (matches.py's definitions): which MEMs are unique, and the MUMs shorter than the exact-match
modes' words.

A MUM's string occurs once in the reference and once in its query record (on that strand), so a MUM
of length L is an L-mer met exactly once on each side whose occurrence pair cannot be extended. Word
pairs grow with a word's frequency squared: `mums -l 4` on two 100 kb sequences walked tens of
millions of MEMs (34-44 s, 3.4 GB; `-l 2` was killed at 23.6 GB) where mummer's suffix tree takes
0.06 s. So matches.iter_matches finds the MUMs of at least word_floor bases from words as before (a
MEM's containers are at least as long, so their uniqueness is the same), and short_mums those of
lengths min_match .. word_floor - 1 length by length, each length's words (the exact-match modes'
own) counted on both sides (sorts, no pairs).
"""
from __future__ import annotations

import math

import numpy as np

from .arrays import array_module, running_max
from .encode import BORDER
from .hsps import order_by
from .seqset import SeqSet, reverse_complement
from .words import MAX_K, compiled_words

# Words of at least the sequences' log4 size plus this many symbols are met about once in 4 ** FLOOR_MARGIN
# positions by chance: their pairs stay few
FLOOR_MARGIN = 4


def unique_mask(qrec, qs, rs, length):
    """MUMs among MEMs: the query interval inside no other MEM and the reference interval inside no
    other MEM of the same query record (MEMs of one strand; NumPy or CuPy arrays)."""
    xp = array_module(qs)
    if qs.size == 0:
        return xp.zeros(0, dtype=bool)
    alone_in_reference = ~_contained(qrec, qs, qs + length)
    alone_in_query = ~_contained(qrec, rs, rs + length)
    return alone_in_reference & alone_in_query


def _contained(group, start, end):
    """Whether each interval lies inside another interval of its group (equal intervals count): rows
    ordered by group, start and end descending; an interval is inside when the running maximum of
    the ends before it reaches its end."""
    xp = array_module(start)
    n = start.size
    top = int(end.max())
    order = order_by([group, start, top - end], [int(group.max()) + 1, int(start.max()) + 1, top - int(end.min()) + 1])
    g, s, e = group[order], start[order], end[order]
    new = xp.ones(n, dtype=bool)
    new[1:] = g[1:] != g[:-1]
    lifted = xp.cumsum(new, dtype=xp.int64) * (top + 1) + e  # a group's ends above every earlier group's
    running = running_max(lifted)
    inside = xp.zeros(n, dtype=bool)
    inside[1:] = (lifted[1:] <= running[:-1]) & ~new[1:]
    same = xp.zeros(n, dtype=bool)
    same[1:] = (g[1:] == g[:-1]) & (s[1:] == s[:-1]) & (e[1:] == e[:-1])
    same[:-1] |= same[1:]
    out = xp.empty(n, dtype=bool)
    out[order] = inside | same
    return out


def word_floor(query: SeqSet, reference: SeqSet, min_match: int) -> int:
    """The shortest MUM length found from words (matches.iter_matches); shorter ones come from
    short_mums. min_match where it is already that long."""
    bases = max(int(query.total), int(reference.total), 4)
    return max(min_match, min(MAX_K, math.ceil(math.log(bases, 4)) + FLOOR_MARGIN))


def _once(keys: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """Indices of the entries of sorted keys met once (once in their group, where groups, ascending
    within a key's run, are given)."""
    new = np.ones(keys.size + 1, dtype=bool)
    new[1:-1] = keys[1:] != keys[:-1]
    if groups is not None:
        new[1:-1] |= groups[1:] != groups[:-1]
    starts = np.flatnonzero(new)
    return starts[:-1][np.diff(starts) == 1]


def _extends(qcodes, rcodes, qs, rs) -> np.ndarray:
    """Whether the symbols at qs and rs (a position each, maybe outside) are equal and not borders: the
    match goes on there."""
    inside = (qs >= 0) & (qs < qcodes.size) & (rs >= 0) & (rs < rcodes.size)
    q = np.where(inside, qcodes[np.clip(qs, 0, qcodes.size - 1)], BORDER)
    r = np.where(inside, rcodes[np.clip(rs, 0, rcodes.size - 1)], BORDER)
    return inside & (q == r) & (q != BORDER)


def short_mums(query: SeqSet, reference: SeqSet, lo: int, hi: int) -> dict:
    """The MUMs of lengths lo .. hi - 1 of both query strands, on the host, as a matches table (qrec,
    rrec, strand, qstart, rstart, length; record coordinates) in no particular order. A length's words
    (words.compiled_words: 3 bits a symbol, sorted, positions ascending within a key) are made once a
    side: the reference's met once, each strand's met once in its record, paired by key."""
    qcodes, rcodes = np.asarray(query.codes), np.asarray(reference.codes)
    strands = [(qcodes, np.asarray(query.starts, dtype=np.int64)),
               (reverse_complement(qcodes), np.asarray(query.reverse_starts()[::-1], dtype=np.int64))]
    found: list = [[], []]
    for length in range(lo, hi):
        rkeys, rpos = compiled_words(rcodes, length, 3)
        once = _once(rkeys)
        rkeys, rpos = rkeys[once], rpos[once].astype(np.int64)
        for (codes, starts), made in zip(strands, found):
            qkeys, qpos = compiled_words(codes, length, 3)
            qpos = qpos.astype(np.int64)
            once = _once(qkeys, np.searchsorted(starts, qpos, side="right"))
            qkeys, qpos = qkeys[once], qpos[once]
            at = np.searchsorted(rkeys, qkeys)
            hit = at < rkeys.size
            hit[hit] = rkeys[at[hit]] == qkeys[hit]
            qs, rs = qpos[hit], rpos[at[hit]]
            maximal = ~_extends(codes, rcodes, qs - 1, rs - 1) & ~_extends(codes, rcodes, qs + length, rs + length)
            made.append((qs[maximal], rs[maximal], np.full(int(maximal.sum()), length, dtype=np.int64)))
    rstarts = np.asarray(reference.starts, dtype=np.int64)
    tables = []
    for strand, ((_, starts), made) in enumerate(zip(strands, found)):
        qs, rs, length = (np.concatenate([m[c] for m in made]) if made else np.zeros(0, dtype=np.int64)
                          for c in range(3))
        qrec = np.searchsorted(starts, qs, side="right") - 1
        rrec = np.searchsorted(rstarts, rs, side="right") - 1
        tables.append({"qrec": qrec if strand == 0 else len(query.names) - 1 - qrec, "rrec": rrec,
                       "strand": np.full(qs.size, strand, dtype=np.int64), "qstart": qs - starts[qrec],
                       "rstart": rs - rstarts[rrec], "length": length})
    return {name: np.concatenate([t[name] for t in tables]).astype(np.int64) for name in tables[0]}
