"""Chains against their oracle (tests/oracle_chains.py): drawn HSP tables (several records, both
strands, repeats on other diagonals, overlaps, equal scores), and the bundled pair."""
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings, strategies as st

import oracle_chains
from conftest import MYCO_232, MYCO_7422
from gpu_kernels import Params, compare
from gpu_kernels.chains import chain_hsps
from gpu_kernels.hsps import sort_rows


def drawn_table(seed: int, n: int, records: int, span: int) -> tuple[dict, list, list]:
    """HSPs of `records` x `records` record pairs: runs along a few diagonals (chains to find, with
    indels and overlaps), scattered repeat hits, duplicates of scores (ties)."""
    rng = np.random.default_rng(seed)
    qlens = [int(span + rng.integers(0, span // 2)) for _ in range(records)]
    rlens = [int(span + rng.integers(0, span // 2)) for _ in range(records)]
    rows = []
    while len(rows) < n:
        qrec, rrec, strand = int(rng.integers(records)), int(rng.integers(records)), int(rng.integers(2))
        q, r = int(rng.integers(0, qlens[qrec] // 2)), int(rng.integers(0, rlens[rrec] // 2))
        for _ in range(int(rng.integers(1, 8))):  # a run along a diagonal, shifting by small indels
            length = int(rng.choice([20, 40, 40, 60, 100]))
            if q + length > qlens[qrec] or r + length > rlens[rrec]:
                break
            ids = int(rng.integers(length * 3 // 4, length + 1))
            rows.append((qrec, rrec, strand, q, q + length, r, 2 * ids - length if rng.random() < 0.8 else 10, ids))
            q += length + int(rng.integers(-15, 40))
            r += length + int(rng.integers(-15, 40)) if rng.random() < 0.7 else length + int(rng.integers(-300, 300))
            q, r = max(q, 0), max(r, 0)
    qrec, rrec, strand, qs, qe, rs, score, ids = (np.array(c, dtype=np.int64) for c in zip(*rows[:n]))
    table = {"qrec": qrec.astype(np.int32), "rrec": rrec.astype(np.int32), "qstart": qs, "qend": qe, "rstart": rs,
             "strand": strand.astype(np.int8), "score": np.maximum(score, 1), "identities": ids}
    return sort_rows(table, records, records), qlens, rlens


def check(table: dict, qlens, rlens, params: Params) -> None:
    chains, chain_of, members = chain_hsps(table, qlens, rlens, params, threads=3)
    h = {k: np.asarray(v).tolist() for k, v in table.items()}
    h["rend"] = [s + e - b for s, b, e in zip(h["rstart"], h["qstart"], h["qend"])]
    want_of, want = oracle_chains.chains(h, list(rlens), SimpleNamespace(**params.as_dict()))
    assert chain_of.tolist() == want_of
    assert chains["score"].tolist() == [s for s, _ in want]
    assert chains["backbone"].tolist() == [b for _, b in want]
    assert np.array_equal(np.sort(members["rows"]), np.flatnonzero(chain_of >= 0))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 120), records=st.integers(1, 3),
       max_shift=st.sampled_from([1, 7, 50, 1000]), max_gap=st.sampled_from([0, 30, 200, 10_000]),
       min_chain_score=st.sampled_from([0, 50, 400]), gap_open=st.integers(0, 20))
def test_chains_equal_the_oracle_on_drawn_tables(seed, n, records, max_shift, max_gap, min_chain_score, gap_open):
    table, qlens, rlens = drawn_table(seed, n, records, 2000)
    check(table, qlens, rlens, Params(max_shift=max_shift, max_gap=max_gap, min_chain_score=min_chain_score,
                                      chain_gap_open=gap_open))


def test_chains_equal_the_oracle_on_the_bundled_pair():
    result = compare(MYCO_232, MYCO_7422, Params())
    check(result.hsps, result.query.lengths, result.reference.lengths, Params())
    chains, _, _ = chain_hsps(result.hsps, result.query.lengths, result.reference.lengths, Params())
    # the pair's large inversion is a reverse backbone chain, the main diagonal forward ones
    backbone = chains["backbone"] == 1
    assert chains["strand"][backbone].tolist().count(1) >= 1 and chains["hsps"][0] > 20
    assert chains["score"].tolist() == sorted(chains["score"].tolist(), reverse=True)
