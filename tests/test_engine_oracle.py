"""The engine against the oracle on drawn related pairs, for several tilings and both strands."""
from hypothesis import given, settings, strategies as st

import oracle
from generate import related_pair
from gpu_kernels import Params, compare
from hspsets import TILED, hsp_set, records




def recomputed(query, reference, row):
    """(score, identities) of an HSP recomputed from the sequences."""
    qrec, rrec, qs, qe, rs, re_, strand, *_ = row
    q = oracle.clean(query[qrec])[qs:qe]
    r = oracle.clean(reference[rrec])[rs:re_]
    if strand:
        r = oracle.revcomp(r)
    ids = sum(a == b != "N" for a, b in zip(q, r))
    score = sum(1 if a == b != "N" else -1 for a, b in zip(q, r))
    return score, ids


cases = st.tuples(
    st.integers(0, 2**31),            # generator seed
    st.integers(40, 700),             # ancestor length
    st.integers(1, 3),                # records per side
    st.sampled_from([8, 11, 12, 16]),  # k
    st.sampled_from([0, 20, 40]),     # min_len
    st.sampled_from([0.0, 60.0, 70.0, 80.0, 95.0]),  # min_identity
    st.sampled_from([0, 15, 40, 50]),  # xdrop
    st.sampled_from([0, 0, 3]),       # max_freq
)


@given(cases, st.integers(1, 10))
def test_engine_equals_oracle_for_every_tiling(case, small):
    seed, length, nrec, k, min_len, min_identity, xdrop, max_freq = case
    query, reference = related_pair(seed, length, nrec, k)
    base = dict(k=k, min_len=min_len, min_identity=min_identity, xdrop=xdrop, max_freq=max_freq)
    expected = oracle.compare(query, reference, Params(**base))
    assert hsp_set(compare(records(query), records(reference), Params(**base))) == expected, "fused"
    for tile_len in (0, k + small, 3 * k, 5 * k + 7):
        got = hsp_set(compare(records(query), records(reference), Params(**base, tile_len=tile_len), backend=TILED))
        assert got == expected, f"tile_len={tile_len}"
    for row in expected:
        qrec, rrec, qs, qe, rs, re_, strand, score, ids, length_ = row
        assert recomputed(query, reference, row) == (score, ids)
        assert qe - qs == re_ - rs == length_
        assert 0 <= qs < qe <= len(query[qrec]) and 0 <= rs < re_ <= len(reference[rrec])
        assert ids * 100.0 >= min_identity * length_


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(200, 900))
def test_records_and_scores_recomputed(seed, length):
    """Every HSP's score, identities and length match the sequences; none crosses a record border."""
    query, reference = related_pair(seed, length, 3, 12)
    params = Params(k=12, min_len=20, min_identity=70.0)
    result = compare(records(query), records(reference), params)
    for row in hsp_set(result):
        qrec, rrec, qs, qe, rs, re_, strand, score, ids, length_ = row
        assert recomputed(query, reference, row) == (score, ids)
        assert qe - qs == re_ - rs == length_
        assert qe <= len(query[qrec]) and re_ <= len(reference[rrec])
        assert ids * 100 >= 70 * length_


def test_budget_split_keeps_the_set():
    """A seed budget far below the pair's seeds splits tiles and changes nothing."""
    query, reference = related_pair(7, 3000, 2, 8)
    query = [q + "ACACACACAC" * 40 for q in query]
    reference = [r + "ACACACACAC" * 40 for r in reference]
    whole = compare(records(query), records(reference), Params(k=8, min_len=20), backend=TILED)
    split = compare(records(query), records(reference), Params(k=8, min_len=20, tile_bytes=1 << 16), backend=TILED)
    fused = compare(records(query), records(reference), Params(k=8, min_len=20, tile_bytes=1 << 16))
    assert split.stats["tiles"] > whole.stats["tiles"]
    assert hsp_set(split) == hsp_set(whole) == hsp_set(fused)
    assert split.stats["seeds"] == whole.stats["seeds"] == fused.stats["seeds"]
    assert split.stats["kept_seeds"] == whole.stats["kept_seeds"] == fused.stats["kept_seeds"]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([(2, -3, -1), (1, -2, 0), (3, -1, -2)]),
       st.sampled_from([0, 12]), st.sampled_from([0.0, 70.0, 80.0]))
def test_other_scorings_equal_oracle(seed, scoring, xdrop, min_identity):
    match, mismatch, n_score = scoring
    query, reference = related_pair(seed, 400, 2, 10)
    params = Params(k=10, min_len=15, min_identity=min_identity, match=match, mismatch=mismatch, n_score=n_score,
                    xdrop=xdrop)
    expected = oracle.compare(query, reference, params)
    assert hsp_set(compare(records(query), records(reference), params)) == expected
    for tile_len in (0, 27):
        got = hsp_set(compare(records(query), records(reference), Params(**{**params.as_dict(), "tile_len": tile_len}),
                              backend=TILED))
        assert got == expected
