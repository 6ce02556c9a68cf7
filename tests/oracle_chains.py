"""The chains' oracle: the definition (docs/DEFINITIONS.md, "What a chain is"), written plainly: a quadratic DP
over every pair of HSPs of a record pair and strand, the chains taken best-first, the backbone
kept chain by chain with a set of covered bases. Shares no code with gpu_kernels.

HSPs come in as dicts of equal-length lists (qrec, rrec, strand, qstart, qend, rstart, rend,
score, identities), with the reference record lengths; the result is, for every HSP row, its chain
number (-1: in no chain) and, for every chain, (score, backbone) in chain order. The backbone keeps
a chain where more than half of its aligned bases (its HSPs, each trimmed at its start by its
overlap with the one before) are new on both genomes, in two rounds: within each record pair, then
among the first round's chains of every record pair.
"""
from __future__ import annotations


def chain_coords(h: dict, i: int, rlens) -> tuple[int, int, int, int]:
    """(x, xe, y, ye): the HSP on the query and on the reference's strand it was found on (the
    reverse strand's coordinates count from the reference record's end)."""
    x, xe = h["qstart"][i], h["qend"][i]
    if h["strand"][i] == 0:
        return x, xe, h["rstart"][i], h["rend"][i]
    rlen = rlens[h["rrec"][i]]
    return x, xe, rlen - h["rend"][i], rlen - h["rstart"][i]


def link(j, i, p) -> int | None:
    """What HSP i adds after HSP j (both (x, xe, y, ye, score)): its trimmed score less the gap cost,
    or None where j cannot come before i."""
    x, xe, y, ye, score = i
    jx, jxe, jy, jye, _ = j
    if not (jx < x and jy < y and jxe < xe and jye < ye):
        return None
    dx, dy = x - jxe, y - jye
    if dx > p.max_gap or dy > p.max_gap or abs(dx - dy) > p.max_shift:
        return None
    overlap = max(0, -dx, -dy)
    length = xe - x
    if overlap >= length:
        return None
    gain = score * (length - overlap) // length
    shift = abs(dx - dy)
    gap = min(dx, dy) + overlap
    cost = (p.chain_gap_open if shift else 0) + shift * p.chain_gap_extend + gap * p.chain_gap_base // 100
    return gain - cost


def chains(h: dict, rlens, p) -> tuple[list[int], list[tuple[int, int]]]:
    n = len(h["qstart"])
    coords = [chain_coords(h, i, rlens) + (h["score"][i],) for i in range(n)]
    group = [(h["qrec"][i], h["rrec"][i], h["strand"][i]) for i in range(n)]
    # the DP order: record pair, strand, qstart, rstart, qend, then the row
    order = sorted(range(n), key=lambda i: (group[i], h["qstart"][i], h["rstart"][i], h["qend"][i], i))
    rank = {i: at for at, i in enumerate(order)}
    best, pred = {}, {}
    for i in order:
        best[i], pred[i] = coords[i][4], -1
        for j in order[:rank[i]]:
            if group[j] != group[i]:
                continue
            add = link(coords[j], coords[i], p)
            if add is None:
                continue
            value = best[j] + add
            # a predecessor when it beats the HSP alone; among equal ones the latest in the order
            if value > best[i] or (value == best[i] and pred[i] != -1 and rank[j] > rank[pred[i]]):
                best[i], pred[i] = value, j
    chain_of = [-1] * n
    taken: list[tuple[int, list[int]]] = []
    used = set()
    for i in sorted(range(n), key=lambda i: (-best[i], rank[i])):
        if i in used:
            continue
        path, at = [], i
        while at != -1 and at not in used:
            path.append(at)
            at = pred[at]
        for member in path:
            used.add(member)
        score = best[i] - (best[at] if at != -1 else 0)
        if score >= p.min_chain_score:
            taken.append((score, path[::-1]))
    # chain numbers: score descending, then the first HSP's place in the order
    taken.sort(key=lambda c: (-c[0], rank[c[1][0]]))
    for number, (_, members) in enumerate(taken):
        for member in members:
            chain_of[member] = number
    bases = []
    for score, members in taken:
        # the chain's aligned bases: each member trimmed at its start by its overlap with the one before
        qbases, rbases = set(), set()
        previous = None
        for m in members:
            x, xe, y, ye, _ = coords[m]
            trim = 0 if previous is None else max(0, coords[previous][1] - x, coords[previous][3] - y)
            rlen = rlens[h["rrec"][m]]
            qbases.update((h["qrec"][m], b) for b in range(x + trim, xe))
            rspan = range(y + trim, ye) if h["strand"][m] == 0 else range(rlen - ye, rlen - y - trim)
            rbases.update((h["rrec"][m], b) for b in rspan)
            previous = m
        bases.append((qbases, rbases))

    def greedy(chosen: list[int]) -> set[int]:
        """The chains (numbers, in number order) kept by one round over `chosen`."""
        covered = {"q": set(), "r": set()}
        kept = set()
        for c in chosen:
            qbases, rbases = bases[c]
            if 2 * len(qbases - covered["q"]) > len(qbases) and 2 * len(rbases - covered["r"]) > len(rbases):
                covered["q"] |= qbases
                covered["r"] |= rbases
                kept.add(c)
        return kept

    # two rounds: within each record pair, then among the first round's chains of every record pair
    pair_of = [(h["qrec"][members[0]], h["rrec"][members[0]]) for _, members in taken]
    first = set()
    for pair in set(pair_of):
        first |= greedy([c for c in range(len(taken)) if pair_of[c] == pair])
    kept = greedy(sorted(first))
    return chain_of, [(score, int(c in kept)) for c, (score, _) in enumerate(taken)]


def column_score(a: int, b: int, p) -> int:
    """An HSP's score of a column of codes a and b (N is code 4)."""
    if a == 4 or b == 4:
        return p.n_score
    return p.match if a == b else p.mismatch


TANDEM_UNIT, TANDEM_FLANK = 6, 10


def tandem(q, least: int) -> list[bool]:
    """Whether each position of the codes q lies in a tandem run: a stretch of at least `least`
    ACGT bases, each base from the unit's length (1 to TANDEM_UNIT) on equal to the one that many
    before it."""
    inside = [False] * len(q)
    for unit in range(1, TANDEM_UNIT + 1):
        for s in range(len(q)):
            e = s  # the longest such stretch from s
            while e < len(q) and q[e] < 4 and (e < s + unit or q[e] == q[e - unit]):
                e += 1
            if e - s >= least:
                for i in range(s, e):
                    inside[i] = True
    return inside


def block_score(a: int, b: int, p) -> int:
    """A column's score where a block is read for drops: a mismatch scores block_mismatch."""
    if a == 4 or b == 4:
        return p.n_score
    return p.match if a == b else p.block_mismatch


def refine(blocks: list, q, r, p) -> list:
    """A chain's blocks as written (docs/DEFINITIONS.md "What a chain is", 6). blocks: (x0, xe, y0, ye, trim) of its
    members in chain order, trimmed at their starts; q: the query record's codes, r: the codes of the
    reference record's strand of the chain. Returns the pieces (x0, xe, y0, ye, identities)."""
    pieces = _refine(blocks, q, r, p, p.block_tandem)
    if p.block_tandem and not pieces:  # a chain all tandem runs keeps its pieces
        pieces = _refine(blocks, q, r, p, 0)
    return pieces


def _refine(blocks: list, q, r, p, least: int) -> list:
    """refine with tandem runs of at least `least` bases left out at the pieces' ends (0: none)."""
    inside = tandem(q, least) if least else [False] * len(q)
    starts = [x0 for x0, *_ in blocks]
    ends = [xe for _, xe, *_ in blocks]
    for k in range(1, len(blocks)):
        (ax0, axe, ay0, _, _), (bx0, _, by0, _, btrim) = blocks[k - 1], blocks[k]
        if btrim == 0:
            continue
        da, db = ax0 - ay0, bx0 - by0
        shift = max(0, db - da)
        lo, hi = max(ax0 + 1, bx0 - btrim - shift), axe

        def total(c):
            return (sum(column_score(q[t], r[t - da], p) for t in range(lo, c))
                    + sum(column_score(q[t + shift], r[t + shift - db], p) for t in range(c, hi)))

        scores = [total(c) for c in range(lo, hi + 1)]
        c = lo + scores.index(max(scores))  # the first of the best
        ends[k - 1], starts[k] = c, c + shift
    pieces = []
    for (x0, _, y0, _, _), s, e in zip(blocks, starts, ends):
        d = x0 - y0
        cols = [block_score(q[t], r[t - d], p) for t in range(s, e)]
        score = [0]
        for v in cols:
            score.append(score[-1] + v)
        kept, seg, peak, i, n = [], 0, 0, 0, len(cols)
        while i < n:
            i += 1
            high = max(score[seg:i])  # the segment's highest point so far; peak: the first place of it
            if score[i] > high:
                peak = i
            elif p.block_drop and score[i] <= high - p.block_drop:
                # a drop: from the peak to the lowest point before the score rises block_drop above it
                bottom = i
                for k in range(i + 1, n + 1):
                    if score[k] >= score[bottom] + p.block_drop:
                        break
                    if score[k] <= score[bottom]:
                        bottom = k
                if peak > seg:
                    kept.append((seg, peak))
                seg = peak = i = bottom
        if n > seg:
            kept.append((seg, n))
        elif not kept:  # cut whole: kept whole
            kept.append((0, n))
        for a, z in kept:
            a, z = s + a, s + z
            # the piece's ends move past tandem runs: to the first start with none in the next
            # TANDEM_FLANK columns, the last end with none in the TANDEM_FLANK before it
            a = next((t for t in range(a, z) if not any(inside[t:min(t + TANDEM_FLANK, z)])), z)
            z = next((t for t in range(z, a, -1) if not any(inside[max(t - TANDEM_FLANK, a):t])), a)
            if z > a:
                ids = sum(q[t] == r[t - d] and q[t] != 4 for t in range(a, z))
                pieces.append((a, z, a - d, z - d, ids))
    return pieces
