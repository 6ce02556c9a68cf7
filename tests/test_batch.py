"""batch.py: several query genomes against one reference in one compare, split back by genome."""
import numpy as np
import pytest

from gpu_kernels import hsps as H
from gpu_kernels.batch import batches, compare_queries, fits_together
from gpu_kernels.backend import get_backend
from gpu_kernels.engine import compare
from gpu_kernels.fasta import load_fasta
from gpu_kernels.params import Params
from simulate_set import write_set  # bench/: the benchmarks' generator


def test_runs_keep_one_reference_and_the_bases_asked_for():
    pairs = [("a", "r"), ("b", "r"), ("c", "r"), ("d", "s"), ("e", "s"), ("f", "r"), ("g", "r")]
    size = {"a": 4, "b": 5, "c": 2, "d": 20, "e": 1, "f": 3, "g": 3}.get
    assert batches(pairs, size, 10) == [[0, 1], [2], [3], [4], [5, 6]]
    assert batches(pairs, size, 100) == [[0, 1, 2], [3, 4], [5, 6]]
    assert batches([], size, 10) == []


@pytest.fixture(scope="module")
def genomes(tmp_path_factory):
    """Five related genomes, drafts among them (many records), both strands' homology."""
    folder = tmp_path_factory.mktemp("set")
    write_set(5, str(folder), 200_000, (120_000, 260_000), height=0.04, draft=0.6, seed=11)
    return [load_fasta(str(folder / f"g{i:04d}.fa")) for i in range(1, 6)]


def body(genomes, backend_name, params):
    backend = get_backend(backend_name)
    *queries, reference = genomes
    assert fits_together(queries, reference, params)
    together = compare_queries(queries, reference, backend, None, params, 0.0)
    assert len(together) == len(queries)
    seen = 0
    for query, result in zip(queries, together):
        alone = compare(query, reference, params, backend)
        alone.hand_to_host()
        assert result.query is query and result.reference is reference
        for name in H.HSP.stored:
            assert np.array_equal(result.table[name], alone.table[name]), name
        for key in ("hsps", "query_covered", "hsp_bases", "hsps_forward", "hsps_reverse"):
            assert result.stats[key] == alone.stats[key], key
        assert result.stats["backend"] == backend.name
        seen += result.stats["hsps"]
    assert seen > 0 and len({len(q.names) for q in queries}) > 1  # drafts and whole genomes both


CASES = [Params(), Params(max_freq=3, min_len=40), Params(preset="distant", max_freq=2)]
IDS = ["exhaustive", "fast", "spaced"]


@pytest.mark.parametrize("params", CASES, ids=IDS)
def test_queries_compared_together_give_each_its_own_hsps(genomes, params):
    """The HSPs of each query are those of its pair alone (per record word frequencies included)."""
    body(genomes, "numpy", params)


@pytest.mark.gpu
@pytest.mark.parametrize("params", CASES, ids=IDS)
def test_queries_compared_together_on_the_gpu(genomes, params):
    body(genomes, "cupy", params)


def test_queries_over_the_part_bases_do_not_fit_together(genomes):
    *queries, reference = genomes
    most = sum(q.total for q in queries) - 1
    assert not fits_together(queries, reference, Params(part_bases=most))
    assert fits_together(queries[:1], reference, Params(part_bases=most))
