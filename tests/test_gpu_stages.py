"""The CuPy backend against the NumPy backend: kernel warm-up, device helpers, chains, chain blocks and
alignments (skipped without a GPU)."""
import numpy as np
import pytest

from hypothesis import given, settings, strategies as st

from conftest import MYCO_232, MYCO_7422
from gpu_kernels import Params, compare
from test_align import drawn_case  # at import: a @given module imported inside a @given test is nested
from test_chains import refine_case

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")


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


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), records=st.integers(1, 3), band=st.sampled_from([0, 3, 16]),
       end_xdrop=st.sampled_from([1, 20, 200, 10_000]), zdrop=st.sampled_from([0, 30]))
def test_device_ends_equal_the_host_ones_on_drawn_chains(seed, records, band, end_xdrop, zdrop):
    """The ends' extensions on the device (ends.extend_ends_cupy: two passes, a thread an end) give the
    host's columns, scores and ops, from records' ends and from cuts alike."""
    same_alignments(*drawn_case(seed, records), Params(band=band, end_xdrop=end_xdrop, zdrop=zdrop, min_anchor=6,
                                                       min_align_score=0, secondary=True))


def test_device_ends_in_several_launches(monkeypatch):
    """Ends split over launches of a small scratch budget (threads' rows and direction bytes) give the
    same alignments."""
    import gpu_kernels.ends as ends

    monkeypatch.setattr(ends, "EXTEND_BYTES", 600)
    assert same_alignments(*drawn_case(11, 3), Params(band=3, min_anchor=6, zdrop=30, min_align_score=0,
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
        # the delta's header names the plain copies of the gzipped inputs written beside it: its own
        head, body = open(paths[1], "rb").read().split(b"\n", 1)
        assert head.decode() == f"{paths[1]}.reference.fa {paths[1]}.query.fa"
        out[backend] = [open(paths[0], "rb").read(), body, pq.read_table(paths[2]).to_pydict()]
    assert out["numpy"] == out["cupy"] and out["numpy"][0].count(b"tp:A:P") >= 5
