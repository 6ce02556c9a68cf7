"""The CuPy backend against the NumPy backend, stage by stage and end to end (skipped without a GPU)."""
import numpy as np
import pytest

from gpu_kernels.schema import MATCH
from hypothesis import given, settings, strategies as st

import oracle
from conftest import MYCO_232, MYCO_7422
from generate import related_pair
from gpu_kernels import Params, compare
from hspsets import hsp_set, records
from test_align import drawn_case  # at import: a @given module imported inside a @given test is nested
from test_chains import refine_case
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
        tables.coverage_tables(str(table), q, r, *paths, backend=backend, threads=4)
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


@pytest.mark.parametrize("unique", [False, True])
def test_exact_matches_same_on_gpu(unique):
    from gpu_kernels.backend import CupyBackend, NumpyBackend
    from gpu_kernels.matches import find_matches

    q, r = read_fasta(MYCO_232), read_fasta(MYCO_7422)
    query = make_seqset([x.name for x in q], [x.codes for x in q])
    reference = make_seqset([x.name for x in r], [x.codes for x in r])
    for min_len in (20, 50):
        host = find_matches(query, reference, min_len, unique, NumpyBackend())
        dev = find_matches(query, reference, min_len, unique, CupyBackend())
        rows = lambda m: set(zip(*(np.asarray(m[c]).tolist() for c in MATCH.names)))
        assert rows(host) == rows(dev) and len(rows(host)) > 1000


def test_exact_matches_in_repeats_same_on_gpu(monkeypatch):
    """Tandem repeats, N runs and many records (pairs that extend left skipped by their symbol
    before, record starts), with room for 7 MEMs at first so the kernel runs twice: the CPU's MEMs."""
    from gpu_kernels import matches as M
    from gpu_kernels.backend import CupyBackend, NumpyBackend

    rng = np.random.default_rng(5)
    unit = rng.integers(0, 4, 7).astype(np.uint8)

    def genome(n):
        parts = []
        for _ in range(n):
            piece = rng.integers(0, 4, int(rng.integers(30, 300))).astype(np.uint8)
            piece[rng.random(piece.size) < 0.02] = 4
            parts.append(np.concatenate([np.tile(unit, int(rng.integers(1, 12))), piece]))
        return make_seqset([f"s{i}" for i in range(n)], parts)

    query, reference = genome(40), genome(30)
    monkeypatch.setattr(M, "first_room", lambda: 7)
    for unique in (False, True):
        host = M.find_matches(query, reference, 12, unique, NumpyBackend())
        dev = M.find_matches(query, reference, 12, unique, CupyBackend())
        rows = lambda m: sorted(zip(*(np.asarray(m[c]).tolist() for c in MATCH.names)))
        assert rows(host) == rows(dev) and len(rows(host)) > (20 if unique else 1000)


def test_reference_tiles_same_on_gpu():
    """A reference matched a tile of records at a time on the device (issue 35: a genome bigger than the
    device) gives the CPU's one-pass columns, row for row and in order; MUMs unique over all tiles."""
    from gpu_kernels import matches as M
    from gpu_kernels.backend import CupyBackend, NumpyBackend

    rng = np.random.default_rng(8)
    ancestor = rng.integers(0, 4, 5000).astype(np.uint8)

    def copies(n, prefix):
        parts = []
        for _ in range(n):
            at = int(rng.integers(0, 4000))
            piece = ancestor[at:at + int(rng.integers(200, 1000))].copy()
            piece[rng.random(piece.size) < 0.03] = rng.integers(0, 5)
            parts.append(piece)
        return make_seqset([f"{prefix}{i}" for i in range(n)], parts)

    query, reference = copies(12, "q"), copies(9, "r")
    for unique in (False, True):
        host = M.find_matches(query, reference, 15, unique, NumpyBackend())
        for tile in (1, 1500):
            dev = M.find_matches(query, reference, 15, unique, CupyBackend(), tile_bases=tile)
            assert all(np.array_equal(host[c], dev[c]) for c in MATCH.names), (unique, tile)
        assert host["length"].size > (50 if unique else 150)


@pytest.mark.parametrize("length", [1, 12, 33, 64, 1024])
def test_whole_record_matches_same_on_gpu(length):
    """Records exactly -l long looked up whole (issue 35): the device's window hashes, index and hits are
    the CPU's, row for row and in order, on a repeat-rich reference of several records with N runs,
    probes drawn from it (both strands, over N runs, at record ends) and random ones; then find_matches
    on a mix of whole records and longer ones."""
    from gpu_kernels import matches as M
    from gpu_kernels.backend import CupyBackend, NumpyBackend

    rng = np.random.default_rng(length)
    unit = rng.integers(0, 4, 5).astype(np.uint8)
    pieces = []
    for _ in range(6):
        piece = np.concatenate([rng.integers(0, 4, int(rng.integers(length, 4 * length + 200))).astype(np.uint8),
                                np.tile(unit, 2 * length // 5 + 3)])
        piece[rng.random(piece.size) < 0.01] = 4
        pieces.append(piece)
    reference = make_seqset([f"r{i}" for i in range(6)], pieces)
    probes = []
    for _ in range(300):
        piece = pieces[int(rng.integers(0, 6))]
        at = int(rng.integers(0, piece.size - length + 1))
        probe = piece[at:at + length].copy()
        probes.append(probe if rng.random() < 0.5 else M.reverse_complement(probe))
    probes += [rng.integers(0, 4, length).astype(np.uint8) for _ in range(50)]
    probes += [rng.integers(0, 4, length + int(rng.integers(1, 50))).astype(np.uint8) for _ in range(20)]
    query = make_seqset([f"q{i}" for i in range(len(probes))], probes)
    whole = M.whole_records(query, length)
    host_index = M.whole_index(reference.codes, length)
    dev_index = M.whole_index_cupy(cp.asarray(reference.codes), length)
    assert all((a == b.get()).all() for a, b in zip(host_index, dev_index))
    starts = query.starts[whole]
    for strand in (0, 1):
        host = M.whole_record_matches(query.codes, starts, reference.codes, host_index, length, strand)
        dev = M.whole_record_matches_cupy(cp.asarray(query.codes), starts, cp.asarray(reference.codes), dev_index,
                                          length, strand)
        assert all((a == b.get()).all() for a, b in zip(host, dev))
        assert host[0].size >= (100 if strand == 0 else 1)
    for unique in (False, True):
        host = M.find_matches(query, reference, length, unique, NumpyBackend())
        dev = M.find_matches(query, reference, length, unique, CupyBackend())
        rows = lambda m: sorted(zip(*(np.asarray(m[c]).tolist() for c in MATCH.names)))
        assert rows(host) == rows(dev)


def drawn_fasta(rng, records: int, long: bool) -> bytes:
    """FASTA text of drawn records: LF or CRLF lines of drawn widths, blanks in lines, letters of any case,
    IUPAC codes and U, some records long (many device pieces), some a single line."""
    letters = np.frombuffer(b"ACGTNacgtnRYUu-", dtype=np.uint8)
    rows = []
    for r in range(records):
        size = int(rng.choice([1, 7, 300, 5000] + ([70_000] if long else [])))
        seq = letters[rng.integers(0, letters.size, size)].tobytes()
        end = [b"\n", b"\r\n"][int(rng.integers(0, 2))]
        width = int(rng.choice([10, 61, 100_000]))
        lines = [seq[i:i + width] for i in range(0, len(seq), width)]
        if rng.random() < 0.2:
            lines = [line + b" \t" for line in lines]
        rows.append(f">r{r} note\n".encode() + end.join(lines) + end)
    return b"".join(rows)


@pytest.mark.parametrize("seed", range(8))
def test_device_fasta_encoding_equals_the_host_one(seed, monkeypatch):
    """fasta.encode_fasta_cupy (fasta.cu: a warp a piece of a body) gives encode_fasta's lengths, starts
    and codes, borders included, for drawn files (records over many pieces, CRLF, blanks, IUPAC, U),
    with the bytes copied by it or handed over on the device; a bad byte, an empty record and an all-N
    one get the host's error, word for word."""
    from gpu_kernels import fasta
    from gpu_kernels.errors import InputError

    monkeypatch.setattr(fasta, "DEVICE_PIECE", int(np.random.default_rng(seed).choice([64, 1000, 1 << 14])))
    rng = np.random.default_rng(seed)
    text = drawn_fasta(rng, int(rng.integers(1, 40)), seed % 2 == 0)
    spans = fasta.layout(text, "x.fa")
    host = fasta.encode_fasta(text, spans, "x.fa", True)
    on_device = cp.asarray(np.frombuffer(text, dtype=np.uint8)) if seed % 3 == 0 else None
    dev = fasta.encode_fasta_cupy(text, spans, "x.fa", True, on_device)
    assert isinstance(dev.codes, cp.ndarray) and dev.names == host.names
    assert np.array_equal(dev.lengths, host.lengths) and np.array_equal(dev.starts, host.starts)
    assert np.array_equal(dev.codes.get(), host.codes) and np.array_equal(dev.has_acgt, host.has_acgt)
    at = int(rng.integers(0, len(spans)))
    _, start, end = spans[at]
    cases = []
    body = bytearray(text[start:end])
    letters = [i for i, b in enumerate(body) if chr(b).isalpha()]
    if letters:
        body[letters[int(rng.integers(0, len(letters)))]] = ord("!")
        cases.append((text[:start] + bytes(body) + text[end:], True))
    cases.append((text[:start] + b"\n" + text[end:], True))  # an empty record
    cases.append((text[:start] + b"N" * (end - start) + b"\n" + text[end:], False))  # all N, not a read set
    for bad, reads in cases:
        spans = fasta.layout(bad, "x.fa")
        with pytest.raises(InputError) as expected:
            fasta.encode_fasta(bad, spans, "x.fa", reads)
        with pytest.raises(InputError) as got:
            fasta.encode_fasta_cupy(bad, spans, "x.fa", reads)
        assert str(got.value) == str(expected.value)


def test_a_set_too_large_for_the_device_is_encoded_on_the_host(monkeypatch):
    """encode_fasta_cupy out of device memory (the bytes and codes of a read set larger than the GPU):
    the host's encoding instead, the same SeqSet with NumPy codes, and no error."""
    from gpu_kernels import fasta

    def full(*args):
        raise cp.cuda.memory.OutOfMemoryError(1 << 40, 1 << 30)
    text = drawn_fasta(np.random.default_rng(1), 20, False)
    spans = fasta.layout(text, "x.fa")
    monkeypatch.setattr(fasta, "_encode_on_device", full)
    got, expected = fasta.encode_fasta_cupy(text, spans, "x.fa", True), fasta.encode_fasta(text, spans, "x.fa", True)
    assert isinstance(got.codes, np.ndarray) and np.array_equal(got.codes, expected.codes)
    assert np.array_equal(got.starts, expected.starts) and got.names == expected.names


def test_large_host_arrays_go_to_the_device_whole(monkeypatch):
    """arrays.to_device through the two kept pinned buffers (filled on threads, fasta.c's copy_bytes):
    every byte arrives, for sizes that are and are not a whole number of chunks, any dtype."""
    from gpu_kernels import arrays

    monkeypatch.setattr(arrays, "PINNED_COPY", 1 << 10)
    monkeypatch.setattr(arrays, "PINNED_CHUNK", 1 << 12)
    monkeypatch.setattr(arrays, "_staging", [])
    rng = np.random.default_rng(3)
    for size, dtype in ((1 << 10, np.uint8), (3 * (1 << 12), np.uint8), (12_345, np.int64), (5000, np.uint32)):
        host = rng.integers(0, 1 << 30, size).astype(dtype)
        dev = arrays.to_device(host, cp)
        assert dev.dtype == host.dtype and np.array_equal(dev.get(), host)
        assert np.array_equal(arrays.to_host(dev), host)


@pytest.mark.parametrize("unique", [False, True])
def test_matches_of_a_query_encoded_on_the_device_equal_the_host_ones(unique, monkeypatch):
    """A read or probe set whose codes live on the device (the command line's mems and mums on the GPU):
    skipped records (all N, too short) and whole-record ones made borders there (fasta.cu's fill_spans),
    batches cut as views of the device codes: the rows of the host query's matches."""
    from gpu_kernels import fasta, matches as M
    from gpu_kernels.backend import CupyBackend, NumpyBackend

    rng = np.random.default_rng(7)
    reference = rng.integers(0, 4, 30_000).astype(np.uint8)
    reference[12_000:12_400] = 4
    rtext = b">ref\n" + np.frombuffer(b"ACGTN", dtype=np.uint8)[reference].tobytes() + b"\n"
    rows = []
    for i in range(200):
        kind = i % 5
        at = int(rng.integers(0, reference.size - 400))
        size = 40 if kind < 2 else int(rng.integers(41, 400)) if kind < 4 else 5
        seq = np.frombuffer(b"ACGTN", dtype=np.uint8)[reference[at:at + size]].tobytes()
        if i % 17 == 0:
            seq = b"N" * len(seq)
        rows.append(f">q{i}\n".encode() + b"\n".join(seq[j:j + 60] for j in range(0, len(seq), 60)) + b"\n")
    text = b"".join(rows)
    query = fasta.encode_fasta(text, fasta.layout(text, "q.fa"), "q.fa", True)
    dev_query = fasta.encode_fasta_cupy(text, fasta.layout(text, "q.fa"), "q.fa", True)
    ref = fasta.encode_fasta(rtext, fasta.layout(rtext, "r.fa"), "r.fa")
    host = M.find_matches(query, ref, 40, unique, NumpyBackend(), batch_bases=3000)
    dev = M.find_matches(dev_query, ref, 40, unique, CupyBackend(), batch_bases=3000)
    assert all(np.array_equal(host[c], dev[c]) for c in MATCH.names)
    assert host["length"].size > (30 if unique else 60)
    skipped = M.skip_unmatchable(dev_query, 40)
    assert isinstance(skipped.codes, cp.ndarray)
    assert np.array_equal(skipped.codes.get(), M.skip_unmatchable(query, 40).codes)


def test_mems_command_line_same_text_on_both_backends(tmp_path):
    """The command line's mems and mums with the probe set encoded on the device: the NumPy backend's
    text, byte for byte; a probe set with a bad letter gets the same one line and status 2."""
    import subprocess
    import sys

    from conftest import ROOT

    rng = np.random.default_rng(4)
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)
    reference = letters[rng.integers(0, 4, 50_000)].tobytes()
    ref = tmp_path / "ref.fa"
    ref.write_bytes(b">chr\n" + b"\n".join(reference[i:i + 80] for i in range(0, len(reference), 80)) + b"\n")
    probes = []
    for i in range(3000):
        at = int(rng.integers(0, len(reference) - 200))
        seq = reference[at:at + (64 if i % 4 else int(rng.integers(20, 200)))]
        probes.append(b">p%d\n%s\n" % (i, seq if i % 3 else letters[rng.integers(0, 4, len(seq))].tobytes()))
    query = tmp_path / "probes.fa"
    query.write_bytes(b"".join(probes))
    for mode in ("mems", "mums"):
        texts = [subprocess.run([sys.executable, "-m", "gpu_kernels", mode, str(query), str(ref), "-l", "64",
                                 "--backend", backend], cwd=ROOT, capture_output=True, check=True).stdout
                 for backend in ("numpy", "cupy")]
        assert texts[0] == texts[1] and texts[0].count(b"\n") > 4000
    query.write_bytes(b"".join(probes[:2000]) + b">bad\nACG1T\n" + b"".join(probes[2000:]))
    errors = [subprocess.run([sys.executable, "-m", "gpu_kernels", "mems", str(query), str(ref), "-l", "64",
                              "--backend", backend], cwd=ROOT, capture_output=True, text=True)
              for backend in ("numpy", "cupy")]
    assert [e.returncode for e in errors] == [2, 2] and errors[0].stderr == errors[1].stderr
    assert "unexpected character '1'" in errors[1].stderr and errors[1].stderr.count("\n") == 1


@pytest.mark.parametrize("seed", range(6))
def test_delta_pages_same_bytes_on_gpu(seed):
    """The device's Parquet pages are byte for byte the NumPy twin's, at both widths, any group size."""
    from gpu_kernels.pages import delta_pages, delta_pages_cupy

    rng = np.random.default_rng(seed)
    for n, group in ((1, 1), (129, 128), (5000, 1000), (300_001, 1 << 16)):
        for bits, values in ((64, rng.integers(-2**63, 2**63 - 1, n)), (64, np.sort(rng.integers(0, 10**9, n))),
                             (32, rng.integers(-2**31, 2**31 - 1, n)), (32, rng.integers(0, 3, n))):
            host = delta_pages(values, group, bits)
            device = [cp.asnumpy(a) for a in delta_pages_cupy(cp.asarray(values), group, bits)]
            for a, b in zip(host, device):
                assert np.array_equal(a, b), (n, group, bits)


def test_gpu_parquet_equals_cpu_parquet(tmp_path):
    """The real pair's HSP table written from the GPU is the same file as from the CPU."""
    from gpu_kernels.backend import CupyBackend, NumpyBackend

    cpu = compare(MYCO_232, MYCO_7422, backend=NumpyBackend())
    gpu = compare(MYCO_232, MYCO_7422, backend=CupyBackend())
    a, b = tmp_path / "cpu.parquet", tmp_path / "gpu.parquet"
    cpu.write_parquet(str(a), row_group_rows=100)
    gpu.write_parquet(str(b), row_group_rows=100)
    import pyarrow.parquet as pq

    ta, tb = pq.read_table(a), pq.read_table(b)
    assert ta.num_rows > 500 and ta.equals(tb) and pq.ParquetFile(b).num_row_groups == -(-ta.num_rows // 100)


def test_pinned_buffers_reserved_during_compare_give_the_same_table(tmp_path, monkeypatch):
    """With the writer's pinned buffers readied while compare puts the table in order (reserve_pages,
    here for a table of a few hundred rows), the Parquet table's pages are the same bytes as without
    them, and the write used the buffers reserved."""
    from gpu_kernels import backend as B

    files = []
    for prepin in ("0", "1"):
        monkeypatch.setenv("GPU_KERNELS_PREPIN", prepin)
        monkeypatch.setattr(B, "PREPIN_MIN_ROWS", 1)
        monkeypatch.setattr(B, "PAGE_BYTES_GUESS", 256)  # surely enough: no slice outgrows the buffers
        gpu = B.CupyBackend()
        result = compare(MYCO_232, MYCO_7422, backend=gpu)
        reserved = gpu._ring.buffers[0] if gpu._ring is not None else None
        files.append(tmp_path / f"{prepin}.parquet")
        result.write_parquet(str(files[-1]), row_group_rows=100)
        if prepin == "1":
            assert reserved is not None and reserved.size >= result.stats["hsps"] * B.PAGE_BYTES_GUESS
            assert gpu._ring.buffers[0] is reserved  # taken, not pinned again
        else:
            assert reserved is None
    # the same pages byte for byte; the footers differ only in the stats' times
    pages = []
    for path in files:
        data = path.read_bytes()
        pages.append(data[:len(data) - 8 - int.from_bytes(data[-8:-4], "little")])
    import pyarrow.parquet as pq

    assert len(pages[0]) > 4000 and pages[0] == pages[1] and pq.read_table(files[0]).equals(pq.read_table(files[1]))

    # a last write gives its buffers back as it finishes; a write after it pins new ones
    for last in (True, False):
        ring = gpu._ring
        files.append(tmp_path / f"last-{last}.parquet")
        result.write_parquet(str(files[-1]), row_group_rows=100, last=last)
        if last:
            assert gpu._ring is None
            gpu._releasing.join(timeout=60)
            assert not gpu._releasing.is_alive() and ring.buffers == [None] * len(ring.buffers)
        else:
            assert gpu._ring is not None
        data = files[-1].read_bytes()
        assert data[:len(pages[0])] == pages[0]


def test_concatenate_copies_device_memory():
    """arrays.concatenate (device-to-device copies) equals np.concatenate, empty parts and views included."""
    from gpu_kernels.arrays import concatenate

    rng = np.random.default_rng(3)
    for dtype in (np.int8, np.int32, np.int64, np.uint64):
        parts = [rng.integers(0, 100, n).astype(dtype) for n in (5, 0, 1000, 1)]
        device = [cp.asarray(p) for p in parts]
        device[2] = cp.asarray(np.repeat(parts[2], 2))[::2]  # a strided view
        got = concatenate(device)
        assert got.dtype == dtype and np.array_equal(cp.asnumpy(got), np.concatenate(parts))


WARM_CHILD = """
import os, sys
import cupy.cuda.compiler as compiler
from gpu_kernels import compare, warm
from gpu_kernels.backend import CupyBackend
from gpu_kernels.params import Params

params = Params(tile_len=int(sys.argv[3]))
warm.rehearse(CupyBackend(), params)
late = []
inner = compiler._compile_module_with_cache
def counted(source, *args, **kwargs):
    import re, traceback
    where = " < ".join(f"{f.name}:{f.lineno}" for f in reversed(traceback.extract_stack()) if "gpu_kernels" in f.filename)
    late.append(" ".join(re.findall(r"__global__ void (\\w+)", source)) + " from " + where)
    return inner(source, *args, **kwargs)
compiler._compile_module_with_cache = counted
os.environ["GPU_KERNELS_REHEARSE"] = "0"
result = compare(sys.argv[1], sys.argv[2], params, backend=CupyBackend())
result.write_parquet(sys.argv[4], row_group_rows=100)
print(len(late), result.stats["hsps"], result.stats["tiles"])
for source in late:
    print("----", source)
"""


@pytest.mark.parametrize("tile_len", [0, 300_000])
def test_warm_up_readies_every_cupy_kernel(tmp_path, tile_len):
    """In a fresh process, after warm.py's rehearsals, a comparison (one tile, or several whose tables
    are joined) and its Parquet write load no kernel of CuPy's: the rehearsals made every one ready."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", WARM_CHILD, MYCO_232, MYCO_7422, str(tile_len),
                          str(tmp_path / "t.parquet")], capture_output=True, text=True, check=True).stdout
    late, hsps, tiles = (int(x) for x in out.split("\n", 1)[0].split())
    assert hsps > 500 and (tiles > 2) == bool(tile_len)  # a tile or more a strand
    assert late == 0, out[:6000]


def test_device_helpers_match_numpy():
    """gather, has_ties, is_sorted, sum_difference (select.cu, scan.cu), packed keys and complete (hsps.cu)
    against their NumPy forms, sizes across block edges."""
    from gpu_kernels.arrays import gather, has_ties, is_sorted, sum_difference
    from gpu_kernels.hsps import complete, packed, packed_keys

    rng = np.random.default_rng(9)
    for n in (0, 1, 2, 255, 256, 257, 100_003):
        order = rng.permutation(n).astype(np.int64)
        for dtype in (np.int8, np.int32, np.int64, np.uint64, np.bool_):
            values = rng.integers(0, 100, n).astype(dtype)
            assert np.array_equal(cp.asnumpy(gather(cp.asarray(values), cp.asarray(order))), values[order])
        ties = np.sort(rng.integers(0, max(1, 3 * n), n))
        distinct = np.arange(n, dtype=np.int64) * 3
        for values in (ties, distinct, distinct[::-1].copy()):
            assert has_ties(cp.asarray(values)) == has_ties(values) == bool(n > 1 and (np.diff(values) == 0).any())
            assert is_sorted(cp.asarray(values)) == is_sorted(values) == bool((np.diff(values) >= 0).all())
        low = rng.integers(0, 10**9, n)
        high = low + rng.integers(0, 10**6, n)
        assert sum_difference(cp.asarray(high), cp.asarray(low)) == sum_difference(high, low) == int((high - low).sum())
        columns = [rng.integers(0, 3, n).astype(np.int32), rng.integers(0, 2, n).astype(np.int8),
                   rng.integers(0, 10**9, n), rng.integers(0, 10**9, n)]
        spans = [3, 2, 10**10, 10**10]
        for got, want in zip(packed_keys([cp.asarray(c) for c in columns], spans), packed_keys(columns, spans)):
            assert np.array_equal(cp.asnumpy(got), want)
        assert len(packed_keys(columns, spans)) == 2  # 3 * 2 * 10^20 passes 2^63: split in two keys
        assert np.array_equal(cp.asnumpy(packed([cp.asarray(columns[0])], [1])), columns[0].astype(np.int64))
        table = {"qstart": low, "qend": high, "rstart": low[::-1].copy(), "qrec": columns[0]}
        for name, column in complete({k: cp.asarray(v) for k, v in table.items()} | {"rrec": cp.asarray(columns[0]),
                                      "strand": cp.asarray(columns[1]), "score": cp.asarray(low),
                                      "identities": cp.asarray(low)}).items():
            want = complete(table | {"rrec": columns[0], "strand": columns[1], "score": low, "identities": low})[name]
            assert np.array_equal(cp.asnumpy(column), want), name


EARLY_CHILD = """
import ctypes, sys
from gpu_kernels.device import early_context

early_context().join()
assert "cupy" not in sys.modules
driver = ctypes.CDLL("libcuda.so.1")
flags, active = ctypes.c_uint(), ctypes.c_int()
driver.cuDevicePrimaryCtxGetState(0, ctypes.byref(flags), ctypes.byref(active))
from gpu_kernels import compare
result = compare(sys.argv[1], sys.argv[2], backend="cupy")
print(active.value, result.stats["hsps"])
"""


def test_early_context_is_made_before_cupy_and_used_by_it():
    """early_context makes device 0's primary context before CuPy is imported; CuPy's compare then
    runs in it and finds what NumPy finds."""
    import subprocess
    import sys

    active, hsps = subprocess.run([sys.executable, "-c", EARLY_CHILD, MYCO_232, MYCO_7422], capture_output=True,
                                  text=True, check=True).stdout.split()
    assert active == "1" and int(hsps) == compare(MYCO_232, MYCO_7422, backend="numpy").stats["hsps"] > 500


def test_chains_are_the_same_on_both_backends(tmp_path):
    """compare --chains, --chain-file on the GPU backend: byte for byte the CPU backend's files, and the
    chains table and the HSP table's chain column have the same rows."""
    import subprocess
    import sys

    import pyarrow.parquet as pq

    from conftest import ROOT

    out = {}
    for backend in ("numpy", "cupy"):
        paths = [str(tmp_path / f"{backend}.{suffix}") for suffix in ("paf", "chain", "parquet", "hsps.parquet")]
        subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--backend", backend,
                        "--chains", paths[0], "--chain-file", paths[1], "--chains-table", paths[2], "--hsps", paths[3]],
                       check=True, cwd=ROOT, capture_output=True)
        out[backend] = [open(paths[0], "rb").read(), open(paths[1], "rb").read(),
                        pq.read_table(paths[2]).to_pydict(), pq.read_table(paths[3]).to_pydict()]
    assert out["numpy"] == out["cupy"] and out["numpy"][0].count(b"tp:A:P") >= 5


def test_hsp_table_written_while_chaining_has_the_chain_column_last(tmp_path):
    """write_parquet chaining as it writes (chain_soon on its own stream): the chain column after the
    others (each chunk where the footer says); the table reads as the CPU backend's, chained first;
    the chains table is the same too; the chains are handed over as soon as begun."""
    import pyarrow.parquet as pq

    tables = {}
    for backend in ("numpy", "cupy"):
        result = compare(MYCO_232, MYCO_7422, Params(), backend=backend)
        path = str(tmp_path / f"{backend}.parquet")
        handed = []
        result.write_parquet(path, row_group_rows=100, chained=handed.append)
        assert len(handed) == 1 and handed[0] is result.chain_soon()
        tables[backend] = (pq.read_table(path), handed[0].result())
        assert pq.ParquetFile(path).metadata.num_row_groups > 2
    (want, want_chains), (got, got_chains) = tables["numpy"], tables["cupy"]
    assert got.equals(want) and (want.column("chain").to_numpy() >= 0).sum() > 100
    assert all(np.array_equal(np.asarray(got_chains[k]), want_chains[k]) for k in want_chains)
    meta = pq.ParquetFile(str(tmp_path / "cupy.parquet")).metadata
    chain_column = meta.schema.names.index("chain")
    last_group = meta.row_group(meta.num_row_groups - 1)
    assert meta.row_group(0).column(chain_column).data_page_offset > max(
        last_group.column(i).data_page_offset for i in range(chain_column))


def same_chains(table: dict, qlens, rlens, params: Params) -> None:
    """chain_hsps_cupy (the DP and the extraction on the device, a warp a component) gives chain_hsps'
    chains table, chain of every HSP and members."""
    from gpu_kernels.chains import chain_hsps, chain_hsps_cupy

    want = chain_hsps(table, qlens, rlens, params)
    got = chain_hsps_cupy({k: cp.asarray(v) for k, v in table.items()}, qlens, rlens, params, ordered=True)
    assert all(np.array_equal(got[0][name], want[0][name]) for name in want[0])
    assert np.array_equal(cp.asnumpy(got[1]), want[1])
    assert all(np.array_equal(got[2][name], want[2][name]) for name in want[2])


@pytest.mark.parametrize("seed", range(12))
def test_chains_of_a_device_table_equal_the_host_ones(seed):
    """On drawn tables (records, strands, repeats, ties) with thresholds that drop many or none."""
    from test_chains import drawn_table

    table, qlens, rlens = drawn_table(seed, 400, 1 + seed % 3, 3000)
    for params in (Params(min_chain_score=0), Params(min_chain_score=150, max_shift=7, max_gap=200), Params()):
        same_chains(table, qlens, rlens, params)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 300), records=st.integers(1, 3),
       max_shift=st.sampled_from([1, 7, 50, 1000]), max_gap=st.sampled_from([0, 30, 200, 10_000]),
       min_chain_score=st.sampled_from([0, 50, 400]), gap_open=st.integers(0, 20))
def test_device_chains_equal_the_host_ones_on_drawn_tables(seed, n, records, max_shift, max_gap, min_chain_score,
                                                           gap_open):
    """The drawing of tests/test_chains.py's oracle test (whose oracle the host chains equal)."""
    from test_chains import drawn_table

    table, qlens, rlens = drawn_table(seed, n, records, 2000)
    same_chains(table, qlens, rlens, Params(max_shift=max_shift, max_gap=max_gap, min_chain_score=min_chain_score,
                                            chain_gap_open=gap_open))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), records=st.integers(1, 3), drop=st.sampled_from([0, 1, 5, 7, 20]),
       mismatch=st.sampled_from([-1, -3]), block_mismatch=st.sampled_from([-1, -2, -3]),
       tandem=st.sampled_from([0, 12, 16]))
def test_device_refined_chain_blocks_equal_the_host_ones(seed, records, drop, mismatch, block_mismatch, tandem):
    """chains.cu's chain_seams and chain_pieces (a thread a block) place the seams and cut the drops as
    chains.c does (tests/test_chains.py checks that against the oracle), with the device's codes or the
    host's."""
    from gpu_kernels.chains import chain_hsps
    from gpu_kernels.placement import refine_blocks, refine_blocks_cupy

    query, reference = refine_case(seed, records)
    params = Params(k=12, min_len=24, mismatch=mismatch, min_chain_score=30, block_drop=drop,
                    block_mismatch=block_mismatch, block_tandem=tandem)
    result = compare(query, reference, params)
    chains, _, members = chain_hsps(result.hsps, query.lengths, reference.lengths, params)
    want = refine_blocks(chains, members, query, reference, params)
    codes = (cp.asarray(query.codes), cp.asarray(reference.codes)) if seed % 2 else None
    got = refine_blocks_cupy(chains, members, query, reference, params, codes=codes)
    for a, b in zip(got, want):
        assert sorted(a) == sorted(b) and all(np.array_equal(a[name], b[name]) for name in b)


def test_device_chains_of_dense_repeats():
    """Many HSPs on nearby diagonals (a tandem repeat's hits against each other): large components, links
    beyond a warp's 32 candidates, equal scores everywhere."""
    period, copies = 37, 60
    q = np.repeat(np.arange(copies) * period, copies)
    r = np.tile(np.arange(copies) * period, copies)
    n = q.size
    table = {"qrec": np.zeros(n, dtype=np.int32), "rrec": np.zeros(n, dtype=np.int32), "qstart": q, "qend": q + 30,
             "rstart": r, "strand": np.zeros(n, dtype=np.int8), "score": np.full(n, 30), "identities": np.full(n, 30)}
    from gpu_kernels.hsps import sort_rows

    table = sort_rows(table, 1, 1)
    for params in (Params(min_chain_score=0), Params(max_shift=100, max_gap=500), Params(chain_gap_open=0)):
        same_chains(table, [copies * period + 30], [copies * period + 30], params)


def same_alignments(query, reference, chains, blocks, params: Params) -> int:
    """align_chains_cupy (anchors, fills and pieces on the device) gives align_chains' alignments and
    texts; returns how many."""
    from gpu_kernels.align import align_chains, align_chains_cupy, text_of

    want = align_chains(chains, blocks, query, reference, params, threads=2)
    got = align_chains_cupy(chains, blocks, query, reference, params)
    assert set(got) == set(want)
    assert all(np.array_equal(got[name], want[name]) for name in want), [n for n in want
                                                                        if not np.array_equal(got[n], want[n])]
    for kind in ("cigar", "cs", "delta"):
        (got_text, got_at), (want_text, want_at) = (text_of(x, query, reference, kind) for x in (got, want))
        assert got_text == want_text and np.array_equal(got_at, want_at)
    return int(want["qstart"].size)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), records=st.integers(1, 3), band=st.sampled_from([0, 3, 16]),
       min_anchor=st.sampled_from([4, 12]), zdrop=st.sampled_from([0, 30, 10_000]),
       scores=st.sampled_from([(2, 3, 5, 2), (1, 4, 6, 2), (1, 1, 0, 1)]), secondary=st.booleans())
def test_device_alignments_equal_the_host_ones_on_drawn_chains(seed, records, band, min_anchor, zdrop, scores,
                                                               secondary):
    match, mismatch, gap_open, gap_extend = scores
    same_alignments(*drawn_case(seed, records), Params(band=band, min_anchor=min_anchor, zdrop=zdrop,
                                                       align_match=match, align_mismatch=mismatch, gap_open=gap_open,
                                                       gap_extend=gap_extend, min_align_score=10, secondary=secondary))


def test_device_alignments_in_several_launches(monkeypatch):
    """Gaps split over launches of a small direction-byte budget give the same alignments."""
    import gpu_kernels.align as align

    monkeypatch.setattr(align, "FILL_BYTES", 2000)
    assert same_alignments(*drawn_case(7, 3), Params(min_anchor=6, zdrop=10_000, min_align_score=0,
                                                     secondary=True)) > 0


def test_alignments_are_the_same_on_both_backends(tmp_path):
    """align on the GPU backend: byte for byte the CPU backend's PAF (cg:Z, cs:Z) and delta, and the
    same alignment table."""
    import subprocess
    import sys

    import pyarrow.parquet as pq

    from conftest import ROOT

    out = {}
    for backend in ("numpy", "cupy"):
        paths = [str(tmp_path / f"{backend}.{suffix}") for suffix in ("paf", "delta", "parquet")]
        subprocess.run([sys.executable, "-m", "gpu_kernels", "align", MYCO_232, MYCO_7422, "--backend", backend,
                        "-o", paths[0], "--delta", paths[1], "--table", paths[2], "--secondary"], check=True, cwd=ROOT,
                       capture_output=True)
        out[backend] = [open(paths[0], "rb").read(), open(paths[1], "rb").read(), pq.read_table(paths[2]).to_pydict()]
    assert out["numpy"] == out["cupy"] and out["numpy"][0].count(b"tp:A:P") >= 5
