"""Posterior decoding of the gaps between anchors (gpu_kernels/posterior.h, posterior.c, posterior.cu,
posterior.py) against its oracle (tests/oracle_posterior.py), on drawn gaps: related and unrelated
sequences, gaps of one side empty, narrow and wide bands, gamma under 1, at 1 and inf; the device twin
against the host's, byte for byte; and the rates fitted to first fills."""
import math

import numpy as np
import pytest

import oracle_posterior
from gpu_kernels import native
from gpu_kernels.posterior import fitted_rates
from gpu_kernels.schema import COUNT_KINDS

OPS = "=XID"


def drawn_gaps(seed: int, count: int):
    """Gaps of two related pieces (substitutions and indels) or unrelated ones, as align_fill takes them:
    the query codes, both reference strands, each gap's positions, sizes and strand."""
    rng = np.random.default_rng(seed)
    q, r, gaps = [], [], []
    for _ in range(count):
        dx = int(rng.integers(0, 22))
        a = rng.integers(0, 4, dx).astype(np.uint8)
        if rng.random() < 0.75:  # related: mutated, with indels
            b = [int(c) if rng.random() > 0.25 else int(rng.integers(0, 4)) for c in a]
            for _ in range(int(rng.integers(0, 4))):
                at = int(rng.integers(0, len(b) + 1))
                if rng.random() < 0.5 and b:
                    del b[min(at, len(b) - 1)]
                else:
                    b[at:at] = list(rng.integers(0, 4, int(rng.integers(1, 4))))
            b = np.array(b, dtype=np.uint8)
        else:
            b = rng.integers(0, 4, int(rng.integers(0, 22))).astype(np.uint8)
        if rng.random() < 0.1 and dx:
            a[int(rng.integers(dx))] = 4  # an N
        gaps.append((sum(map(len, q)), sum(map(len, r)), dx, b.size, int(rng.integers(2))))
        q.append(a)
        r.append(b)
    q, r = np.concatenate(q + [np.zeros(1, np.uint8)]), np.concatenate(r + [np.zeros(1, np.uint8)])
    return q, r, gaps


def laid_out(q, r, gaps):
    """The gaps as the passes take them: both reference strands (a reverse gap reads rr at rpos, where its
    piece is put; rf keeps the forward ones), positions, sizes, strands, and where each gap's columns go."""
    rr = np.empty_like(r)
    qpos, rpos, dx, dy, strand = (np.array([g[k] for g in gaps], dtype=np.int64) for k in range(5))
    for (qp, rp, _, m, s) in gaps:
        if s:
            rr[rp:rp + m] = r[rp:rp + m]
    at = np.concatenate(([0], np.cumsum(dx + dy)))
    return rr, qpos, rpos, dx, dy, strand.astype(np.int8), at


def run_posterior(q, r, gaps, rates, gamma, band, scores=(2, 2, 6, 2)):
    """align_posterior on the gaps (each gap's reference piece laid on the strand it names)."""
    n = len(gaps)
    rr, qpos, rpos, dx, dy, strand, at = laid_out(q, r, gaps)
    ops = np.zeros(max(int(at[-1]), 1), dtype=np.uint8)
    score, columns, counts = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros((n, COUNT_KINDS), np.int64)
    native.module("_cpu").align_posterior(q, r, rr, qpos, rpos, dx, dy, at[:-1].copy(), strand,
                                          rates[0], rates[1], rates[2], float(gamma), *scores, band, score, columns,
                                          counts, ops, 2)
    return [("".join(OPS[o] for o in ops[at[g]:at[g] + columns[g]]), int(score[g]), counts[g]) for g in range(n)]


def integer_score(ops: str, qs, rs, match=2, mismatch=2, gap_open=6, gap_extend=2) -> int:
    """The path's score under the fills' scores (a column holding an N 0)."""
    total, last = 0, ""
    for op, i, j in zip(ops, *_positions(ops)):
        if op in "=X":
            total += match if op == "=" else 0 if qs[i] > 3 or rs[j] > 3 else -mismatch
        else:
            total -= gap_extend + (gap_open if op != last else 0)
        last = op
    return total


@pytest.mark.parametrize("seed", range(6))
def test_each_gap_takes_the_gamma_centroid_path_the_oracle_finds(seed):
    """The columns of every gap add up to its two pieces, their counts and integer score are theirs,
    and their gain under the oracle's posteriors is the oracle's best (equal paths may differ)."""
    rng = np.random.default_rng(100 + seed)
    q, r, gaps = drawn_gaps(seed, 25)
    for gamma, band in ((float("inf"), int(rng.integers(0, 8))), (1.0, 3), (0.5, int(rng.integers(0, 30))),
                        (8.0, 1)):
        rates = (float(rng.uniform(0.05, 0.4)), float(rng.uniform(0.002, 0.08)), float(rng.uniform(0.01, 0.8)))
        for (qp, rp, dx, dy, _), (ops, score, counts) in zip(gaps, run_posterior(q, r, gaps, rates, gamma, band)):
            qs, rs = list(q[qp:qp + dx]), list(r[rp:rp + dy])
            assert ops.count("=") + ops.count("X") + ops.count("I") == dx
            assert ops.count("=") + ops.count("X") + ops.count("D") == dy
            assert all(op != "=" or qs[k] == rs[k2] for op, k, k2 in zip(ops, *_positions(ops)))
            unknown = sum(op == "X" and (qs[i] > 3 or rs[j] > 3) for op, i, j in zip(ops, *_positions(ops)))
            assert list(counts) == [ops.count(c) for c in OPS] + [unknown] and score == integer_score(ops, qs, rs)
            post = oracle_posterior.posteriors(qs, rs, *rates, band)
            best, _ = oracle_posterior.centroid(qs, rs, post, gamma, band)
            got = oracle_posterior.gain_of(qs, rs, post, gamma, ops)
            assert math.isclose(got, best, rel_tol=1e-9, abs_tol=1e-9), (seed, gamma, band, ops)


def _positions(ops):
    """Each column's query and reference index (the last one taken where a side has none)."""
    i = j = 0
    qi, rj = [], []
    for op in ops:
        i += op != "D"
        j += op != "I"
        qi.append(i - 1)
        rj.append(j - 1)
    return qi, rj


def test_rates_fitted_to_first_fills():
    """Substitutions over aligned pairs (anchors' matches counted), gap runs a side a pair, and the
    chance a gap goes on; unused bytes of a gap's room are not read."""
    ops = np.array([0, 1, 2, 2, 0, 3, 9, 9, 0, 0, 3, 3, 3, 0], dtype=np.uint8)  # 9: a gap's unused room
    gat = np.array([0, 8, 14])
    gcols = np.array([6, 6])
    gcounts = np.array([[2, 1, 2, 1, 0], [3, 0, 0, 3, 0]])
    rates = fitted_rates(np.array([10, 20]), gcols, gcounts, gat, ops)
    aligned = 30 + 6
    assert rates["sigma"] == pytest.approx(1 / aligned)
    assert rates["delta"] == pytest.approx(3 / 2 / aligned)  # runs: II, D, DDD
    assert rates["epsilon"] == pytest.approx(1 - 3 / 6)


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(3))
def test_the_device_twin_decodes_as_the_host(seed, monkeypatch):
    """posterior_pass_cupy (posterior.cu) gives the host pass's columns, scores and counts, byte for
    byte, on drawn gaps (first fills of all matches and mismatches, so the fitted rates are those of
    the draw), several launches of them where POSTERIOR_BYTES is made small."""
    cp = pytest.importorskip("cupy")
    from gpu_kernels import posterior
    from gpu_kernels.params import Params

    q, r, gaps = drawn_gaps(50 + seed, 300)
    rr, qpos, rpos, dx, dy, strand, at = laid_out(q, r, gaps)
    first = [np.array([k % 2 for k in range(min(x, y))] + [2] * (x - min(x, y)) + [3] * (y - min(x, y)), np.uint8)
             for x, y in zip(dx, dy)]
    ops = np.zeros(max(int(at[-1]), 1), dtype=np.uint8)
    for g, o in enumerate(first):
        ops[at[g]:at[g] + o.size] = o
    cols = np.array([o.size for o in first], np.int64)
    counts = np.array([[np.count_nonzero(o == c) for c in range(4)] + [0] for o in first], np.int64)
    alen = np.full(len(gaps) + 1, 12, np.int64)
    monkeypatch.setattr(posterior, "POSTERIOR_BYTES", 1 << 16)
    for gamma in (8.0, 0.5, float("inf")):
        params = Params(preset="distant", gamma=gamma, band=int(seed * 7))
        host = [np.zeros(len(gaps), np.int64), cols.copy(), counts.copy(), ops.copy()]
        posterior.posterior_pass(q, r, rr, qpos, rpos, dx, dy, at, strand, alen, *host, params, 2)
        device = [cp.zeros(len(gaps), cp.int64), *(cp.asarray(v) for v in (cols, counts, ops))]
        posterior.posterior_pass_cupy(*(cp.asarray(v) for v in (q, r, rr, qpos, rpos, dx, dy, at, strand, alen)),
                                      *device, params)
        for name, h, d in zip(("score", "columns", "counts", "ops"), host, device):
            assert h.tolist() == cp.asnumpy(d).tolist(), (gamma, name)


def test_a_gap_run_ends_with_its_gap():
    """A gap all of one kind (no aligned pair: dx or dy 0) and the next gap's first run of that kind are
    two runs, not one (an anchor lies between them)."""
    ops = np.array([3, 3, 3, 0], dtype=np.uint8)
    gat = np.array([0, 2, 4])
    rates = fitted_rates(np.array([10, 10, 10]), np.array([2, 2]), np.array([[0, 0, 0, 2, 0], [1, 0, 0, 1, 0]]), gat, ops)
    assert rates["delta"] == pytest.approx(2 / 2 / 31)
    assert rates["epsilon"] == pytest.approx(1 - 2 / 3)


def widest_band(epsilon: float) -> int:
    """posterior.h's widest decoded band: the gap columns whose product of epsilon stays over 1e-200."""
    v, n = 1.0, 0
    while v > 1e-200:
        v, n = v * epsilon, n + 1
    return n


@pytest.mark.parametrize("on_device", [False, pytest.param(True, marks=pytest.mark.gpu)])
def test_a_gap_wider_than_a_row_holds_keeps_its_first_fill(on_device, monkeypatch):
    """A gap whose band spans a gap run longer than one row's cells can hold (a 1,200-base insertion
    between two anchors at epsilon 0.435 is 1e-434: the row's far cells underflow to 0) had 0 / 0
    posteriors, and its centroid's trace left the band: align --preset distant was killed by SIGSEGV on a
    100 kb pair at 77 %. Such a gap keeps the columns, score and counts of its first fill (both twins);
    a narrower one beside it is decoded."""
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, 280).astype(np.uint8)
    b = np.concatenate((a[:140], rng.integers(0, 4, 1200).astype(np.uint8), a[140:]))
    narrow = a[:60].copy()
    narrow[::7] = (narrow[::7] + 1) % 4
    q, r = np.concatenate((a, a[:60], [0])).astype(np.uint8), np.concatenate((b, narrow, [0])).astype(np.uint8)
    gaps = [(0, 0, 280, b.size, 0), (280, b.size, 60, 60, 0)]
    rr, qpos, rpos, dx, dy, strand, at = laid_out(q, r, gaps)
    rates, band = (0.21, 0.009, 0.435), 32
    assert widest_band(rates[2]) < 1200 + 2 * band < widest_band(0.95)
    ops = np.full(int(at[-1]), 7, dtype=np.uint8)  # the first fills' columns stand in: left as they are
    score, columns, counts = np.full(2, -5, np.int64), np.full(2, 3, np.int64), np.full((2, COUNT_KINDS), 9, np.int64)
    args = (rates[0], rates[1], rates[2], 8.0, 2, 2, 6, 2, band)
    if on_device:
        cp = pytest.importorskip("cupy")
        from gpu_kernels import posterior
        from gpu_kernels.params import Params

        device = [cp.asarray(v) for v in (score, columns, counts, ops)]
        fitted = {"sigma": rates[0], "delta": rates[1], "epsilon": rates[2]}
        monkeypatch.setattr(posterior, "_rates", lambda *a, **k: fitted)
        posterior.posterior_pass_cupy(*(cp.asarray(v) for v in (q, r, rr, qpos, rpos, dx, dy, at, strand,
                                                                np.full(3, 12, np.int64))),
                                      *device, Params(preset="distant", gamma=8.0, band=band))
        score, columns, counts, ops = (cp.asnumpy(v) for v in device)
    else:
        native.module("_cpu").align_posterior(q, r, rr, qpos, rpos, dx, dy, at[:-1].copy(), strand, *args, score,
                                              columns, counts, ops, 2)
    assert (score[0], columns[0], counts[0].tolist()) == (-5, 3, [9] * COUNT_KINDS)
    assert (ops[:at[1]] == 7).all()
    decoded = "".join(OPS[o] for o in ops[at[1]:at[1] + columns[1]])
    assert columns[1] == 60 and decoded.count("=") == counts[1][0] > 40 and score[1] != -5
