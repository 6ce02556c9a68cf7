"""The oracle: the engine's definition, written plainly, one record pair and one seed at a time.

Slow and obviously correct; it shares no code with gpu_kernels: sequences
come in as strings, HSPs go out as tuples
(qrec, rrec, qstart, qend, rstart, rend, strand, score, identities, length),
reverse-strand reference coordinates on the forward strand.
"""
from __future__ import annotations

from types import SimpleNamespace

ACGT = "ACGT"
COMP = {"A": "T", "C": "G", "G": "C", "T": "A"}


def clean(seq: str) -> str:
    """Upper case, every non-ACGT letter as N."""
    return "".join(ch if ch in ACGT else "N" for ch in seq.upper())


def revcomp(seq: str) -> str:
    return "".join(COMP.get(ch, "N") for ch in reversed(seq))


def pair_score(a: str, b: str, p) -> int:
    if a == "N" or b == "N":
        return p.n_score
    return p.match if a == b else p.mismatch


def walk(q: str, r: str, i: int, j: int, step: int, p):
    """Walk one side of a seed from (i, j) in direction step, starting from score k * match.

    The end moves to the n-th base only where the score there beats the side's best so far and
    the side's identity, counting half the seed, clears min_identity. The walk stops when the
    score drops below 0, falls more than xdrop below the side's best, or the record ends.
    Returns (best score, bases to the best, identities to it)."""
    k = p.k
    score = best = k * p.match
    best_len = best_ids = ids = n = 0
    while 0 <= i < len(q) and 0 <= j < len(r):
        score += pair_score(q[i], r[j], p)
        ids += q[i] == r[j] != "N"
        n += 1
        if score > best and (2 * ids + k) * 100.0 >= p.min_identity * (2 * n + k):
            best, best_len, best_ids = score, n, ids
        if score < 0 or (p.xdrop and best - score > p.xdrop):
            break
        i += step
        j += step
    return best, best_len, best_ids


def seeds(q: str, r: str, p):
    """All (qpos, rpos) with equal ACGT-only k-mers, max_freq applied."""
    k = p.k
    index: dict[str, list[int]] = {}
    for j in range(len(r) - k + 1):
        word = r[j:j + k]
        if "N" not in word:
            index.setdefault(word, []).append(j)
    qcount: dict[str, int] = {}
    for i in range(len(q) - k + 1):
        qcount[q[i:i + k]] = qcount.get(q[i:i + k], 0) + 1
    out = set()
    for i in range(len(q) - k + 1):
        word = q[i:i + k]
        if "N" in word or word not in index:
            continue
        if p.max_freq and (qcount[word] > p.max_freq or len(index[word]) > p.max_freq):
            continue
        for j in index[word]:
            out.add((i, j))
    return out


def hsps_one_strand(q: str, r: str, p):
    """HSPs (qstart, qend, rstart, rend, score, identities) of q against r."""
    k = p.k
    all_seeds = seeds(q, r, p)
    found = set()
    for (i, j) in all_seeds:
        if any((i - d, j - d) in all_seeds for d in range(1, 2 * k)):
            continue  # shadowed by a seed 1..2k-1 bases before it on its diagonal
        right, rlen, rids = walk(q, r, i + k, j + k, +1, p)
        left, llen, lids = walk(q, r, i - 1, j - 1, -1, p)
        qs, qe = i - llen, i + k + rlen
        found.add((qs, qe, j - llen, j + k + rlen, left + right - k * p.match, k + lids + rids))
    kept = [h for h in found
            if h[1] - h[0] >= p.min_len and h[5] * 100.0 >= p.min_identity * (h[1] - h[0])]
    return [h for h in kept
            if not any(o != h and o[0] - o[2] == h[0] - h[2] and o[0] <= h[0] and h[1] <= o[1] for o in kept)]


def compare(queries: list[str], references: list[str], p) -> set:
    """The HSP set of every query record against every reference record, both strands as asked.

    p: anything with the flat parameter names (a gpu_kernels.Params is read through as_dict())."""
    if hasattr(p, "as_dict"):
        p = SimpleNamespace(**p.as_dict())
    out = set()
    for qi, q in enumerate(queries):
        q = clean(q)
        for ri, r in enumerate(references):
            r = clean(r)
            if p.strands in ("forward", "both"):
                for qs, qe, rs, re_, sc, ids in hsps_one_strand(q, r, p):
                    out.add((qi, ri, qs, qe, rs, re_, 0, sc, ids, qe - qs))
            if p.strands in ("reverse", "both"):
                for qs, qe, rs, re_, sc, ids in hsps_one_strand(q, revcomp(r), p):
                    out.add((qi, ri, qs, qe, len(r) - re_, len(r) - rs, 1, sc, ids, qe - qs))
    return out
