"""The posterior decoding's oracle (gpu_kernels/posterior.c), written plainly: a pair HMM over a gap
between two anchors, forward and backward over the full (dx + 1) x (dy + 1) grid with the cells off the
band at zero, no rescaling, the posterior of every cell, and the gamma-centroid path by a plain
maximum over paths. Shares no code with gpu_kernels.

States: M (a query base against a reference base), I (a query base alone), D (a reference base
alone). The path starts in M at (0, 0) (the anchor before) and moves on to M after (dx, dy) (the anchor
after). Transitions: M to M 1 - 2 delta, M to I or D delta, I to I or D to D epsilon, I or D to M
1 - epsilon. Emissions over the background's: a pair 4 (1 - sigma) if equal and ACGT, 4 sigma / 3
otherwise; a lone base 1.
"""
from __future__ import annotations

import math


def posteriors(qs, rs, sigma: float, delta: float, epsilon: float, band: int) -> dict:
    """{(i, j): P(query base i - 1 aligned to reference base j - 1)} for the cells of the band, i, j >= 1."""
    dx, dy = len(qs), len(rs)
    lo = max(min(0, dy - dx) - band, -dx)
    hi = min(max(0, dy - dx) + band, dy)

    def inside(i, j):
        return 0 <= i <= dx and 0 <= j <= dy and lo <= j - i <= hi

    def emit(i, j):
        if qs[i - 1] > 3 or rs[j - 1] > 3:  # an N: unknown, the background's
            return 1.0
        return 4 * (1 - sigma) if qs[i - 1] == rs[j - 1] else 4 * sigma / 3

    mm, gm = 1 - 2 * delta, 1 - epsilon
    F = {s: {} for s in "MID"}
    for i in range(dx + 1):
        for j in range(dy + 1):
            if not inside(i, j):
                continue
            if i == 0 and j == 0:
                F["M"][0, 0], F["I"][0, 0], F["D"][0, 0] = 1.0, 0.0, 0.0
                continue
            g = lambda s, a, b: F[s].get((a, b), 0.0)  # noqa: E731
            F["M"][i, j] = emit(i, j) * (mm * g("M", i - 1, j - 1) + gm * (g("I", i - 1, j - 1) + g("D", i - 1, j - 1))) \
                if i and j else 0.0
            F["I"][i, j] = delta * g("M", i - 1, j) + epsilon * g("I", i - 1, j) if i else 0.0
            F["D"][i, j] = delta * g("M", i, j - 1) + epsilon * g("D", i, j - 1) if j else 0.0
    B = {s: {} for s in "MID"}
    for i in range(dx, -1, -1):
        for j in range(dy, -1, -1):
            if not inside(i, j):
                continue
            if (i, j) == (dx, dy):
                B["M"][i, j], B["I"][i, j], B["D"][i, j] = mm, gm, gm
                continue
            g = lambda s, a, b: B[s].get((a, b), 0.0)  # noqa: E731
            diag = emit(i + 1, j + 1) * g("M", i + 1, j + 1) if i < dx and j < dy else 0.0
            B["M"][i, j] = mm * diag + delta * g("I", i + 1, j) + delta * g("D", i, j + 1)
            B["I"][i, j] = gm * diag + epsilon * g("I", i + 1, j)
            B["D"][i, j] = gm * diag + epsilon * g("D", i, j + 1)
    total = mm * F["M"][dx, dy] + gm * (F["I"][dx, dy] + F["D"][dx, dy])
    return {(i, j): F["M"][i, j] * B["M"][i, j] / total for (i, j) in F["M"] if i and j}


def centroid(qs, rs, post: dict, gamma: float, band: int) -> tuple[float, str]:
    """The gamma-centroid path through the band from (0, 0) to (dx, dy): its gain (the sum of (gamma +
    1) P - 1 over its aligned pairs, P alone for gamma inf) and its ops (= X I D a column)."""
    dx, dy = len(qs), len(rs)
    lo = max(min(0, dy - dx) - band, -dx)
    hi = min(max(0, dy - dx) + band, dy)
    best = {(0, 0): (0.0, "")}
    for i in range(dx + 1):
        for j in range(dy + 1):
            if not lo <= j - i <= hi or (i, j) == (0, 0):
                continue
            options = []
            if i and j and (i - 1, j - 1) in best:
                p = post[i, j]
                gain = p if math.isinf(gamma) else (gamma + 1) * p - 1
                op = "=" if qs[i - 1] == rs[j - 1] and qs[i - 1] < 4 else "X"
                options.append((best[i - 1, j - 1][0] + gain, best[i - 1, j - 1][1] + op))
            if i and (i - 1, j) in best:
                options.append((best[i - 1, j][0], best[i - 1, j][1] + "I"))
            if j and (i, j - 1) in best:
                options.append((best[i, j - 1][0], best[i, j - 1][1] + "D"))
            if options:
                best[i, j] = max(options, key=lambda o: o[0])
    return best[dx, dy]


def gain_of(qs, rs, post: dict, gamma: float, ops: str) -> float:
    """The gain of a path given as its ops."""
    i = j = 0
    total = 0.0
    for op in ops:
        if op in "=X":
            i, j = i + 1, j + 1
            total += post[i, j] if math.isinf(gamma) else (gamma + 1) * post[i, j] - 1
        elif op == "I":
            i += 1
        else:
            j += 1
    assert (i, j) == (len(qs), len(rs))
    return total
