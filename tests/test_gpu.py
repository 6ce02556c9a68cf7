"""The CuPy backend against the NumPy backend, stage by stage and end to end (skipped without a GPU)."""
import numpy as np
import pytest

from hypothesis import given, settings, strategies as st

import oracle
from conftest import MYCO_232, MYCO_7422
from generate import related_pair
from gpu_kernels import Params, compare
from hspsets import hsp_set, records
from gpu_kernels.fasta import read_fasta
from gpu_kernels.seeds import seed_groups
from gpu_kernels.seqset import make_seqset

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")




@pytest.fixture(scope="module")
def myco():
    q = read_fasta(MYCO_232)
    r = read_fasta(MYCO_7422)
    return make_seqset([x.name for x in q], [x.codes for x in q]), make_seqset([x.name for x in r], [x.codes for x in r])


def test_word_keys_match(myco):
    from gpu_kernels.words import word_keys, word_keys_cupy as device_word_keys

    codes = myco[0].codes.copy()
    codes[1000:1010] = 4  # an N run
    for k in (8, 17, 32):
        keys, valid = word_keys(codes, k)
        dkeys, dvalid = device_word_keys(cp.asarray(codes), k)
        assert np.array_equal(valid, cp.asnumpy(dvalid))
        assert np.array_equal(keys[valid], cp.asnumpy(dkeys)[valid])


def test_seed_keys_and_filter_match(myco):
    from gpu_kernels.backend import CupyBackend, NumpyBackend
    from gpu_kernels.diagonals import filter_keys, key_width

    q, r = myco
    cpu, gpu = NumpyBackend(), CupyBackend()
    wq, wr = cpu.words(q.codes, 24), cpu.words(r.codes, 24)
    dq, dr = gpu.words(cp.asarray(q.codes), 24), gpu.words(cp.asarray(r.codes), 24)
    assert np.array_equal(wq[0], cp.asnumpy(dq[0]))  # the same keys in the same order
    width = key_width(q.total, 24)
    keys = cpu.seed_keys(seed_groups(wq[0], wr[0]), wq[1], wr[1], r.total, width)
    dkeys = gpu.seed_keys(gpu.seed_groups(dq[0], dr[0]), dq[1], dr[1], r.total, width)
    assert keys.size > 100_000 and np.array_equal(keys, cp.asnumpy(dkeys))
    host_groups, dev_groups = seed_groups(wq[0], wr[0]), gpu.seed_groups(dq[0], dr[0])
    for field in ("qfirst", "qcount", "rfirst", "rcount"):
        assert np.array_equal(getattr(host_groups, field), cp.asnumpy(getattr(dev_groups, field)))
    assert np.array_equal(filter_keys(keys, 24), cp.asnumpy(filter_keys(dkeys, 24)))


def test_extension_matches(myco):
    from gpu_kernels.backend import CupyBackend, NumpyBackend
    from gpu_kernels.diagonals import decode_keys, filter_keys, key_width

    q, r = myco
    cpu, gpu = NumpyBackend(), CupyBackend()
    for params in (Params(k=32), Params(k=32, xdrop=0), Params(k=32, min_identity=0), Params(k=32, min_identity=70)):
        width = key_width(q.total, 32)
        (qk, qp), (rk, rp) = cpu.words(q.codes, 32), cpu.words(r.codes, 32)
        keys = filter_keys(cpu.seed_keys(seed_groups(qk, rk), qp, rp, r.total, width), 32)
        sq, sr = decode_keys(keys, r.total, width)
        host = cpu.extend(q.codes, r.codes, sq, sr, 32, params.extension)
        dev = gpu.extend(cp.asarray(q.codes), cp.asarray(r.codes), cp.asarray(sq), cp.asarray(sr), 32, params.extension)
        assert sq.size > 1000
        for h, d in zip(host, dev):  # score and identities come back as int32 on the device (extend_cupy)
            assert d.dtype in (h.dtype, np.int32) and np.array_equal(h, cp.asnumpy(d))


def test_words_and_windows_match(myco, monkeypatch):
    """select.cu's words (valid windows, chunk by chunk) and a window of them (words_in) equal the CPU's."""
    from gpu_kernels import words as W

    q = myco[0]
    codes = q.codes.copy()
    codes[5000:5040] = 4  # an N run
    monkeypatch.setattr(W, "CHUNK_CUPY", 100_003)  # several chunks, joined with their offsets
    for k in (12, 32):
        keys, pos = W.words(codes, k)
        dkeys, dpos = W.words_cupy(cp.asarray(codes), k)
        assert np.array_equal(keys, cp.asnumpy(dkeys)) and np.array_equal(pos, cp.asnumpy(dpos))
        for lo, hi in ((0, 1), (-50, 4097), (100_000, 300_000), (q.total - 10, q.total + 10)):
            expected = W.words_in(keys, pos, lo, hi, q.total)
            got = W.words_in_cupy(dkeys, dpos, lo, hi, q.total)
            assert all(np.array_equal(e, cp.asnumpy(g)) for e, g in zip(expected, got)), (lo, hi)


def test_kept_seeds_match():
    """select.cu's kept seeds (owned, not shadowed, decoded) equal diagonals.kept_seeds, across block
    boundaries, with margins on both axes and runs of shadowed seeds."""
    from gpu_kernels.diagonals import kept_seeds, kept_seeds_cupy

    rng = np.random.default_rng(7)
    rtotal, qtotal, k = 50_000, 40_000, 12
    width = qtotal + 2 * k
    for n in (0, 1, 2, 4095, 4096, 4097, 200_003):
        sq = rng.integers(0, qtotal, n)
        sr = rng.integers(0, rtotal, n)
        diag = rng.integers(0, 50, n) + rtotal  # few diagonals: many seeds within 2k of another
        keys = np.sort(((diag).astype(np.uint64) * np.uint64(width) + sq.astype(np.uint64)))
        del sr
        for q0, r0 in ((0, 0), (5_000, 0), (0, 7), (20_000, 30_000)):
            host = kept_seeds(keys, k, q0, r0, rtotal, width)
            dev = kept_seeds_cupy(cp.asarray(keys), k, q0, r0, rtotal, width)
            assert host[0] == dev[0]
            assert np.array_equal(host[1], cp.asnumpy(dev[1])) and np.array_equal(host[2], cp.asnumpy(dev[2]))
    assert host[1].size > 1000


def test_passing_and_records_match():
    """select.cu's passing HSPs and hsps.cu's record coordinates equal hsps.passing and
    hsps.to_records (both strands, several records)."""
    from gpu_kernels.hsps import passing, passing_cupy, to_records, to_records_cupy

    rng = np.random.default_rng(9)
    query = make_seqset(["a", "b", "c"], [np.zeros(n, dtype=np.uint8) for n in (30_000, 5_000, 70_000)])
    reference = make_seqset(["x", "y"], [np.zeros(n, dtype=np.uint8) for n in (60_000, 40_000)])
    for n in (0, 1, 4097, 100_000):
        sq = rng.integers(500, query.total - 500, n)  # HSPs inside the concatenation, as extension leaves them
        sr = rng.integers(500, reference.total - 500, n)
        qstart = sq - rng.integers(0, 100, n)
        qend = sq + rng.integers(0, 400, n)
        score = rng.integers(-50, 400, n)
        ids = np.minimum(qend - qstart, rng.integers(0, 400, n))
        for min_len, min_identity in ((0, 0.0), (64, 70.0), (100, 99.5)):
            host = passing(qstart, qend, score, ids, sq, sr, min_len, min_identity)
            dev = passing_cupy(*(cp.asarray(a) for a in (qstart, qend, score.astype(np.int32), ids.astype(np.int32), sq, sr)),
                               min_len, min_identity)
            assert list(host) == list(dev)
            for name in host:
                assert dev[name].dtype == np.int64 and np.array_equal(host[name], cp.asnumpy(dev[name])), name
        raw = {name: host[name] for name in host}
        for strand in (0, 1):
            expected = to_records(raw, strand, query, reference)
            got = to_records_cupy({name: cp.asarray(c) for name, c in raw.items()}, strand, query, reference)
            assert list(expected) == list(got)
            for name in expected:
                assert got[name].dtype == expected[name].dtype, name
                assert np.array_equal(expected[name], cp.asnumpy(got[name])), name


def test_union_length_matches():
    """hsps.cu's union_gains gives coverage.union_length's bases per group (sorted and unsorted rows,
    one group and many)."""
    from gpu_kernels.coverage import union_length, union_length_cupy

    rng = np.random.default_rng(11)
    for n, groups in ((1, 1), (33, 1), (100_000, 1), (100_000, 7), (300_001, 1000)):
        group = rng.integers(0, groups, n).astype(np.int32)
        start = rng.integers(0, 1_000_000, n)
        end = start + rng.integers(1, 5_000, n)
        for order in (np.arange(n), np.lexsort((start, group))):
            host = union_length(group[order], start[order], end[order], groups)
            dev = union_length_cupy(*(cp.asarray(a[order]) for a in (group, start, end)), groups)
            assert np.array_equal(host, cp.asnumpy(dev))
    assert host.sum() > 0


def test_table_coverage_matches():
    """Coverage gathered a chunk at a time on the device gives the NumPy backend's tables (chunks of
    every size, pairs and records on both sides, both strands)."""
    from gpu_kernels.coverage import table_coverage

    rng = np.random.default_rng(12)
    n = 400_000
    length = rng.integers(10, 3000, n)
    qstart, rstart = rng.integers(0, 5_000_000, n), rng.integers(0, 8_000_000, n)
    hsps = {"qrec": rng.integers(0, 5, n).astype(np.int32), "rrec": rng.integers(0, 7, n).astype(np.int32),
            "strand": rng.integers(0, 2, n).astype(np.int8), "qstart": qstart, "qend": qstart + length, "rstart": rstart}
    cuts = [0, 1, 1000, 150_000, 150_001, n]
    chunks = [{k: v[a:b] for k, v in hsps.items()} for a, b in zip(cuts, cuts[1:])]
    host = table_coverage(chunks, 5, 7)
    dev = table_coverage(({k: cp.asarray(v) for k, v in c.items()} for c in chunks), 5, 7, cp)
    (k1, c1, s1, a1), (k2, c2, s2, a2) = host.pairs(), dev.pairs()
    assert np.array_equal(k1, k2) and np.array_equal(c1, c2)
    assert all(np.array_equal(s1[side][name], s2[side][name]) for side in s1 for name in s1[side])
    assert np.array_equal(a1["aligned_bases"], a2["aligned_bases"])
    for side in ("query", "reference"):
        assert all(np.array_equal(host.records(side)[name], dev.records(side)[name]) for name in ("forward", "reverse", "both"))
    assert s1["query"]["both"].sum() > 0


def test_batches_copied_into_device_arrays_keep_every_row_in_order():
    from gpu_kernels.device import batched_cupy

    rng = np.random.default_rng(13)
    chunks = [{"a": rng.integers(0, 9, n).astype(np.int32), "b": rng.random(n)} for n in (5, 0, 17, 3, 40, 2, 19, 1)]
    got = [{k: cp.asnumpy(v) for k, v in batch.items()} for batch in batched_cupy(iter(chunks), 20)]
    assert all(len(batch["a"]) <= 40 for batch in got) and len(got) >= 4
    for name in ("a", "b"):
        assert np.array_equal(np.concatenate([batch[name] for batch in got]), np.concatenate([c[name] for c in chunks]))


def test_spread_bincount_equals_numpy_for_few_and_many_bins():
    from gpu_kernels.coverage import spread_bincount

    rng = np.random.default_rng(5)
    for bins in (1, 3, 5000, 3_000_000):  # 1024 lanes a bin down to one
        index = rng.integers(0, bins, 200_000)
        weights = rng.integers(0, 1000, index.size).astype(np.float64)  # whole numbers: exact in any order
        for w in (None, weights):
            got = spread_bincount(cp.asarray(index), None if w is None else cp.asarray(w), minlength=bins + 2)
            assert np.array_equal(cp.asnumpy(got), np.bincount(index, w, minlength=bins + 2)), (bins, w is None)


def test_device_batches_of_a_table_keep_every_row_narrowed_or_not(tmp_path):
    """The coverage rule's reading path on the device: row groups staged in page-locked buffers by
    several threads (more row groups than buffers, so each is reused), every row in order, the
    coordinates as int32 when narrowed."""
    from gpu_kernels.formats import iter_hsps
    from gpu_kernels.device import table_batches_cupy as device_batches
    from gpu_kernels.schema import HSP

    COVERAGE_COLUMNS = HSP.view("coverage")

    result = compare(MYCO_232, MYCO_7422, Params(k=16), backend="numpy")
    table = tmp_path / "h.parquet"
    result.write_parquet(str(table), row_group_rows=50)
    want = {name: np.concatenate([c[name] for c in iter_hsps(str(table), COVERAGE_COLUMNS)]) for name in COVERAGE_COLUMNS}
    for narrow, threads in ((True, 3), (False, 1)):
        got = [{k: cp.asnumpy(v) for k, v in batch.items()}
               for batch in device_batches(str(table), COVERAGE_COLUMNS, 120, narrow, threads)]
        assert len(got) > 3 and all(len(batch["qrec"]) <= 170 for batch in got)
        for name in COVERAGE_COLUMNS:
            column = np.concatenate([batch[name] for batch in got])
            assert np.array_equal(column, want[name]), (name, narrow)
            assert column.dtype == (np.int32 if narrow and want[name].dtype == np.int64 else want[name].dtype)


def test_coverage_tables_on_the_device_equal_the_host_ones(tmp_path, monkeypatch):
    """The coverage rule's tables from a table of many row groups, in batches of several row groups:
    the same bytes on both backends."""
    from gpu_kernels import backend as B
    from gpu_kernels.workflow import genome, tables

    result = compare(MYCO_232, MYCO_7422, Params(k=16), backend="numpy")
    table = tmp_path / "h.parquet"
    result.write_parquet(str(table), row_group_rows=64)
    q = genome.Genome.of("q", result.query.names, result.query.lengths)
    r = genome.Genome.of("r", result.reference.names, result.reference.lengths)
    monkeypatch.setattr(B.NumpyBackend, "batch_rows", 100)
    monkeypatch.setattr(B.CupyBackend, "batch_rows", 300)
    outputs = {}
    for backend in ("numpy", "cupy"):
        paths = [str(tmp_path / f"{backend}_{name}.tsv") for name in ("pairs", "query", "reference", "genomes")]
        summary = str(tmp_path / f"{backend}.npz")
        tables.hsp_coverage(str(table), q, r, summary, backend=backend, threads=4)
        tables.coverage_tables(summary, q, r, *paths)
        outputs[backend] = [open(p).read() for p in paths]
    assert result.table["qstart"].size > 500 and outputs["numpy"] == outputs["cupy"]


def test_running_max_matches():
    from gpu_kernels.arrays import running_max_cupy as running_max

    rng = np.random.default_rng(1)
    for n in (1, 5, 1023, 1024, 1025, 300_000, 3_000_000):
        values = rng.integers(-10**12, 10**12, n)
        assert np.array_equal(np.maximum.accumulate(values), cp.asnumpy(running_max(cp.asarray(values))))


def test_prebuilt_kernels_load_and_agree_with_nvrtc():
    """Every kernel of every .cu file loads from the fatbin built at install, and gives what the
    NVRTC-compiled source gives."""
    import re

    from gpu_kernels import arrays, kernels

    if not all(kernels.prebuilt(f) for f in kernels.files()):
        pytest.skip("no fatbins: the install had no nvcc")
    for file in kernels.files():
        for name in re.findall(r'extern "C" __global__ void (\w+)', kernels.source(file)):
            assert arrays._prebuilt(file).get_function(name) is not None, (file, name)
    rng = np.random.default_rng(5)
    mask = cp.asarray(rng.random(1_000_003) < 0.3)
    counts = []
    for module in (arrays._prebuilt("scan.cu"), arrays._compiled("scan.cu")):
        total = cp.zeros(1, dtype=cp.uint64)
        module.get_function("count_true")((arrays.blocks(mask.size),), (arrays.BLOCK,), (mask, cp.int64(mask.size), total))
        counts.append(int(total.get()[0]))
    assert counts[0] == counts[1] == int(cp.asnumpy(mask).sum())
    assert not arrays._UNLOADABLE


def test_every_and_count_on_the_device():
    """arrays.every and arrays.count (scan.cu's kernels, not CuPy's CUB reductions) agree with NumPy."""
    from gpu_kernels.arrays import count, every

    rng = np.random.default_rng(3)
    for n in (0, 1, 31, 33, 1000, 3_000_001):
        for p in (0.0, 0.5, 0.999999, 1.0):
            mask = rng.random(n) < p
            for host, dev in ((mask, cp.asarray(mask)), (mask[::2], cp.asarray(mask)[::2])):
                assert every(dev) == bool(host.all()) and count(dev) == int(host.sum())


def test_real_pair_same_hsps():
    for params in (Params(), Params(xdrop=0), Params(min_identity=0), Params(k=20, min_len=40, min_identity=70)):
        cpu = compare(MYCO_232, MYCO_7422, params, backend="numpy")
        gpu = compare(MYCO_232, MYCO_7422, params, backend="cupy")
        assert gpu.stats["backend"] == "cupy"
        assert hsp_set(gpu) == hsp_set(cpu) and len(hsp_set(cpu)) > 400


def test_small_budget_splits_on_gpu():
    whole = compare(MYCO_232, MYCO_7422, Params(k=16), backend="cupy")
    split = compare(MYCO_232, MYCO_7422, Params(k=16, tile_bytes=1 << 20), backend="cupy")
    assert split.stats["tiles"] > whole.stats["tiles"]
    assert hsp_set(split) == hsp_set(whole)


def test_out_of_memory_splits_the_tile(monkeypatch):
    import threading

    from gpu_kernels.backend import CupyBackend

    real = CupyBackend.seed_keys
    calls = {"n": 0}

    def flaky(groups, qp, rp, rtotal, width):
        # only the comparing thread's calls fail: the warm-up's rehearsals (warm.py) call it too
        if threading.current_thread() is not threading.main_thread():
            return real(groups, qp, rp, rtotal, width)
        calls["n"] += 1
        if calls["n"] <= 2:
            raise cp.cuda.memory.OutOfMemoryError(1 << 40, 0)
        return real(groups, qp, rp, rtotal, width)

    expected = hsp_set(compare(MYCO_232, MYCO_7422, Params(), backend="cupy"))
    monkeypatch.setattr(CupyBackend, "seed_keys", staticmethod(flaky))
    result = compare(MYCO_232, MYCO_7422, Params(), backend="cupy")
    assert result.stats["retries"] == 2 and hsp_set(result) == expected


cases = st.tuples(st.integers(0, 2**31), st.integers(40, 900), st.integers(1, 3), st.sampled_from([8, 12, 16, 32]),
                  st.sampled_from([0, 20]), st.sampled_from([0.0, 70.0, 80.0]), st.sampled_from([0, 20, 50]),
                  st.sampled_from([0, 0, 3]), st.sampled_from([0, 40]))


@settings(max_examples=120, deadline=None)
@given(cases)
def test_generated_cases_same_as_numpy_and_oracle(case):
    seed, length, nrec, k, min_len, min_identity, xdrop, max_freq, tile_len = case
    query, reference = related_pair(seed, length, nrec, k)
    params = Params(k=k, min_len=min_len, min_identity=min_identity, xdrop=xdrop, max_freq=max_freq,
                    tile_len=tile_len and max(k, tile_len))
    gpu = hsp_set(compare(records(query), records(reference), params, backend="cupy"))
    assert gpu == hsp_set(compare(records(query), records(reference), params, backend="numpy"))
    if length < 400:
        assert gpu == oracle.compare(query, reference, params)


def test_warm_command_fills_the_kernel_cache_and_a_second_one_adds_nothing(tmp_path):
    """`warm` on an empty kernel cache leaves the kernels of every stage there (each compilation
    leaves a file), and a second `warm` finds them all: a run of the same stages compiles nothing.
    (CuPy's reductions over a few hundred rows or less compile a kernel a power of two of their
    size, which tiny inputs can still meet: a few tenths of a second on the bundled pair.)"""
    import os
    import subprocess
    import sys

    env = {**os.environ, "CUPY_CACHE_DIR": str(tmp_path / "cache")}
    subprocess.run([sys.executable, "-m", "gpu_kernels", "warm"], env=env, check=True, capture_output=True)
    cached = sorted(os.listdir(tmp_path / "cache"))
    assert len(cached) > 40
    subprocess.run([sys.executable, "-m", "gpu_kernels", "warm"], env=env, check=True, capture_output=True)
    assert sorted(os.listdir(tmp_path / "cache")) == cached
