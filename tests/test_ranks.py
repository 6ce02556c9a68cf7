"""gpu_kernels/ranks.py: a part's chain ranks against a plain lexsort."""
import numpy as np
import pytest

from gpu_kernels.ranks import _group_key, part_ranks


@pytest.mark.parametrize("score_span", [40, 1 << 61])
def test_a_parts_chain_ranks_are_the_plain_sorts(score_span):
    """part_ranks against a plain lexsort: each chain's tie among the part's chains of its (score, query
    record, reference record) in chain order, and each group's count; with scores whose span fits in one
    packed key beside the records' (one radix sort) and with scores that do not (a sort a key)."""
    rng = np.random.default_rng(7)
    n = 50_000
    scores = rng.integers(-3, 40, n).astype(np.int64) * (score_span // 40)
    chains = {"chain": rng.permutation(n).astype(np.int64), "score": scores,
              "qrec": rng.integers(0, 4, n).astype(np.int32), "rrec": rng.integers(0, 5, n).astype(np.int32)}
    packed = _group_key(*(chains[name].astype(np.int64) for name in ("score", "qrec", "rrec")))
    assert (packed is None) == (score_span > 1 << 40)
    tie, ranks = part_ranks(chains)
    order = np.lexsort((chains["chain"], chains["rrec"], chains["qrec"], -chains["score"]))
    want_tie, groups, seen = np.empty(n, dtype=np.int64), [], {}
    for row in order:
        key = (int(chains["score"][row]), int(chains["qrec"][row]), int(chains["rrec"][row]))
        if key not in seen:
            seen[key] = 0
            groups.append(key)
        want_tie[row] = seen[key]
        seen[key] += 1
    assert np.array_equal(tie, want_tie)
    assert [tuple(int(ranks[name][g]) for name in ("score", "qrec", "rrec")) for g in range(len(groups))] == groups
    assert ranks["count"].tolist() == [seen[key] for key in groups]
