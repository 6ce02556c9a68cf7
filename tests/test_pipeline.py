"""The homology pipeline (gpu_kernels/pipeline.py): a pair compared in parts and assembled gives the
alignments and chains of the pair compared whole, whatever the parts."""
import logging
import numpy as np
import pytest

from gpu_kernels.__main__ import main
from gpu_kernels.engine import compare
from gpu_kernels.fasta import load_fasta
from gpu_kernels.params import Params
from gpu_kernels.pipeline import align_parts, part_pairs, record_blocks
from generate import duplicated_genomes

OUTPUTS = (("-o", "paf"), ("--delta", "delta"), ("--snps", "snps"), ("--sam", "sam"),
           ("--chains", "chains.paf"), ("--chain-file", "chain"))


def align_outputs(folder, query, reference, tag: str, *options) -> dict:
    args = ["align", query, reference, "--backend", "numpy", *options]
    for flag, suffix in OUTPUTS:
        args += [flag, str(folder / f"{tag}.{suffix}")]
    assert main(args) == 0
    return read_outputs(folder, tag)


def read_outputs(folder, tag: str) -> dict:
    """{suffix: bytes} of one run's outputs; SAM's @PG line left out: it holds the command line, which
    differs from run to run here (its options, its paths)."""
    out = {suffix: (folder / f"{tag}.{suffix}").read_bytes() for _, suffix in OUTPUTS}
    out["sam"] = b"".join(line for line in out["sam"].splitlines(keepends=True) if not line.startswith(b"@PG\t"))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("secondary", [False, True])
def test_parts_give_the_whole_pairs_outputs(tmp_path, seed, secondary):
    query, reference = duplicated_genomes(tmp_path, seed)
    extra = ["--secondary"] if secondary else []
    whole = align_outputs(tmp_path, query, reference, "whole", *extra)
    assert whole["paf"].count(b"\n") >= 4
    for part_bases in (1, 20_000, 30_000):
        parts = align_outputs(tmp_path, query, reference, f"p{part_bases}", "--part-bases", str(part_bases), *extra)
        for suffix, text in whole.items():
            assert parts[suffix] == text, (suffix, part_bases)


def test_late_chains_are_aligned_as_the_whole_pair_aligns_them(tmp_path, caplog):
    """A backbone chain that its own part left out (it lost there, in the backbone's second round, to
    a chain of another record pair of the part that another part's chain beats) is aligned when the
    pair is assembled: with many seeds and parts of two records, some case has one."""
    late = 0
    for seed, part_bases in ((31, 25_000), (65, 40_000), (4, 25_000), (5, 40_000)):
        query, reference = duplicated_genomes(tmp_path, seed)
        params = Params(part_bases=part_bases)
        q, r = load_fasta(query), load_fasta(reference)
        whole = compare(q, r, params)
        al = whole.align()
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="gpu_kernels.pipeline"):
            pair = align_parts(q, r, params, whole.backend, ("cigar",), False)
        late += any("no part aligned" in m for m in caplog.messages)
        for name in ("chain", "qrec", "rrec", "strand", "qstart", "qend", "rstart", "rend", "score", "backbone"):
            assert np.array_equal(np.asarray(al[name]), pair.alignments[name]), (seed, name)
    assert late, "no case left a backbone chain to the assembly"


def test_parts_are_whole_records_within_the_bound():
    lengths = np.array([5, 5, 12, 3, 3, 3])
    assert [b.tolist() for b in record_blocks(lengths, 10)] == [[0, 1], [2], [3, 4, 5]]
    assert [b.tolist() for b in record_blocks(lengths, 1)] == [[i] for i in range(6)]


def test_a_part_past_64_bit_keys_is_refused_in_one_line():
    from gpu_kernels.errors import InputError
    from gpu_kernels.seqset import SeqSet

    big = SeqSet(["a"], np.array([3 << 30]), np.array([0]), np.zeros(0, dtype=np.uint8))
    with pytest.raises(InputError, match="too long to compare as one part"):
        part_pairs(big, big, Params())


@pytest.mark.gpu
@pytest.mark.parametrize("seed", [1, 5])
def test_gpu_parts_give_the_cpu_whole_pairs_outputs(tmp_path, seed):
    """CPU == GPU through the pipeline: the GPU's parts, assembled, print the CPU's whole pair."""
    query, reference = duplicated_genomes(tmp_path, seed)
    whole = align_outputs(tmp_path, query, reference, "whole", "--secondary")
    args = ["--part-bases", "20000", "--secondary"]
    parts = align_outputs(tmp_path, query, reference, "gpu", *args)  # --backend numpy, then cupy below
    assert parts == whole
    cupy = ["align", query, reference, "--backend", "cupy", *args]
    for flag, suffix in OUTPUTS:
        cupy += [flag, str(tmp_path / f"cupy.{suffix}")]
    assert main(cupy) == 0
    for suffix, text in read_outputs(tmp_path, "cupy").items():
        assert text == whole[suffix], suffix


@pytest.mark.gpu
def test_jobs_sharing_a_gpu_take_its_slots_and_turns_on_its_kernels(tmp_path, monkeypatch):
    import cupy as cp

    from gpu_kernels import turns
    from gpu_kernels.backend import get_backend
    from gpu_kernels.device import _held, claim_device, try_lock

    monkeypatch.setenv("GPU_KERNELS_LOCK_DIR", str(tmp_path))
    monkeypatch.setattr(turns, "_turn", {"handle": None, "held": False})
    bus = cp.cuda.runtime.deviceGetPCIBusId(0).replace(":", "_").replace(".", "_")
    count = cp.cuda.runtime.getDeviceCount()
    # every device's first slot held by other jobs: this one takes a second slot, and a third job none
    others = [try_lock(str(tmp_path / f"gpu_kernels-{cp.cuda.runtime.deviceGetPCIBusId(i).replace(':', '_').replace('.', '_')}.lock"))
              for i in range(count)]
    pool = cp.get_default_memory_pool()
    turn = str(tmp_path / f"gpu_kernels-{bus}.turn.lock")
    try:
        assert claim_device(jobs_per_gpu=2) == 0
        assert (tmp_path / f"gpu_kernels-{bus}.1.lock").exists()
        assert pool.get_limit() == 0  # no share of the memory: one job's kernels at a time
        if count == 1:
            with pytest.raises(RuntimeError, match="no free GPU"):
                claim_device(wait_s=0, jobs_per_gpu=2)
        turns.take_turn()
        assert try_lock(turn) is None
        scratch = cp.ones(1 << 28, dtype=cp.uint8)
        del scratch
        assert pool.free_bytes() >= 1 << 28
        assert get_backend("cupy").free_memory() > 0
        turns.end_turn()  # its free blocks handed back to the device, the turn to another job
        assert pool.free_bytes() == 0
        other = try_lock(turn)
        assert other is not None
        other.close()
    finally:
        turns.end_turn()
        for handle in others + _held[-1:]:
            handle.close()
        del _held[-1:]


@pytest.mark.gpu
def test_turns_per_gpu_gives_a_second_slot_a_second_turn(tmp_path, monkeypatch):
    """turns_per_gpu=2: the second slot's job takes the device's second turn, so that the first
    turn stays free for the first slot's job."""
    import cupy as cp

    from gpu_kernels import turns
    from gpu_kernels.device import _held, claim_device, try_lock

    monkeypatch.setenv("GPU_KERNELS_LOCK_DIR", str(tmp_path))
    monkeypatch.setattr(turns, "_turn", {"handle": None, "held": False})
    buses = [cp.cuda.runtime.deviceGetPCIBusId(i).replace(":", "_").replace(".", "_")
             for i in range(cp.cuda.runtime.getDeviceCount())]
    others = [try_lock(str(tmp_path / f"gpu_kernels-{bus}.lock")) for bus in buses]
    try:
        assert claim_device(jobs_per_gpu=2, turns_per_gpu=2) == 0
        turns.take_turn()
        assert try_lock(str(tmp_path / f"gpu_kernels-{buses[0]}.turn1.lock")) is None
        first = try_lock(str(tmp_path / f"gpu_kernels-{buses[0]}.turn.lock"))
        assert first is not None
        first.close()
    finally:
        turns.end_turn()
        for handle in others + _held[-1:]:
            handle.close()
        del _held[-1:]


@pytest.mark.parametrize("wide", [False, True])
def test_row_groups_number_rows_as_unique_does(wide):
    """arrays.row_groups (the pair's chain numbers: which (score, query record, reference record)
    each chain has) is np.unique's inverse over rows, by one key a row or, past 62 bits, a lexsort."""
    from gpu_kernels.arrays import row_groups

    rng = np.random.default_rng(7)
    n = 5000
    rows = np.column_stack((-rng.integers(0, 50, n), rng.integers(0, 4, n), rng.integers(0, 3, n))).astype(np.int64)
    if wide:
        rows[:, 0] = rng.choice(np.array([-(1 << 62), 0, 1 << 62], dtype=np.int64), n)
    _, inverse = np.unique(rows, axis=0, return_inverse=True)
    assert np.array_equal(row_groups(rows), inverse.reshape(-1))
    assert row_groups(rows[:0]).size == 0


@pytest.mark.parametrize("pieces", [False, True])
def test_a_part_hands_its_device_on_once_before_its_ends_are_extended(tmp_path, monkeypatch, pieces):
    """homology's device_done runs once, with the comparison's HSP table still held: where the candidates
    alone are aligned (a workflow job's part), as soon as their pieces are found and before the ends'
    extensions (align.finish), which run on the host while the next job takes the device; the part is
    the same as with no callback."""
    import gpu_kernels.align as align
    from gpu_kernels.pipeline import homology

    query, reference = duplicated_genomes(tmp_path, 2)
    q, r = load_fasta(query), load_fasta(reference)
    params = Params()
    events = []
    finish = align.finish
    monkeypatch.setattr(align, "finish", lambda *a, **k: events.append("finish") or finish(*a, **k))

    def done(result):
        assert result.table["qstart"] is not None and result.table["qstart"].size > 0
        events.append("done")

    part = homology(q, r, params, compare(q, r, params).backend, ("cigar",), pieces=pieces, device_done=done,
                    result=compare(q, r, params))
    assert events.count("done") == 1 and "finish" in events
    if not pieces:
        assert events.index("done") < events.index("finish")
    plain = homology(q, r, params, compare(q, r, params).backend, ("cigar",), pieces=pieces,
                     result=compare(q, r, params))
    for name in part.alignments:
        assert np.array_equal(part.alignments[name], plain.alignments[name]), name
    text, plain_text = part.texts["cigar"], plain.texts["cigar"]  # (the strings' bytes, their offsets)
    assert len(text) == len(plain_text) and all(np.array_equal(np.asarray(a), np.asarray(b))
                                                for a, b in zip(text, plain_text))


def test_gammas_fit_is_each_parts_own_and_the_log_says_so(tmp_path, caplog):
    """The distant preset's posterior decoding fits its pair HMM to the fills of the comparison it runs
    in: a pair compared in parts fits each part alone (one fit a part, each on its own gaps), which the
    log now says, as docs/COMMANDS.md does; with --gamma 0 the parts give the whole pair's outputs."""
    query, reference = duplicated_genomes(tmp_path, 2)
    gaps = {}
    for tag, options in (("whole", []), ("parts", ["--part-bases", "20000"])):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="gpu_kernels.posterior"):
            align_outputs(tmp_path, query, reference, tag, "--preset", "distant", *options)
        fits = [r.getMessage() for r in caplog.records if r.getMessage().startswith("posterior fills")]
        assert fits and all("of this part alone where the pair is compared in parts" in line for line in fits)
        gaps[tag] = [int(line.split("first fills of ")[1].split(" gaps")[0]) for line in fits]
    assert len(gaps["whole"]) == 1 and len(gaps["parts"]) > 1 and max(gaps["parts"]) < gaps["whole"][0], gaps
    plain = align_outputs(tmp_path, query, reference, "g0", "--preset", "distant", "--gamma", "0")
    assert align_outputs(tmp_path, query, reference, "g0p", "--preset", "distant", "--gamma", "0",
                         "--part-bases", "20000") == plain


def test_the_backbones_chains_written_alone_are_those_of_every_chain(tmp_path):
    """assemble with write_all False (every chain would weigh too much) keeps the backbone's chains and
    only their pieces: the same rows and pieces as the backbone's among every chain's, renumbered."""
    from gpu_kernels.backend import NumpyBackend
    from gpu_kernels.pipeline import align_late, assemble, homology

    query, reference = duplicated_genomes(tmp_path, 2)
    params = Params(part_bases=25_000)
    q, r = load_fasta(query), load_fasta(reference)
    backend = NumpyBackend()
    parts = [homology(q.subset(qb), r.subset(rb), params, backend, (), qb, rb, True)
             for qb, rb in part_pairs(q, r, params)]
    pairs = [assemble(parts, q.lengths, r.lengths, params, align_late(q, r, params, (), backend), (), True, write_all)
             for write_all in (True, False)]
    every, alone = pairs
    kept = np.flatnonzero(every.chains["backbone"] == 1)
    assert 0 < kept.size < every.chains["chain"].size
    for name in every.chains:
        assert np.array_equal(every.chains[name][kept], alone.chains[name]), name
    row = np.full(every.chains["chain"].size, -1)
    row[kept] = np.arange(kept.size)
    inside = row[every.pieces["chain"]] >= 0
    assert inside.sum() < inside.size
    for name in alone.pieces:
        want = every.pieces[name][inside] if name != "chain" else row[every.pieces["chain"][inside]]
        assert np.array_equal(want, alone.pieces[name]), name

