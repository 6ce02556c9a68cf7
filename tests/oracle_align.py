"""The gapped alignments' oracle: the definition (docs/DEFINITIONS.md, "What an alignment is"), written plainly:
anchors found base by base, every gap between two anchors aligned by a full (dx + 1) x (dy + 1)
Gotoh matrix whose cells off the band are -infinity, the traceback with the stated preferences, the
chain split where a gap's fill scores under -zdrop less gap_extend a base of its shift, and cut where the
running score with the drop scores falls zdrop below its best (drop_cuts). Shares no code with gpu_kernels.

A chain comes in as its blocks, [(x0, xe, y0, ye), ...] on the query and on the reference strand of
the chain, and the two sequences as strings of codes (0-3 ACGT, 4 anything else), the reference
already on the chain's strand. The result is its alignments: (x0, xe, y0, ye, score, ops) with ops
one letter a column, `=` `X` `I` (a query base against none) `D` (a reference base against none).
"""
from __future__ import annotations

NEG = float("-inf")


def microsatellite(bases) -> bool:
    """Whether bases repeat one unit of 1 to 6 bases from end to end."""
    return any(all(bases[i] == bases[i + p] for i in range(len(bases) - p)) for p in range(1, min(6, len(bases) - 1) + 1))


def anchors(blocks, q, r, min_anchor: int) -> list[tuple[int, int, int]]:
    """(x, y, length) of every run of at least min_anchor identical ACGT columns inside a block, but
    microsatellites."""
    out = []
    for x0, xe, y0, ye in blocks:
        run = 0
        for t in range(xe - x0 + 1):
            same = t < xe - x0 and q[x0 + t] == r[y0 + t] and q[x0 + t] < 4
            if same:
                run += 1
                continue
            if run >= min_anchor and not microsatellite(q[x0 + t - run:x0 + t]):
                out.append((x0 + t - run, y0 + t - run, run))
            run = 0
    return out


def column(a, b, p) -> int:
    """A column's score: align_match for equal ACGT bases, 0 where either is N (unknown), else
    -align_mismatch."""
    if a > 3 or b > 3:
        return 0
    return p.align_match if a == b else -p.align_mismatch


def unknown(qs, rs, ops: str) -> int:
    """The X columns of ops (the path through qs and rs) that hold an N."""
    i = j = count = 0
    for op in ops:
        if op in "=X":
            count += op == "X" and (qs[i] > 3 or rs[j] > 3)
        i += op in "=XI"
        j += op in "=XD"
    return count


def fill(qs, rs, p) -> tuple[int, str]:
    """The global alignment of qs against rs (score, ops) in the band of diagonals j - i from
    min(0, dy - dx) - band to max(0, dy - dx) + band."""
    dx, dy = len(qs), len(rs)
    lo, hi = min(0, dy - dx) - p.band, max(0, dy - dx) + p.band
    H = [[NEG] * (dy + 1) for _ in range(dx + 1)]
    E = [[NEG] * (dy + 1) for _ in range(dx + 1)]  # ends in a D column (a reference base alone)
    F = [[NEG] * (dy + 1) for _ in range(dx + 1)]  # ends in an I column (a query base alone)
    for i in range(dx + 1):
        for j in range(dy + 1):
            if not lo <= j - i <= hi:
                continue
            cell(H, E, F, qs, rs, i, j, p)
    return traceback(H, E, F, qs, rs, dx, dy, p)


def cell(H, E, F, qs, rs, i, j, p) -> None:
    """H, E and F at (i, j) from the cells before it (those off the band are minus infinity)."""
    go, ge = p.gap_open + p.gap_extend, p.gap_extend
    if i == 0 and j == 0:
        H[i][j] = 0
        return
    if j > 0:
        E[i][j] = max(H[i][j - 1] - go, E[i][j - 1] - ge)
    if i > 0:
        F[i][j] = max(H[i - 1][j] - go, F[i - 1][j] - ge)
    diag = NEG
    if i > 0 and j > 0:
        a, b = qs[i - 1], rs[j - 1]
        diag = H[i - 1][j - 1] + column(a, b, p)
    H[i][j] = max(diag, E[i][j], F[i][j])



def extend(qs, rs, p) -> tuple[int, int, int, str]:
    """The X-drop extension from an alignment's end outwards along qs and rs (the bases beyond the end,
    nearest first): (score, query bases, reference bases, ops in that outward order). Rows i of a
    Gotoh matrix anchored at (0, 0), cells |j - i| <= band; the best cell is the highest, the first
    of equal ones in row order; rows stop after one whose best is more than end_xdrop below it."""
    dq, dr = len(qs), len(rs)
    H = [[NEG] * (dr + 1) for _ in range(dq + 1)]
    E = [[NEG] * (dr + 1) for _ in range(dq + 1)]
    F = [[NEG] * (dr + 1) for _ in range(dq + 1)]
    best, bi, bj = 0, 0, 0
    for i in range(dq + 1):
        row_best = NEG
        for j in range(max(0, i - p.band), min(dr, i + p.band) + 1):
            cell(H, E, F, qs, rs, i, j, p)
            row_best = max(row_best, H[i][j])
            if H[i][j] > best:
                best, bi, bj = H[i][j], i, j
        if row_best < best - p.end_xdrop:
            break
    _, ops = traceback(H, E, F, qs, rs, bi, bj, p)
    return int(best), bi, bj, ops


def traceback(H, E, F, qs, rs, i, j, p) -> tuple[int, str]:
    """(H at (i, j), the path from (0, 0) to it as ops): traced back from (i, j) in H, a diagonal step
    where H equals it, else E where H equals E, else F; in E the gap opens where E equals the
    opening, else extends; the same in F."""
    go = p.gap_open + p.gap_extend
    ops, state, score = [], "H", H[i][j]
    while i > 0 or j > 0:
        if state == "H":
            a, b = (qs[i - 1], rs[j - 1]) if i > 0 and j > 0 else (None, None)
            if i > 0 and j > 0 and H[i][j] == H[i - 1][j - 1] + column(a, b, p):
                ops.append("=" if a == b and a < 4 else "X")
                i, j = i - 1, j - 1
            elif H[i][j] == E[i][j]:
                state = "E"
            else:
                state = "F"
        elif state == "E":
            ops.append("D")
            state = "H" if E[i][j] == H[i][j - 1] - go else "E"
            j -= 1
        else:
            ops.append("I")
            state = "H" if F[i][j] == H[i - 1][j] - go else "F"
            i -= 1
    return int(score), "".join(reversed(ops))


def drop_cuts(lengths, drifts, moves, p, restart: bool = False) -> list[tuple[int, int]]:
    """A run of anchors (their lengths; the drop scores and diagonal moves of the gaps between them)
    cut where the drop scores' running score falls more than zdrop (plus drop_gap a base the diagonal
    moved since) below its best: [(first, last)] anchors of each piece. A piece's best is its
    best-scoring stretch over all lowest starts, the earliest of equals; after a cut the next run
    starts at the anchor where the drop was seen and begins after its lowest point."""
    out, s, n = [], 0, len(lengths)
    while True:
        before, after, diagonal = [0], [], [0]  # running scores before and after each anchor from s
        for t in range(s, n):
            if t > s:
                before.append(after[-1] + drifts[t - 1])
                diagonal.append(diagonal[-1] + moves[t - 1])
            after.append(before[-1] + lengths[t])
            scores = [after[e] - min(before[:e + 1]) for e in range(len(after))]
            best = scores.index(max(scores))
            if best != t - s and after[best] - after[-1] > p.zdrop + p.drop_gap * abs(diagonal[-1] - diagonal[best]):
                low = before[:best + 1]
                out.append((s + (low.index(min(low)) if restart else 0), s + best))
                s, restart = t, True
                break
        else:
            out.append((s + (before.index(min(before)) if restart else 0), n - 1))
            return out


def align_chain(blocks, q, r, p) -> list[tuple[int, int, int, int, int, str]]:
    """The alignments of one chain, in chain order. Each is extended at its start and its end
    (extend), up to max_gap bases and the record's ends or, where the chain was cut, the next piece's
    anchors, before the alignments under min_align_score are dropped."""
    found = anchors(blocks, q, r, p.min_anchor)
    gaps, runs = [], [[0]] if found else []  # gaps[k]: the fill between anchors k and k + 1
    for k in range(1, len(found)):
        px, py, plen = found[k - 1]
        x, y, _ = found[k]
        score, ops = fill(q[px + plen:x], r[py + plen:y], p)
        gaps.append((score, ops, unknown(q[px + plen:x], r[py + plen:y], ops)))
        shift = abs((x - px - plen) - (y - py - plen))  # the indel the gap must hold at least
        # split (the gap's columns belong to neither side): a fill under -zdrop, or a long indel
        if score < -p.zdrop - p.gap_extend * shift or 0 < p.split_indel <= shift:
            runs.append([])
        runs[-1].append(k)
    pieces = []
    for run in runs:
        # the drop scores: an identical column 1, another -drop_mismatch (one holding an N 0), a gap -drop_gap
        drifts = [ops.count("=") - p.drop_mismatch * (ops.count("X") - n) - p.drop_gap * (ops.count("I") + ops.count("D"))
                  for _, ops, n in (gaps[k] for k in run[:-1])]
        moves = [ops.count("D") - ops.count("I") for _, ops, _ in (gaps[k] for k in run[:-1])]
        for first, last in drop_cuts([found[k][2] for k in run], drifts, moves, p):
            x, y, length = found[run[first]]
            current = [x, x + length, y, y + length, length * p.align_match, "=" * length]
            for k in run[first + 1:last + 1]:
                score, ops, _ = gaps[k - 1]
                x, y, length = found[k]
                current[1], current[3] = x + length, y + length
                current[4] += score + length * p.align_match
                current[5] += ops + "=" * length
            pieces.append(current)
    if p.end_xdrop:
        spans = [piece[:4] for piece in pieces]  # the anchors' spans, before any piece is extended
        for i, piece in enumerate(pieces):
            # each end up to max_gap bases and the record's end or, where the chain was cut, the
            # neighbouring piece's anchors
            x0, x1, y0, y1 = spans[i]
            qe, re_ = (spans[i + 1][0], spans[i + 1][2]) if i + 1 < len(pieces) else (len(q), len(r))
            score, dq, dr, ops = extend(q[x1:min(qe, x1 + p.max_gap)], r[y1:min(re_, y1 + p.max_gap)], p)
            piece[1], piece[3], piece[4], piece[5] = x1 + dq, y1 + dr, piece[4] + score, piece[5] + ops
            qs, rs = (spans[i - 1][1], spans[i - 1][3]) if i else (0, 0)
            score, dq, dr, ops = extend(q[max(qs, x0 - p.max_gap):x0][::-1], r[max(rs, y0 - p.max_gap):y0][::-1], p)
            piece[0], piece[2], piece[4], piece[5] = x0 - dq, y0 - dr, piece[4] + score, ops[::-1] + piece[5]
    return [tuple(piece) for piece in pieces if piece[4] >= p.min_align_score]
