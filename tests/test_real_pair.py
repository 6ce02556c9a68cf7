"""The bundled real pair: the engine's answer holds up when recomputed from the sequences."""
import numpy as np
import pytest

from conftest import MYCO_232, MYCO_7422
from gpu_kernels import Params, compare
from gpu_kernels.fasta import read_fasta


@pytest.fixture(scope="module")
def result():
    return compare(MYCO_232, MYCO_7422, Params(k=32, min_len=64, min_identity=80))


def test_identities_recomputed(result):
    q = read_fasta(MYCO_232)[0].codes
    r = read_fasta(MYCO_7422)[0].codes
    comp = np.array([3, 2, 1, 0, 4], dtype=np.uint8)
    h = result.hsps
    assert h["qstart"].size > 300 and (h["strand"] == 1).sum() > 50
    for i in range(h["qstart"].size):
        qs, qe, rs, re_ = int(h["qstart"][i]), int(h["qend"][i]), int(h["rstart"][i]), int(h["rend"][i])
        ref = r[rs:re_] if h["strand"][i] == 0 else comp[r[rs:re_][::-1]]
        same = (q[qs:qe] == ref) & (ref < 4)
        assert int(same.sum()) == h["identities"][i]
        assert 2 * int(same.sum()) - (qe - qs) == h["score"][i]
        assert same.sum() * 100 >= 80 * (qe - qs) and qe - qs >= 64


def test_coverage_is_the_union(result):
    covered = np.zeros(int(result.query.lengths[0]), dtype=bool)
    for s, e in zip(result.hsps["qstart"], result.hsps["qend"]):
        covered[s:e] = True
    assert result.coverage() == pytest.approx(covered.mean())
    assert result.coverage() > 0.89
