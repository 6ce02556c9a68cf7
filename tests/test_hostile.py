"""Hostile input and faults: the cases that once gave tracebacks, wrong files or runaway time and memory,
and the malformed input that always got one line. Each asserts the exit status, one line on stderr naming
the file (and the record where there is one), no traceback, and no output left under its final name."""
import os
import stat
import subprocess
import sys

import pytest

from conftest import MYCO_232, MYCO_7422, ROOT
from gpu_kernels import Params, compare
from gpu_kernels.backend import NumpyBackend
from hspsets import TiledNumpyBackend, hsp_set


def test_unrelated_pair_reports_zero_hsps(tmp_path):
    """No shared k-mer: one line, exit 0, an empty PAF (once a KeyError on a missing stats key)."""
    q, r = tmp_path / "q.fa", tmp_path / "r.fa"
    q.write_text(">q\n" + "A" * 40 + "\n")
    r.write_text(">r\n" + "C" * 40 + "\n")
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(q), str(r), "-o", str(tmp_path / "o.paf")],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("0 HSPs") and (tmp_path / "o.paf").read_text() == ""


class FailingGroups(TiledNumpyBackend):
    """A (tiled) backend whose seed-group stage runs out of memory on its first two calls."""

    calls = 0

    def seed_groups(self, qk, rk):
        FailingGroups.calls += 1
        if FailingGroups.calls <= 2:
            raise MemoryError("injected")
        return super().seed_groups(qk, rk)


def test_out_of_memory_while_grouping_splits_the_tile():
    """Out of memory before a tile's groups exist splits the tile (once an UnboundLocalError)."""
    expected = hsp_set(compare(MYCO_232, MYCO_7422, Params()))
    result = compare(MYCO_232, MYCO_7422, Params(), backend=FailingGroups())
    assert result.stats["retries"] == 2 and hsp_set(result) == expected


def test_outputs_follow_the_umask(tmp_path):
    """Output files get the umask's permissions, not mkstemp's 0600."""
    old = os.umask(0o022)
    try:
        out = tmp_path / "o.parquet"
        compare(MYCO_232, MYCO_7422, Params(k=32)).write_parquet(str(out))
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_output_path_that_is_a_directory(tmp_path):
    """-o naming a directory: one line and exit 2, no traceback, nothing left behind."""
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "-o", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and str(tmp_path) in proc.stderr
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_workflow_backend_cupy_without_a_gpu(tmp_path):
    """backend: cupy where CuPy finds no device: one line before any job runs."""
    from conftest import gpu_present
    from wfhelpers import snakemake, workdir

    if gpu_present():
        pytest.skip("a GPU is present: this checks the line said where CuPy finds none")
    cwd = workdir(tmp_path)
    proc = snakemake(cwd, "--cores", "1", "--config", "backend=cupy", check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "backend: cupy, but CuPy is not installed or finds no CUDA device" in proc.stderr
    assert not (cwd / "results" / "default").exists()


def test_mems_backend_cupy_without_a_gpu_says_so_before_the_files(tmp_path):
    """mems and mums make their backend on a thread while the files are read: where CuPy finds no
    device, that is the one line said, as before the files were read, even beside a bad query."""
    from conftest import gpu_present

    if gpu_present():
        pytest.skip("a GPU is present: this checks the line said where CuPy finds none")
    bad = tmp_path / "bad.fa"
    bad.write_text(">q\nAC!GT\n")
    for query in (MYCO_232, str(bad), str(tmp_path / "missing.fa")):
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "mems", query, MYCO_7422, "--backend", "cupy"],
                              cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr == "error: backend cupy asked for, but CuPy finds no CUDA device\n"


def one_config_error(cwd, text: str, message: str) -> str:
    """A dry run with the bundled pair's genomes and text added to the config: exit non-zero, one
    `error:` line holding message, no traceback; returns the line."""
    from wfhelpers import snakemake

    (cwd / "c.yaml").write_text("genomes:\n  A: resources/Mhyopneumoniae_232.fa.gz\n"
                                "  B: resources/Mhyopneumoniae_7422.fa.gz\n" + text)
    proc = snakemake(cwd, "--cores", "1", "--configfile", "c.yaml", "-n", check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.startswith("error:")]
    assert len(lines) == 1 and message in lines[0], proc.stderr[-1500:]
    return lines[0]


@pytest.mark.parametrize("sweep, message", [
    ("sets: {a: {kk: 20}}", "Additional properties are not allowed ('kk' was unexpected)"),
    ("sets: {a: {fast: 'no'}}", "fast: 'no' is not boolean or 'auto'"),
    ("grid: {k: [20.5, 24]}", "20.5 is not of type 'integer'"),
])
def test_sweep_sets_pass_the_engine_schema(tmp_path, sweep, message):
    """A typo or a wrong type in a sweep set: one line naming the set, before any job runs."""
    from wfhelpers import workdir

    assert "sweep set" in one_config_error(workdir(tmp_path), "sweep:\n  " + sweep + "\n", message)


def test_two_drafts_of_20000_contigs_stay_under_2_gb(tmp_path):
    """Coverage tables and plots keep only the record pairs with HSPs (once dense 20,000 x 20,000
    tables of several GB): every job of the workflow peaks under 2 GB (Snakemake's benchmark tables)."""
    import csv

    from common.contigs import fragmented_pair  # bench/common: the benchmarks make the same drafts
    from wfhelpers import snakemake

    fragmented_pair(str(tmp_path / "a.fa"), str(tmp_path / "b.fa"), 20000, 10_000_000)
    (tmp_path / "drafts.yaml").write_text("genomes:\n  draftA: a.fa\n  draftB: b.fa\nbackend: numpy\n")
    snakemake(tmp_path, "--cores", "2", "--configfile", "drafts.yaml")
    peaks = {}
    for path in (tmp_path / "results" / "logs" / "benchmarks").rglob("*.tsv"):
        with open(path) as handle:
            row = next(csv.DictReader(handle, delimiter="\t"))
        if row["max_rss"] not in ("NA", "-", ""):
            peaks[str(path.relative_to(tmp_path))] = float(row["max_rss"])
    assert any("compare" in p for p in peaks) and any("coverage" in p for p in peaks)
    assert max(peaks.values()) < 2000, peaks
    rows = list(csv.DictReader(open(tmp_path / "results/default/draftA_vs_draftB/coverage_pairs.tsv"), delimiter="\t"))
    assert len(rows) > 20000  # pairs with HSPs only, far fewer than 20,000 x 20,000


def run_compare(tmp_path, query_bytes: bytes):
    q, r = tmp_path / "q.fa", tmp_path / "r.fa"
    q.write_bytes(query_bytes)
    r.write_text(">r\n" + "ACGTTGCAAGGCTTAACCGGTTAA" * 10 + "\n")
    return subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(q), str(r), "--min-len", "32"],
                          cwd=ROOT, capture_output=True, text=True)


def test_utf8_descriptions_and_a_byte_order_mark_are_read(tmp_path):
    """A UTF-8 description (once "not ASCII text") and a leading UTF-8 BOM (once "sequence data before
    the first header") are fine."""
    body = ("ACGTTGCAAGGCTTAACCGGTTAA" * 10 + "\n").encode()
    for text in ("\ufeff>q plain\n".encode("utf-8") + body, ">q Mycoplasma \u00e9t\u00e9 \u2013 strain\n".encode() + body):
        proc = run_compare(tmp_path, text)
        assert proc.returncode == 0 and "query coverage 100.00 %" in proc.stderr, proc.stderr


def test_cr_only_line_ends_get_their_own_message(tmp_path):
    proc = run_compare(tmp_path, b">q\rACGTACGTACGTACGTACGTACGTACGTACGTACGT\r")
    assert proc.returncode == 2 and "CR only" in proc.stderr and "Traceback" not in proc.stderr


def test_exact_matches_walk_each_match_once():
    """Identical sequences: the bases walked stay linear in the length (every seed of a long match was
    once extended to maximality: 25 / 50 / 100 kbp took 4 / 15 / 64 s), and the one MEM is found."""
    import numpy as np

    from gpu_kernels import matches, native
    from gpu_kernels.seqset import make_seqset

    rng = np.random.default_rng(2)
    genome = rng.integers(0, 4, 200_000).astype(np.uint8)
    seqs = make_seqset(["g"], [genome])
    found = matches.find_matches(seqs, seqs, 20, False, NumpyBackend())
    forward = found["strand"] == 0
    assert (found["length"][forward] == 200_000).any()
    k = matches.match_k(20)
    (qk, qp), (rk, rp) = matches.reference_words(seqs.codes, 20), matches.reference_words(seqs.codes, 20)
    unused = np.zeros(0, dtype=np.uint8)
    seeds, walked, _ = native.cpu().mem_starts(seqs.codes, seqs.codes, unused, unused, qk, qp, rk, rp, 4, 0, qk.size,
                                               k, 20, 8, 2)
    assert seeds >= 200_000 - k and walked < 4 * 200_000, walked


def test_seed_count_does_not_depend_on_the_tiling():
    """The seeds reported are the pair's seeds: margin seeds are counted by the tile that owns them only."""
    from generate import related_pair
    from hspsets import TILED, records

    query, reference = related_pair(11, 3000, 2, 12)
    counts = {compare(records(query), records(reference), Params(k=12, tile_len=tile), backend=TILED).stats["seeds"]
              for tile in (0, 50, 333, 1000)}
    counts.add(compare(records(query), records(reference), Params(k=12)).stats["seeds"])  # the CPU's, untiled
    assert len(counts) == 1 and counts.pop() > 1000


@pytest.mark.slow
@pytest.mark.bigmem
def test_a_record_past_2_31_bases_keeps_exact_coordinates(tmp_path):
    """A record of 2^31 + 10 bases (N but for a 3,000-base segment across 2^31) against a small one,
    as the query and as the reference: Parquet and PAF give the segment's coordinates exactly
    (once the words stage needed a key for every window, and positions were cast to int32), and
    `align` aligns it there."""
    import numpy as np
    import pyarrow.parquet as pq

    length, seg_len = (1 << 31) + 10, 3000
    segment = np.frombuffer(b"ACGT", dtype=np.uint8)[np.random.default_rng(5).integers(0, 4, seg_len)].tobytes()
    big, small = tmp_path / "big.fa", tmp_path / "small.fa"
    with open(big, "wb") as handle:
        handle.write(b">big\n")
        left, chunk = length - seg_len, b"N" * (1 << 26)
        while left:
            handle.write(chunk[:min(left, len(chunk))])
            left -= min(left, len(chunk))
        handle.write(segment + b"\n")
    flank = 400
    small.write_bytes(b">small\n" + b"ACGTTGCA" * (flank // 8) + segment + b"TTTT" * 50 + b"\n")
    small_len = flank + seg_len + 200
    expected_big = (length - seg_len, length)
    expected_small = (flank, flank + seg_len)
    for first, second in ((big, small), (small, big)):
        table, paf = tmp_path / "out.parquet", tmp_path / "out.paf"
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(first), str(second),
                               "--hsps", str(table), "-o", str(paf)], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        rows = pq.read_table(table).to_pylist()
        assert len(rows) == 1
        q, r = (expected_big, expected_small) if first == big else (expected_small, expected_big)
        row = rows[0]
        assert (row["qstart"], row["qend"], row["rstart"], row["rend"], row["strand"]) == (*q, *r, 0)
        fields = paf.read_text().split("\t")
        assert [int(x) for x in fields[1:4]] == [length if first == big else small_len, *q]
        assert [int(x) for x in fields[6:9]] == [length if second == big else small_len, *r]
        # the homology pipeline's alignment of the segment: the same exact coordinates, 3,000 `=` columns
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "align", str(first), str(second), "-o", str(paf)],
                              cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        fields = paf.read_text().rstrip("\n").split("\t")
        assert [int(x) for x in fields[2:4]] == list(q) and [int(x) for x in fields[7:9]] == list(r)
        assert f"cg:Z:{seg_len}=" in fields and fields[4] == "+"
    os.remove(big)


# ---------------------------------------------------------------------------------------------
# Malformed input and parameters: one line, exit 2, no output
