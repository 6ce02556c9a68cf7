"""How precise can any aligner be on a simulated pair? Posterior decoding with the simulator's own
model, beside our alignments, on one window of the truth.

    python bench/studies/posterior_ceiling.py PREFIX OURS.paf [--window 100000] [--band 32]
        [--gammas 1 2 4 8 inf] [--practical]

PREFIX_a.fa, PREFIX_b.fa and PREFIX_truth.npz are bench/simulate.py's outputs (--truth). A pair HMM
(match, query gap, reference gap) takes its substitution, gap-open and gap-extension rates from the
truth itself over the window, so it is the model that drew the pair, not one fitted to it. Forward
and backward run in a band of 2 x band + 1 diagonals that follows the true path, which holds all but
a vanishing share of the posterior; each cell's posterior match probability P then gives the
gamma-centroid alignment (the path maximizing the sum of (gamma + 1) P - 1 over its aligned pairs:
LAST's -j5 -g; gamma inf maximizes the expected correct pairs, gamma under 1 leaves every pair of P
under 1 / (gamma + 1) unaligned). Aligned pairs are scored against the
truth in the window's middle 80 %, and so are our one-to-one alignments' (tp:A:P) pairs there.
--practical: the rates and the band's path from our alignments instead (what a decoding stage after
our gapped DP could do, its model fitted to the pair as last-train fits LAST's), the truth only
scoring.
Slow, plain NumPy, a row at a time: about a minute per 100 kb. Not a test: it prints a table.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from scipy.signal import lfilter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(1, os.path.dirname(sys.path[0]))
from common.truth import Truth, paf_blocks, segments  # noqa: E402
from gpu_kernels.fasta import read_fasta  # noqa: E402

def shifted(row: np.ndarray, k: int, fill: float) -> np.ndarray:
    """out[b] = row[b + k] where b + k lies in the band, fill elsewhere."""
    out = np.full_like(row, fill)
    if k >= 0:
        out[: row.size - k] = row[k:]
    else:
        out[-k:] = row[: row.size + k]
    return out


def model(q: np.ndarray, r: np.ndarray, partner: np.ndarray, r0: int) -> dict:
    """The rates the truth shows over the window: substitutions among true pairs, gap runs on either
    side (opens per pair, mean length)."""
    paired = partner >= 0
    sigma = float((q[paired] != r[partner[paired] - r0]).mean())
    inserted = ~paired
    ins_runs = int((inserted[1:] & ~inserted[:-1]).sum() + inserted[0])
    covered = np.zeros(r.size, dtype=bool)
    covered[partner[paired] - r0] = True
    lo, hi = partner[paired].min() - r0, partner[paired].max() - r0
    deleted = ~covered[lo:hi]
    del_runs = int((deleted[1:] & ~deleted[:-1]).sum() + deleted[0])
    runs, bases = ins_runs + del_runs, int(inserted.sum() + deleted.sum())
    return {"sigma": sigma, "delta": runs / 2 / int(paired.sum()), "epsilon": max(1 - runs / max(bases, 1), 1e-3)}


def posteriors(q: np.ndarray, r: np.ndarray, center: np.ndarray, band: int, m: dict) -> np.ndarray:
    """P(query base i aligned to reference base center[i] - band + b), rows i, columns b."""
    n, width = q.size, 2 * band + 1
    sigma, delta, eps = m["sigma"], m["delta"], m["epsilon"]
    # emissions over the background's (a base 1/4): a pair's, and a gap's lone base (1)
    g, same, other = 1.0, (1 - sigma) / 4 / 0.0625, sigma / 12 / 0.0625
    t_mm, t_gm = 1 - 2 * delta, 1 - eps
    step = np.diff(center, prepend=center[0])
    offsets = np.arange(width) - band

    def emissions(i: int) -> np.ndarray:
        j = center[i] + offsets
        inside = (j >= 0) & (j < r.size)
        e = np.where(r[np.clip(j, 0, r.size - 1)] == q[i], same, other)
        return np.where(inside & (q[i] < 4), e, np.where(inside, other, 0.0))

    def run_sum(seed: np.ndarray, direction: int) -> np.ndarray:
        """out[b] = sum over k >= 0 of (g eps)^k seed[b + direction k]: a gap run along the row."""
        if direction < 0:
            return lfilter([1.0], [1.0, -g * eps], seed)
        return lfilter([1.0], [1.0, -g * eps], seed[::-1])[::-1]

    fm, fx, fy = (np.zeros((n, width)) for _ in range(3))
    fm[0] = emissions(0)
    fy[0] = run_sum(g * delta * shifted(fm[0], -1, 0.0), -1)
    for i in range(1, n):
        s = int(step[i])
        fm[i] = emissions(i) * (t_mm * shifted(fm[i - 1], s - 1, 0.0) + t_gm * shifted(fx[i - 1], s - 1, 0.0)
                                + t_gm * shifted(fy[i - 1], s - 1, 0.0))
        fx[i] = g * (delta * shifted(fm[i - 1], s, 0.0) + eps * shifted(fx[i - 1], s, 0.0))
        fy[i] = run_sum(g * delta * shifted(fm[i], -1, 0.0), -1)
        z = fm[i].sum() + fx[i].sum() + fy[i].sum()
        fm[i] /= z
        fx[i] /= z
        fy[i] /= z
    bm, bx = np.ones((n, width)), np.ones((n, width))
    for i in range(n - 2, -1, -1):
        s = int(step[i + 1])
        diag = shifted(emissions(i + 1) * bm[i + 1], 1 - s, 0.0)
        down = shifted(bx[i + 1], -s, 0.0)
        by = run_sum(t_gm * diag, 1)
        bx[i] = t_gm * diag + eps * g * down
        bm[i] = t_mm * diag + delta * g * down + delta * g * shifted(by, 1, 0.0)
        z = bm[i].sum() + bx[i].sum() + by.sum()
        bm[i] /= z
        bx[i] /= z
    pm, px = fm * bm, fx * bx
    return pm / (pm.sum(axis=1) + px.sum(axis=1))[:, None]


def centroid(p: np.ndarray, center: np.ndarray, band: int, gamma: float, rlen: int) -> tuple:
    """The gamma-centroid alignment's pairs: (query rows, reference positions)."""
    n, width = p.shape
    step = np.diff(center, prepend=center[0])
    j_all = center[:, None] + np.arange(width)[None, :] - band
    valid = (j_all >= 0) & (j_all < rlen)
    gain = np.where(valid, p if np.isinf(gamma) else (gamma + 1) * p - 1, -np.inf)
    diag_won = np.zeros((n, width), dtype=bool)
    from_left = np.zeros((n, width), dtype=bool)
    best = np.zeros(width)
    for i in range(n):
        s = int(step[i]) if i else 1
        diag = (shifted(best, s - 1, -np.inf) if i else np.zeros(width)) + gain[i]
        up = shifted(best, s, -np.inf) if i else np.zeros(width)
        d = np.maximum(diag, up)
        diag_won[i] = diag > up
        best = np.maximum.accumulate(d)
        from_left[i] = d < best
    rows, cols = [], []
    i, b = n - 1, int(np.argmax(best))
    while i >= 0 and b >= 0:
        if from_left[i, b]:
            b -= 1
            continue
        s = int(step[i]) if i else 1
        if diag_won[i, b]:
            rows.append(i)
            cols.append(int(j_all[i, b]))
            b += s - 1
        else:
            b += s
        i -= 1
        if b >= width:
            break
    return np.array(rows[::-1], dtype=np.int64), np.array(cols[::-1], dtype=np.int64)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix")
    parser.add_argument("paf", help="our alignments of the pair (tp:A:P rows are scored)")
    parser.add_argument("--window", type=int, default=100_000)
    parser.add_argument("--band", type=int, default=32)
    parser.add_argument("--gammas", nargs="+", type=float, default=[1, 2, 4, 8, float("inf")])
    parser.add_argument("--practical", action="store_true", help="the model and the band's path from our alignments")
    args = parser.parse_args()
    truth = Truth(args.prefix + "_truth.npz")
    first = read_fasta(args.prefix + "_a.fa")[0]
    qname, query = first.name, first.codes
    reference = read_fasta(args.prefix + "_b.fa")[0].codes
    forward = [s for s in segments(truth) if s[0] == qname and s[3] == 0]
    name, qs, qe, _ = max(forward, key=lambda s: s[2] - s[1])
    q0 = qs + max(0, (qe - qs - args.window) // 2)
    q1 = min(qe, q0 + args.window)
    partner = truth.partner[name][q0:q1].copy()
    partner[truth.strand[name][q0:q1] != 0] = -1
    r0 = int(partner[partner >= 0].min()) - 2 * args.band
    r1 = int(partner.max()) + 2 * args.band
    q, r = query[q0:q1], reference[r0:r1]
    ours = np.full(q.size, -1, dtype=np.int64)  # our partner of each query base (forward, tp:A:P)
    for qn, rn, reverse, qb, rb, n in paf_blocks(args.paf, "tp:A:P"):
        if qn == name and not reverse and qb < q1 and qb + n > q0:
            span = np.arange(max(qb, q0), min(qb + n, q1))
            ours[span - q0] = span - qb + rb
    ours[(ours < r0) | (ours >= r1)] = -1
    path = ours if args.practical else partner
    m = model(q, r, path, r0)
    # the band's center follows the path (the truth's or ours), a step of 0-2 a row (a deletion is
    # caught up on)
    target = np.where(path >= 0, path - r0, -1)
    center = np.empty(q.size, dtype=np.int64)
    last = int(target[target >= 0][0])
    center[0] = last
    for i in range(1, q.size):
        last = target[i] if target[i] >= 0 else last + 1
        center[i] = center[i - 1] + min(max(last - center[i - 1], 0), 2)
    p = posteriors(q, r, center, args.band, m)
    lo, hi = q.size // 10, q.size - q.size // 10
    true_here = int((partner[lo:hi] >= 0).sum())
    print(f"{name}:{q0}-{q1} (the truth's longest forward piece), reference {r0}-{r1}; the model "
          f"({'from our alignments' if args.practical else 'the truth'}): substitutions "
          f"{m['sigma']:.4f}, gap opens {m['delta']:.5f} a side a pair, extension {m['epsilon']:.3f}; scored on "
          f"query {q0 + lo}-{q0 + hi}: {true_here} true pairs")
    print(f"{'decoding':<24}{'aligned':>10}{'precision %':>13}{'recall %':>10}")

    def report(label: str, rows: np.ndarray, cols: np.ndarray) -> None:
        keep = (rows >= lo) & (rows < hi)
        rows, cols = rows[keep], cols[keep]
        right = int((partner[rows] == cols + r0).sum())
        print(f"{label:<24}{rows.size:>10,}{100 * right / max(rows.size, 1):>13.2f}{100 * right / true_here:>10.2f}")

    for gamma in args.gammas:
        report(f"gamma-centroid {gamma:g}", *centroid(p, center, args.band, gamma, r.size))
    rows = np.flatnonzero(ours >= 0)
    report("ours (tp:A:P)", rows, ours[rows] - r0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
