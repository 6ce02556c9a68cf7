"""MUMs (matches.py's definitions): which MEMs are unique, and the MUMs shorter than the exact-match
modes' words.

A MUM's string occurs once in the reference and once in its query record (on that strand), so a MUM
of length L is an L-mer met exactly once on each side whose occurrence pair cannot be extended. Word
pairs grow with a word's frequency squared: `mums -l 4` on two 100 kb sequences walked tens of
millions of MEMs (34-44 s, 3.4 GB; `-l 2` was killed at 23.6 GB) where mummer's suffix tree takes
0.06 s. So matches.iter_matches finds the MUMs of at least word_floor bases from words as before (a
MEM's containers are at least as long, so their uniqueness is the same), and short_mums those of
lengths min_match .. word_floor - 1 L-mer by L-mer, counting each length's L-mers on both sides
(sorts, no pairs).
"""
from __future__ import annotations

import math

import numpy as np

from .arrays import array_module, running_max
from .encode import BORDER
from .hsps import order_by
from .seqset import SeqSet, reverse_complement

# Words of at least the sequences' log4 size plus this many symbols are met about once in 4 ** FLOOR_MARGIN
# positions by chance: their pairs stay few
FLOOR_MARGIN = 4
MAX_SHORT = 21  # 3 bits a symbol in a uint64 key


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
    return max(min_match, min(MAX_SHORT, math.ceil(math.log(bases, 4)) + FLOOR_MARGIN))


def _keys(codes: np.ndarray, length: int, previous: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(keys, valid) of the L-mer starting at each position (L = length; 3 bits a symbol; valid: no
    border code in it and room for it), grown from the (L-1)-mers' keys where given."""
    n = codes.size - length + 1
    if n <= 0:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=bool)
    if previous is None:
        keys = np.zeros(n, dtype=np.uint64)
        for i in range(length):
            keys = (keys << np.uint64(3)) | codes[i:i + n].astype(np.uint64)
    else:
        keys = (previous[:n] << np.uint64(3)) | codes[length - 1:length - 1 + n].astype(np.uint64)
    borders = np.concatenate(([0], np.cumsum(codes == BORDER, dtype=np.int64)))
    valid = borders[length:length + n] - borders[:n] == 0
    return keys, valid


def _once(groups: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Indices of the (group, key) pairs that occur exactly once."""
    order = np.lexsort((keys, groups))
    g, k = groups[order], keys[order]
    new = np.ones(order.size + 1, dtype=bool)
    new[1:-1] = (g[1:] != g[:-1]) | (k[1:] != k[:-1])
    starts = np.flatnonzero(new[:-1])
    counts = np.diff(np.flatnonzero(new))
    return order[starts[counts == 1]]


def _extends(qcodes, rcodes, qs, rs) -> np.ndarray:
    """Whether the symbols at qs and rs (a position each, maybe outside) are equal and not borders: the
    match goes on there."""
    inside = (qs >= 0) & (qs < qcodes.size) & (rs >= 0) & (rs < rcodes.size)
    q = np.where(inside, qcodes[np.clip(qs, 0, qcodes.size - 1)], BORDER)
    r = np.where(inside, rcodes[np.clip(rs, 0, rcodes.size - 1)], BORDER)
    return inside & (q == r) & (q != BORDER)


def strand_short_mums(qcodes: np.ndarray, qstarts: np.ndarray, rcodes: np.ndarray, lo: int, hi: int) -> tuple:
    """The MUMs of lengths lo .. hi - 1 between one query strand's codes (records laid end to end from
    qstarts, ascending) and the reference's: (qs, rs, length), positions in the concatenations."""
    found = []
    qkeys = rkeys = None
    for length in range(1, hi):
        qkeys, qvalid = _keys(qcodes, length, qkeys)
        rkeys, rvalid = _keys(rcodes, length, rkeys)
        if length < lo:
            continue
        rpos = np.flatnonzero(rvalid)
        rpos = rpos[_once(np.zeros(rpos.size, dtype=np.int64), rkeys[rpos])]
        qpos = np.flatnonzero(qvalid)
        qrec = np.searchsorted(qstarts, qpos, side="right") - 1
        qpos = qpos[_once(qrec, qkeys[qpos])]
        # the query's L-mers met once in their record, paired with the reference's met once
        rorder = np.argsort(rkeys[rpos], kind="stable")
        rsorted = rkeys[rpos][rorder]
        at = np.searchsorted(rsorted, qkeys[qpos])
        hit = at < rsorted.size
        hit[hit] = rsorted[at[hit]] == qkeys[qpos][hit]
        qs, rs = qpos[hit], rpos[rorder[at[hit]]]
        maximal = ~_extends(qcodes, rcodes, qs - 1, rs - 1) & ~_extends(qcodes, rcodes, qs + length, rs + length)
        found.append((qs[maximal], rs[maximal], np.full(int(maximal.sum()), length, dtype=np.int64)))
    if not found:
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(3))
    return tuple(np.concatenate([f[c] for f in found]).astype(np.int64) for c in range(3))


def short_mums(query: SeqSet, reference: SeqSet, lo: int, hi: int) -> dict:
    """The MUMs of lengths lo .. hi - 1 of both query strands, on the host, as a matches table (qrec,
    rrec, strand, qstart, rstart, length; record coordinates) in no particular order."""
    qcodes, rcodes = np.asarray(query.codes), np.asarray(reference.codes)
    rstarts = np.asarray(reference.starts, dtype=np.int64)
    strands = []
    for strand in (0, 1):
        codes = qcodes if strand == 0 else reverse_complement(qcodes)
        starts = np.asarray(query.starts if strand == 0 else query.reverse_starts()[::-1], dtype=np.int64)
        qs, rs, length = strand_short_mums(codes, starts, rcodes, lo, hi)
        qrec = np.searchsorted(starts, qs, side="right") - 1
        qs = qs - starts[qrec]
        if strand == 1:
            qrec = len(query.names) - 1 - qrec
        rrec = np.searchsorted(rstarts, rs, side="right") - 1
        strands.append({"qrec": qrec.astype(np.int64), "rrec": rrec.astype(np.int64),
                        "strand": np.full(qs.size, strand, dtype=np.int64), "qstart": qs, "rstart": rs - rstarts[rrec],
                        "length": length})
    return {name: np.concatenate([s[name] for s in strands]) for name in strands[0]}
