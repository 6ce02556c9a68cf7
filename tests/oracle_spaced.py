"""Spaced seeds and their HSPs written plainly (gpu_kernels/spaced.py and spaced.h are the fast ones).

One record pair and one strand at a time, strings in, HSP tuples out as oracle.compare gives them
(qrec, rrec, qstart, qend, rstart, rend, strand, score, identities, length), the score in hundredths.
A seed is every pair of windows whose bases at the pattern's 1 positions are ACGT and equal, or with
`transitions` one of them a transition apart; reference windows whose key occurs more than max_freq
times in their record are left out, and with soft_mask every window holding a lowercase base. A seed
with another seed 1 to span bases before it on its diagonal is not extended.
"""
from __future__ import annotations

from types import SimpleNamespace

from oracle import clean, revcomp

HOXD70 = {"A": {"A": 91, "C": -114, "G": -31, "T": -123}, "C": {"A": -114, "C": 100, "G": -125, "T": -31},
          "G": {"A": -31, "C": -125, "G": 100, "T": -114}, "T": {"A": -123, "C": -31, "G": -114, "T": 91}}
TRANSITION = {("A", "G"), ("G", "A"), ("C", "T"), ("T", "C")}
PATTERNS = {"12of19": "1110100110010101111", "14of22": "1110101100110010101111"}


def column(a: str, b: str) -> int:
    return HOXD70[a][b] if a != "N" and b != "N" else -100


def care_bases(seq: str, i: int, pattern: str):
    """The window's bases at the 1 positions, or None where one of them is not ACGT."""
    bases = [seq[i + j] for j, c in enumerate(pattern) if c == "1"]
    return None if "N" in bases else bases


def is_seed(a, b, transitions: int) -> bool:
    changed = [(x, y) for x, y in zip(a, b) if x != y]
    return not changed or (transitions and len(changed) == 1 and changed[0] in TRANSITION)


def side(q: str, r: str, i: int, j: int, step: int, xdrop: int):
    """(best score, bases to it) of a walk from (i, j) by step: X-drop, the first best of a tie."""
    score = best = at = n = 0
    while 0 <= i < len(q) and 0 <= j < len(r):
        n += 1
        score += column(q[i], r[j])
        if score > best:
            best, at = score, n
        elif score < best - xdrop:
            break
        i += step
        j += step
    return best, at


def scaled(score: int, bases: str) -> int:
    """The score kept whole where the Gini-Simpson index of the ACGT bases is 0.7 or more, nothing at
    0.4 or less, and cut linearly between (integer steps, as spaced.h takes them)."""
    counts = [bases.count(b) for b in "ACGT"]
    shift = 0
    while sum(counts) >> shift >= 1 << 20:
        shift += 1
    counts = [c >> shift for c in counts]
    m = sum(counts)
    if score <= 0 or m == 0:
        return score
    num, den = 10 * (m * m - sum(c * c for c in counts)) - 4 * m * m, 3 * m * m
    if num >= den:
        return score
    if num <= 0:
        return 0
    return score * (num * 1024 // den) // 1024


def unmasked(seq: str, i: int, span: int, masked: str | None) -> bool:
    """Whether the window holds no soft-masked base (masked: the record as written, lowercase kept)."""
    return masked is None or not any(c.islower() for c in masked[i:i + span])


def hsps_one_strand(q: str, r: str, p, qmask: str | None = None, rmask: str | None = None) -> set:
    pattern = PATTERNS.get(p.seed, p.seed)
    span = len(pattern)
    rwins = {j: care_bases(r, j, pattern) for j in range(len(r) - span + 1) if unmasked(r, j, span, rmask)}
    rwins = {j: w for j, w in rwins.items() if w is not None}
    if p.max_freq:
        freq: dict = {}
        for w in rwins.values():
            freq[tuple(w)] = freq.get(tuple(w), 0) + 1
        rwins = {j: w for j, w in rwins.items() if freq[tuple(w)] <= p.max_freq}
    seeds = set()
    for i in range(len(q) - span + 1):
        a = care_bases(q, i, pattern)
        if a is None or not unmasked(q, i, span, qmask):
            continue
        seeds |= {(i, j) for j, b in rwins.items() if is_seed(a, b, p.transitions)}
    found = set()
    for i, j in seeds:
        if any((i - d, j - d) in seeds for d in range(1, span + 1)):
            continue  # shadowed: a seed 1 to span bases before it on its diagonal
        right, rn = side(q, r, i + span, j + span, 1, p.hsp_xdrop)
        left, ln = side(q, r, i - 1, j - 1, -1, p.hsp_xdrop)
        score = sum(column(q[i + t], r[j + t]) for t in range(span)) + right + left
        qs, qe, rs = i - ln, i + span + rn, j - ln
        if p.entropy:
            score = scaled(score, q[qs:qe])
        if score >= p.hsp_threshold:
            ids = sum(x == y != "N" for x, y in zip(q[qs:qe], r[rs:rs + qe - qs]))
            found.add((qs, qe, rs, rs + qe - qs, score // 100, ids))
    return {h for h in found
            if not any(o != h and o[0] - o[2] == h[0] - h[2] and o[0] <= h[0] and h[1] <= o[1] for o in found)}


def compare(queries: list[str], references: list[str], p) -> set:
    """The HSP set of spaced seeds, every record pair, both strands as asked (p: Params or names)."""
    if hasattr(p, "as_dict"):
        p = SimpleNamespace(**p.as_dict())
    soft = getattr(p, "soft_mask", False)
    out = set()
    for qi, written_q in enumerate(queries):
        q, qmask = clean(written_q), written_q if soft else None
        for ri, written_r in enumerate(references):
            r, rmask = clean(written_r), written_r if soft else None
            if p.strands in ("forward", "both"):
                for qs, qe, rs, re_, sc, ids in hsps_one_strand(q, r, p, qmask, rmask):
                    out.add((qi, ri, qs, qe, rs, re_, 0, sc, ids, qe - qs))
            if p.strands in ("reverse", "both"):
                for qs, qe, rs, re_, sc, ids in hsps_one_strand(q, revcomp(r), p, qmask, rmask and rmask[::-1]):
                    out.add((qi, ri, qs, qe, len(r) - re_, len(r) - rs, 1, sc, ids, qe - qs))
    return out
