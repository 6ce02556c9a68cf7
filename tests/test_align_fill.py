"""The gaps' fills (align.c's align_fill) against the oracle's fill (tests/oracle_align.py), gap by gap:
here the gaps of as many query as reference bases, which the host writes without the DP where their
diagonal cannot be beaten (the drawn chains of test_align.py cover the others)."""
from types import SimpleNamespace

import numpy as np
import pytest

import oracle_align

OPS = "=XID"


@pytest.mark.parametrize("match, mismatch, gap_open, gap_extend, band", [(2, 3, 6, 2, 8), (1, 4, 0, 1, 3),
                                                                        (2, 1, 5, 1, 16)])
def test_gaps_of_equal_sides_are_filled_as_the_oracle_fills_them(match, mismatch, gap_open, gap_extend, band):
    """Gaps of as many query as reference bases, with 0-8 substitutions and N: the fills (those whose
    diagonal no other path can beat skip the DP) give the oracle's score, columns and counts."""
    from gpu_kernels import native

    rng = np.random.default_rng(band)
    params = SimpleNamespace(align_match=match, align_mismatch=mismatch, gap_open=gap_open, gap_extend=gap_extend,
                             band=band)
    qs, rs = [], []
    for _ in range(400):
        size = int(rng.integers(0, 24))
        q = rng.integers(0, 4, size)
        r = q.copy()
        at = rng.choice(size, min(size, int(rng.integers(0, 9))), replace=False) if size else []
        r[at] = (r[at] + rng.integers(1, 4, len(at))) % 4
        if size and rng.random() < 0.2:
            (q if rng.random() < 0.5 else r)[int(rng.integers(0, size))] = 4
        qs.append(q)
        rs.append(r)
    sizes = np.array([q.size for q in qs], dtype=np.int64)
    q, r = np.concatenate(qs).astype(np.uint8), np.concatenate(rs).astype(np.uint8)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    at = np.concatenate(([0], np.cumsum(2 * sizes)[:-1])).astype(np.int64)
    n = sizes.size
    score, columns = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    counts, ops = np.empty((n, 5), dtype=np.int64), np.zeros(int(2 * sizes.sum()), dtype=np.uint8)
    native.cpu().align_fill(q, r, r, starts, starts, sizes, sizes, at, np.zeros(n, dtype=np.int8), match, mismatch,
                            gap_open, gap_extend, band, score, columns, counts, ops, 2)
    diagonal = 0
    for g in range(n):
        want_score, want_ops = oracle_align.fill(qs[g].tolist(), rs[g].tolist(), params)
        got = "".join(OPS[o] for o in ops[at[g]:at[g] + columns[g]])
        assert (int(score[g]), got) == (want_score, want_ops), g
        assert counts[g].tolist() == [want_ops.count(c) for c in OPS] + [
            oracle_align.unknown(qs[g].tolist(), rs[g].tolist(), want_ops)]
        diagonal += set(want_ops) <= set("=X")
    # both kinds of gap: those the diagonal takes and (but where a mismatch costs little) others
    assert 0 < diagonal and (mismatch == 1 or diagonal < n)
