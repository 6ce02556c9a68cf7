"""Spaced seeds (spaced.py): the engine against the plain oracle on drawn distant pairs, the seed
patterns and the distant preset."""
import pytest
from hypothesis import given, settings, strategies as st

import oracle_spaced
from generate import related_pair
from gpu_kernels import Params, compare
from gpu_kernels.errors import InputError
from gpu_kernels.spaced import seed_pattern
from hspsets import hsp_set, records

cases = st.tuples(
    st.integers(0, 2**31),                             # generator seed
    st.integers(40, 260),                              # ancestor length
    st.integers(1, 2),                                 # records per side
    st.sampled_from(["12of19", "14of22", "11011011011"]),
    st.sampled_from([0, 1]),                           # transitions
    st.sampled_from([0, 2]),                           # max_freq
    st.sampled_from([100, 400, 910]),                  # hsp_xdrop
    st.sampled_from([0, 600, 1500, 3000]),             # hsp_threshold
    st.sampled_from([0, 1]),                           # entropy
)


@settings(max_examples=40, deadline=None)
@given(cases)
def test_spaced_hsps_equal_the_oracle(case):
    seed, length, nrec, pattern, transitions, max_freq, xdrop, threshold, entropy = case
    query, reference = related_pair(seed, length, nrec, 22)
    params = Params(seed=pattern, transitions=transitions, max_freq=max_freq, hsp_xdrop=xdrop,
                    hsp_threshold=threshold, entropy=entropy)
    expected = oracle_spaced.compare(query, reference, params)
    got = hsp_set(compare(records(query), records(reference), params))
    assert got == expected


def write_fasta(path, seqs) -> str:
    path.write_text("".join(f">r{i}\n{s}\n" for i, s in enumerate(seqs)))
    return str(path)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(60, 260), st.sampled_from(["12of19", "11011011011"]))
def test_soft_masked_bases_hold_no_seed(tmp_path_factory, seed, length, pattern):
    """With soft_mask no seed window holds a lowercase base of the FASTA files (the oracle reads the
    letters as written); the extension still runs through them."""
    tmp = tmp_path_factory.mktemp("soft")
    query, reference = related_pair(seed, length, 2, 22)
    query = [s[: len(s) // 3] + s[len(s) // 3: len(s) // 2].lower() + s[len(s) // 2:] for s in query]
    params = Params(seed=pattern, soft_mask=True, hsp_threshold=600)
    expected = oracle_spaced.compare(query, reference, params)
    got = hsp_set(compare(write_fasta(tmp / "q.fa", query), write_fasta(tmp / "r.fa", reference), params))
    assert got == expected


def test_soft_mask_needs_a_spaced_seed():
    with pytest.raises(InputError, match="spaced seeds"):
        Params(soft_mask=True)


def test_batches_do_not_change_the_hsps(monkeypatch):
    """The seeds cut into many batches (a tiny seed budget, small window batches) give the same HSPs."""
    import gpu_kernels.engine as engine

    query, reference = related_pair(11, 900, 2, 22)
    params = Params(preset="distant", hsp_threshold=800)
    whole = hsp_set(compare(records(query), records(reference), params))
    monkeypatch.setattr(engine, "SPACED_BATCH_WINDOWS", 97)
    cut = hsp_set(compare(records(query), records(reference), params.replace(tile_bytes=1 << 16)))
    assert whole and cut == whole


def test_seed_patterns():
    assert seed_pattern("12of19") == (int("1110100110010101111"[::-1], 2), 19)
    assert bin(seed_pattern("14of22")[0]).count("1") == 14
    for bad in ("0110", "1102", "1" * 33, "1001", ""):
        with pytest.raises(InputError):
            Params(seed=bad)


def test_distant_preset_fills_the_defaults_only():
    p = Params(preset="distant")
    assert p.seeding.seed == "12of19" and p.chaining.min_chain_score < Params().chaining.min_chain_score
    assert Params(preset="distant", seed="14of22").seeding.seed == "14of22"
    assert Params().seeding.seed == "exact"
    with pytest.raises(InputError):
        Params(preset="far")


def test_a_parameter_given_keeps_its_value_under_a_preset():
    """`--gamma 0` (or `gamma: 0` in the config) turns the distant preset's decoding off: a value given
    is kept even where it is the close default, on the command line and in the workflow."""
    from gpu_kernels.__main__ import params_of
    from gpu_kernels.options import given_engine, parser
    from gpu_kernels.workflow.sweep import engine_params

    assert Params(preset="distant").aligning.gamma == 8.0
    assert Params(preset="distant", gamma=0.0).aligning.gamma == 0.0
    assert Params(preset="distant", band=8).aligning.band == 8 != Params(preset="distant").aligning.band
    for argv, gamma, band in ((["--gamma", "0"], 0.0, 32), (["--band", "8"], 8.0, 8), ([], 8.0, 32)):
        argv = ["align", "q.fa", "r.fa", "--preset", "distant", *argv]
        args = parser().parse_args(argv)
        args.given = given_engine(argv)
        params = params_of(args)
        assert (params.aligning.gamma, params.aligning.band, params.seeding.seed) == (gamma, band, "12of19")
    assert given_engine(["align", "q.fa", "r.fa", "--secondary"]) == {"secondary"}
    # the workflow's engine section as the schema fills it; `given`: the keys the user's config set
    filled = {"k": 32, "min_len": 64, "fast": False, "max_freq": 100, "gamma": 0, "band": 8, "preset": "distant"}
    p = engine_params(filled, {"preset", "gamma"})
    assert (p.aligning.gamma, p.aligning.band, p.seeding.max_freq) == (0.0, 32, 200)
    p = engine_params(filled, {"preset"})
    assert (p.aligning.gamma, p.aligning.band, p.seeding.max_freq) == (8.0, 32, 200)
    assert engine_params({**filled, "fast": True}, {"preset", "fast"}).seeding.max_freq == 100
    assert engine_params({**filled, "preset": "close"}).aligning.gamma == 0.0


@pytest.mark.gpu
@settings(max_examples=25, deadline=None)
@given(cases)
def test_spaced_hsps_on_the_gpu_equal_the_cpu(case):
    """CPU == GPU: the spaced twins (spaced.c, spaced.cu) give one HSP table, row for row."""
    cp = pytest.importorskip("cupy")
    from gpu_kernels.backend import get_backend

    seed, length, nrec, pattern, transitions, max_freq, xdrop, threshold, entropy = case
    query, reference = related_pair(seed, length, nrec, 22)
    params = Params(seed=pattern, transitions=transitions, max_freq=max_freq, hsp_xdrop=xdrop,
                    hsp_threshold=threshold, entropy=entropy)
    cpu = compare(records(query), records(reference), params)
    gpu = compare(records(query), records(reference), params, backend=get_backend("cupy"))
    for name, column in cpu.hsps.items():
        assert column.tolist() == cp.asnumpy(gpu.hsps[name]).tolist(), name


@pytest.mark.gpu
def test_soft_masked_spaced_hsps_on_the_gpu_equal_the_cpu(tmp_path):
    """CPU == GPU with soft-masked bases (the windows read from codes with those bases as borders)."""
    cp = pytest.importorskip("cupy")
    from gpu_kernels.backend import get_backend

    query, reference = related_pair(3, 3000, 2, 22)
    query = [s[: len(s) // 3] + s[len(s) // 3: len(s) // 2].lower() + s[len(s) // 2:] for s in query]
    paths = write_fasta(tmp_path / "q.fa", query), write_fasta(tmp_path / "r.fa", reference)
    params = Params(preset="distant", soft_mask=True, hsp_threshold=800)
    cpu = compare(*paths, params)
    gpu = compare(*paths, params, backend=get_backend("cupy"))
    assert cpu.hsps["qstart"].size
    for name, column in cpu.hsps.items():
        assert column.tolist() == cp.asnumpy(gpu.hsps[name]).tolist(), name


@pytest.mark.gpu
def test_distant_alignments_on_the_gpu_equal_the_cpu(tmp_path):
    """The distant preset's alignments of a simulated pair (about 77 % identity) are byte for byte the CPU's."""
    pytest.importorskip("cupy")
    import subprocess
    import sys

    query, reference = related_pair(5, 20_000, 2, 22)
    write_fasta(tmp_path / "q.fa", query)
    write_fasta(tmp_path / "r.fa", reference)
    out = {}
    for backend in ("numpy", "cupy"):
        path = tmp_path / f"{backend}.paf"
        subprocess.run([sys.executable, "-m", "gpu_kernels", "align", str(tmp_path / "q.fa"), str(tmp_path / "r.fa"),
                        "--preset", "distant", "--backend", backend, "-o", str(path)], check=True)
        out[backend] = path.read_bytes()
    assert out["numpy"] and out["numpy"] == out["cupy"]


@pytest.mark.gpu
def test_long_walks_on_the_gpu_equal_the_cpu(monkeypatch):
    """spaced.cu walks each seed at most SPACED_WALK bases a side, then the seeds it left walked to their
    ends apart: every seed's row (scores below the threshold too) is spaced.c's, and some walks did go
    past SPACED_WALK (homologous seeds' HSPs run the records' length)."""
    cp = pytest.importorskip("cupy")
    import numpy as np

    from gpu_kernels import spaced
    from gpu_kernels.backend import get_backend
    from gpu_kernels.kernels import SPACED_WALK

    backend = get_backend("cupy")
    calls = []

    def extend(*args):
        out = spaced.spaced_extend_cupy(*args)
        calls.append(([cp.asnumpy(a) if isinstance(a, cp.ndarray) else a for a in args[:5]], args[5:], out))
        return out

    monkeypatch.setattr(backend, "spaced_extend", extend)
    query, reference = related_pair(8, 3000, 1, 22)
    compare(records(query), records(reference), Params(preset="distant", hsp_threshold=800), backend=backend)
    assert calls
    longest = 0
    for (qcodes, rcodes, seeds, sq, sr), rest, gpu in calls:
        seeds = tuple(cp.asnumpy(s) if isinstance(s, cp.ndarray) else s for s in seeds)
        index = tuple(cp.asnumpy(a) if isinstance(a, cp.ndarray) else a for a in rest[3])
        cpu = spaced.spaced_extend(qcodes, rcodes, seeds, sq, sr, *rest[:3], index, *rest[4:])
        for mine, theirs in zip(cpu, gpu):
            assert np.array_equal(mine, cp.asnumpy(theirs))
        kept = cpu[2] >= 0
        longest = max(longest, int((cpu[1] - cpu[0])[kept].max(initial=0)))
    assert longest > 2 * SPACED_WALK + 22


@pytest.mark.gpu
@pytest.mark.parametrize("pattern", ["14of22", "1" * 32])
def test_spaced_words_on_the_gpu_equal_the_cpu(pattern):
    """The reference's words sorted by key, positions in order within a key: on the device as one packed
    word a window where key and position fit 64 bits (14of22), else by a stable argsort (32 care
    positions: 64 bits of key)."""
    cp = pytest.importorskip("cupy")
    import numpy as np

    from gpu_kernels import spaced

    rng = np.random.default_rng(4)
    codes = rng.integers(0, 4, 200_000).astype(np.uint8)
    codes[50_000:50_010] = 4  # N
    codes[120_000:120_600] = np.tile(codes[:60], 10)  # repeats: many positions a key
    care, span = spaced.seed_pattern(pattern)
    keys, pos = spaced.spaced_words(codes, care, span)
    gkeys, gpos = spaced.spaced_words_cupy(cp.asarray(codes), care, span)
    assert keys.size > 150_000
    assert np.array_equal(keys, cp.asnumpy(gkeys)) and np.array_equal(pos, cp.asnumpy(gpos))
