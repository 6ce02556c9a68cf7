"""Hostile input and faults: the cases that once gave tracebacks, wrong files or runaway time and memory,
and the malformed input that always got one line. Each asserts the exit status, one line on stderr naming
the file (and the record where there is one), no traceback, and no output left under its final name."""
import gzip
import os
import random
import re
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
        return
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
        return
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
    ("sets: {a: {fast: 'no'}}", "'no' is not of type 'boolean'"),
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

_RNG = random.Random(1)
GOOD = ">g\n" + "".join(_RNG.choice("ACGT") for _ in range(200)) + "\n"


def run_cli(tmp_path, query_text, ref_text=GOOD, *options, raw=False):
    q = tmp_path / "q.fa"
    r = tmp_path / "r.fa"
    (q.write_bytes if raw else q.write_text)(query_text)
    r.write_text(ref_text)
    out = tmp_path / "out.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(q), str(r), "-o", str(out), *options],
                          cwd=ROOT, capture_output=True, text=True)
    return proc, out


@pytest.mark.parametrize("text, expected", [
    ("ACGT\n>x\nACGT\n", "before the first '>'"),
    (">a\n\n>b\n" + "ACGT" * 20 + "\n", "record 'a': empty record"),
    (">a\n" + "ACGT" * 20 + "\n>a\n" + "ACGT" * 20 + "\n", "record 'a': duplicate record name"),
    (">a\n" + "N" * 100 + "\n", "record 'a': no A, C, G or T"),
    (">\n" + "ACGT" * 20 + "\n", "empty record name"),
    (">a\nACGT12ACGT" + "ACGT" * 20 + "\n", "unexpected character '1'"),
    ("", "empty file"),
])
def test_malformed_fasta(tmp_path, text, expected):
    proc, out = run_cli(tmp_path, text)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and "q.fa" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_binary_bytes(tmp_path):
    proc, out = run_cli(tmp_path, b">a\n\x00\x01\x02\xff" + b"ACGT" * 20, raw=True)
    assert proc.returncode == 2 and "binary" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


@pytest.mark.parametrize("options, expected", [
    (["--k", "7"], "k = 7 is outside 8..32"),
    (["--k", "33"], "k = 33 is outside 8..32"),
    (["--min-identity", "101"], "min_identity = 101.0 is outside 0..100"),
    (["--min-identity", "-1"], "outside 0..100"),
])
def test_bad_parameters(tmp_path, options, expected):
    proc, out = run_cli(tmp_path, GOOD, GOOD, *options)
    assert proc.returncode == 2 and expected in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_missing_file(tmp_path):
    out = tmp_path / "out.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(tmp_path / "nope.fa"), str(tmp_path / "nope.fa"),
                           "-o", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "nope.fa: no such file" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


def test_gzip_and_good_run(tmp_path):
    q = tmp_path / "q.fa.gz"
    with gzip.open(q, "wt") as handle:
        handle.write(GOOD.lower())
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    out = tmp_path / "out.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(q), str(r), "-o", str(out), "--min-len", "32"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert rows and rows[0][:4] == ["g", "200", "0", "200"] and rows[0][4] == "+" and rows[0][9] == "200"
    assert proc.stderr.startswith("1 HSPs (1 forward, 0 reverse)")
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".part")]


def test_version():
    """--version names the program and the installed version (the console script is the same entry point)."""
    import gpu_kernels

    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "--version"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == f"gpu-genome-compare {gpu_kernels.__version__}"


def one_line_error(proc, *needles) -> None:
    """Exit 2, one line on stderr holding every needle, no traceback."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_truncated_and_fake_gzip(tmp_path):
    truncated, fake = tmp_path / "t.fa.gz", tmp_path / "f.fa.gz"
    with gzip.open(truncated, "wt") as handle:
        handle.write(GOOD * 50)
    data = truncated.read_bytes()
    truncated.write_bytes(data[:len(data) // 2])
    fake.write_bytes(b"\x1f\x8b" + b"not gzip at all" * 4)
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    for path in (truncated, fake):
        out = tmp_path / "out.paf"
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(path), str(r), "-o", str(out)],
                              cwd=ROOT, capture_output=True, text=True)
        one_line_error(proc, str(path))
        assert not out.exists()


def test_fastq_with_a_short_quality_line(tmp_path):
    fq, r, out = tmp_path / "q.fq", tmp_path / "r.fa", tmp_path / "out.txt"
    fq.write_text("@r1\n" + "ACGT" * 10 + "\n+\nIIII\n")
    r.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "mems", str(fq), str(r), "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True)
    one_line_error(proc, str(fq), "record 'r1'", "quality")
    assert not out.exists()


def test_a_directory_as_input(tmp_path):
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(tmp_path), str(r)],
                          cwd=ROOT, capture_output=True, text=True)
    one_line_error(proc, str(tmp_path), "directory")


def test_output_under_a_regular_file(tmp_path):
    """An output path whose folder is a file: the message says so (makedirs alone says "File exists")."""
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(r), str(r), "-o", str(r / "out.paf")],
                          cwd=ROOT, capture_output=True, text=True)
    one_line_error(proc, str(r), "not a directory")


def test_crlf_lowercase_and_iupac_are_read(tmp_path):
    """CRLF line ends, lowercase (soft-masked) bases and IUPAC codes are valid input."""
    seq = GOOD.split("\n")[1]
    q, r, out = tmp_path / "q.fa", tmp_path / "r.fa", tmp_path / "out.paf"
    q.write_bytes((">g desc\r\n" + seq[:100].lower() + "RYKM" + seq[104:] + "\r\n").encode())
    r.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(q), str(r), "-o", str(out),
                           "--min-len", "32"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr.startswith("1 HSPs"), proc.stderr
    assert out.read_text().split("\t")[0] == "g"


def test_an_output_that_is_an_input_is_refused(tmp_path):
    """`compare Q R -o Q`, `paf T -o T`, `mems Q R -o Q`: one line naming the output, exit 2, the input
    untouched (it was replaced by the output)."""
    import hashlib
    import shutil

    query = tmp_path / "q.fa.gz"
    shutil.copy(MYCO_232, query)
    table = tmp_path / "t.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(query), MYCO_7422, "--hsps", str(table)],
                   check=True, cwd=ROOT, capture_output=True)
    digest = {p: hashlib.sha1(p.read_bytes()).hexdigest() for p in (query, table)}
    for command in (["compare", str(query), MYCO_7422, "-o", str(query)],
                    ["compare", str(query), MYCO_7422, "--chains", str(query)],
                    ["paf", str(table), "-o", str(table)],
                    ["mems", str(query), MYCO_7422, "-o", str(query)]):
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", *command], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 2 and "is an input of this command" in proc.stderr, (command, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert digest == {p: hashlib.sha1(p.read_bytes()).hexdigest() for p in (query, table)}


def test_special_files_are_written_into_not_replaced(tmp_path):
    """An output that is a FIFO receives the text and stays a FIFO; as root, a character device (a
    private /dev/null made here) stays a device whatever is written to it: once, `-o /dev/null` made
    the machine's /dev/null a regular file."""
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()))
    reader.start()
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "-o", str(fifo)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and received[0].count(b"\n") == 597
    if os.geteuid() != 0:
        pytest.skip("making a character device needs root (CI runs as root)")
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "-o", str(null),
                           "--hsps", str(null), "--delta", str(null), "--chains", str(null), "--chain-file", str(null),
                           "--chains-table", str(null)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.stat(null).st_mode) and not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_record_names_pandas_would_read_as_missing(tmp_path):
    """Records named NA, nan, null and None are names: the plots rule draws their pair dotplots (once a
    traceback: pandas read them as missing values)."""
    from gpu_kernels.workflow.pictures import pair_pictures
    from wfhelpers import coverage_of

    rng = random.Random(3)
    genome = "".join(rng.choice("ACGT") for _ in range(8000))
    names = ("NA", "nan", "null", "None")
    (tmp_path / "q.fa").write_text("".join(f">{n}\n{genome[i * 2000:(i + 1) * 2000]}\n" for i, n in enumerate(names)))
    (tmp_path / "r.fa").write_text(f">N/A\n{genome}\n")
    table = tmp_path / "h.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(tmp_path / "q.fa"), str(tmp_path / "r.fa"),
                    "--hsps", str(table)], check=True, cwd=ROOT, capture_output=True)
    query, reference, tables = coverage_of(table, tmp_path)
    pair_pictures(str(table), tables[0], query, reference, str(tmp_path / "grid.png"), None, str(tmp_path / "pairs"),
                  50, None, "file", 1)
    assert sorted(p.name for p in (tmp_path / "pairs").iterdir()) == sorted(f"{n.replace('/', '_')}__N_A.png"
                                                                           for n in names)


def test_integral_floats_pass_and_parameters_past_32_bits_are_refused(tmp_path):
    """`k: 32.0` (YAML's float) is k 32; `--xdrop 2147483648` and `k: 32.5` get one line (once an
    OverflowError and a kernel's type error)."""
    from gpu_kernels.errors import InputError

    assert Params(k=32.0, min_len=64.0) == Params(k=32, min_len=64)
    for bad in ({"k": 32.5}, {"xdrop": 3_000_000_000}):
        with pytest.raises(InputError):
            Params(**bad)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--xdrop", "2147483648",
                           "-o", str(tmp_path / "o.paf")], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.strip() == "error: xdrop = 2147483648 is out of range (at most 2147483647)"


def test_filter_through_a_symlinked_folder_does_not_overwrite_its_table(tmp_path):
    """Case 3: an output folder that is a symlink to the table's folder is the table's folder: refused in
    one line, the table untouched (the guard compared abspath, and 597 rows became 149)."""
    import hashlib

    folder = tmp_path / "run"
    folder.mkdir()
    table = folder / "hsps.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(table)],
                   check=True, cwd=ROOT, capture_output=True)
    digest = hashlib.sha1(table.read_bytes()).hexdigest()
    os.symlink(folder, tmp_path / "link")
    os.symlink(table, tmp_path / "table_link.parquet")
    for given, outdir in ((table, tmp_path / "link"), (tmp_path / "table_link.parquet", folder)):
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "filter", str(given), "-o", str(outdir),
                               "--min-len", "100"],
                              cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 2 and "holds the table being filtered" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert hashlib.sha1(table.read_bytes()).hexdigest() == digest


@pytest.mark.parametrize("results, message", [
    ("''", "results: empty"),
    ("'out{set}'", "holds a brace"),
    ("a_file", "is a file, not a directory"),
])
def test_a_results_directory_that_cannot_be_one(tmp_path, results, message):
    """Case 10: `results: ''` (once written into /, even on -n), a file, braces (once a WildcardError):
    one line before any job runs."""
    from wfhelpers import workdir

    cwd = workdir(tmp_path)
    (cwd / "a_file").write_text("not a directory\n")
    one_config_error(cwd, f"results: {results}\n", message)
    assert (cwd / "a_file").read_text() == "not a directory\n"


@pytest.mark.parametrize("sweep, message", [
    ("sets: {k20: {k: 24}}\n  grid: {k: [20, 24]}", "sweep set 'k20' (of the grid) has the name of another set"),
    ("grid: {min_identity: [80, 80.0]}", "sweep set 'min_identity80' (of the grid) has the name of another set"),
    ("sets: {summary.tsv: {k: 24}}", "sweep set 'summary.tsv' (a named set): a set's name is a directory"),
])
def test_sweep_set_names_that_collide_or_are_no_directory(tmp_path, sweep, message):
    """Case 15: a named set lost to a grid point of its name, grid values 80 and 80.0, a set named like
    the run's own files (once a ChildIOException) or a path: one line before any job runs."""
    from wfhelpers import workdir

    one_config_error(workdir(tmp_path), "sweep:\n  " + sweep + "\n", message)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_as_input_is_refused_at_once(tmp_path, device):
    """Case 20: /dev/zero or /dev/urandom as input was read until memory ran out ("lower --tile-bytes",
    no file named): one line naming it. A pipe is still read (test below)."""
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", device, str(r)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    one_line_error(proc, device, "is a device or socket")


def test_a_pipe_is_read_as_input(tmp_path):
    """Process substitution and FIFOs stay inputs (zcat genome.fa.gz | ..., <(...))."""
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    fifo = tmp_path / "q.fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat {r} > {fifo}"])
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(fifo), str(r), "-o",
                           str(tmp_path / "o.paf")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    writer.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_gpu_lock_files_follow_no_link_and_need_no_write_access(tmp_path):
    """Case 2: a symbolic link planted at a lock file's name is refused in one line naming it, its
    target untouched (the lock was opened following links and truncated); a lock file the job may
    not write (another user's 0644 one) still locks; a held lock is not taken twice."""
    from gpu_kernels.device import try_lock
    from gpu_kernels.errors import InputError

    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    planted = tmp_path / "gpu_kernels-0000_01_00_0.lock"
    os.symlink(victim, planted)
    with pytest.raises(InputError) as refused:
        try_lock(str(planted))
    assert "symbolic link" in refused.value.line() and str(planted) in refused.value.line()
    assert victim.read_text() == "precious\n"
    lock = tmp_path / "gpu_kernels-0000_02_00_0.lock"
    lock.write_text("")
    os.chmod(lock, 0o444)
    held = try_lock(str(lock))
    assert held is not None and try_lock(str(lock)) is None
    held.close()
    again = try_lock(str(lock))
    assert again is not None and lock.read_text() == ""
    again.close()


@pytest.mark.parametrize("option", ["-o", "--hsps", "--delta", "--chains", "--chains-table"])
def test_a_full_disk_is_named(tmp_path, option):
    """Case 18: a write that fails for want of space said "No space left on device" and no file: one
    line naming the output (/dev/full; and a tmpfs of one page where this runs as root, nothing left there)."""
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, option, "/dev/full"],
                          cwd=ROOT, capture_output=True, text=True)
    one_line_error(proc, "/dev/full: No space left on device")
    small = tmp_path / "small"
    small.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", str(small)],
                                           capture_output=True).returncode:
        return
    try:
        out = small / "out.file"
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, option, str(out)],
                              cwd=ROOT, capture_output=True, text=True)
        one_line_error(proc, f"{out}: No space left on device")
        assert os.listdir(small) == []
    finally:
        subprocess.run(["umount", str(small)], check=True)


def test_the_same_command_writes_the_same_table(tmp_path):
    """Case 19: `compare --hsps` twice gave tables that differed in their metadata's stage times; the
    times now stay in the log, and the tables (HSPs and chains) are byte for byte the same."""
    digests = []
    for run in range(2):
        paths = [tmp_path / f"{run}.parquet", tmp_path / f"{run}.chains.parquet"]
        subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(paths[0]),
                        "--chains-table", str(paths[1])], check=True, cwd=ROOT, capture_output=True)
        digests.append([p.read_bytes() for p in paths])
    assert digests[0] == digests[1]


def test_a_contig_shorter_than_k_is_skipped_with_a_line_in_the_log(tmp_path):
    """Case 22: a draft's contig shorter than k stopped the run (nucmer and minimap2 take it): it is
    said in the log and aligned nowhere; the other records' HSPs are those found without it."""
    import gzip as gz

    text = gz.decompress(open(MYCO_232, "rb").read()).decode()
    with_tiny = tmp_path / "q.fa"
    with_tiny.write_text(">tiny\nACGTACGTAC\n" + text)
    outs = {}
    for name, query in (("with", with_tiny), ("without", MYCO_232)):
        outs[name] = tmp_path / f"{name}.paf"
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(query), MYCO_7422, "-o",
                               str(outs[name]), "-v"], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        if name == "with":
            assert "record 'tiny': 10 bp is shorter than k = 32: no HSP can hold it" in proc.stderr
    rows = [line.split("\t") for line in outs["with"].read_text().splitlines()]
    assert rows and all(row[0] != "tiny" for row in rows)
    assert outs["with"].read_text() == outs["without"].read_text()


@pytest.mark.parametrize("profile", ["slurm", "multi-gpu"])
def test_a_dry_run_of_the_gpu_profiles_needs_no_gpu(tmp_path, profile):
    """Case 23: `snakemake -n --profile profiles/slurm` (and the multi-GPU profile) exited 1 on a host
    without a GPU: the check ran where the workflow is parsed, a cluster's submit host. A dry run and a
    cluster's submit host plan the jobs; a GPU job that finds no GPU fails where it runs."""
    from conftest import gpu_present
    from wfhelpers import snakemake, workdir

    if gpu_present():
        return
    if profile == "slurm":
        pytest.importorskip("snakemake_executor_plugin_slurm")
    cwd = workdir(tmp_path)
    proc = snakemake(cwd, "-n", "--profile", os.path.join(ROOT, "profiles", profile), check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "finds no CUDA device" not in proc.stderr and "compare" in proc.stdout + proc.stderr


def broken_tables(folder) -> dict:
    """Tables paf and filter once met with tracebacks or silent nonsense: name -> (path, what the line says)."""
    import json

    import pandas as pd
    import pyarrow.parquet as pq

    good = folder / "good.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(good)],
                   check=True, cwd=ROOT, capture_output=True)
    tables = {"truncated": (folder / "truncated.parquet", "not a readable Parquet table"),
              "empty": (folder / "empty.parquet", "not a readable Parquet table"),
              "pandas": (folder / "pandas.parquet", "no gpu_kernels metadata"),
              "no metadata": (folder / "nometa.parquet", "no gpu_kernels metadata"),
              "lengths": (folder / "lengths.parquet", "lies outside its records"),
              "records": (folder / "records.parquet", "record index is outside")}
    tables["truncated"][0].write_bytes(good.read_bytes()[:3000])
    tables["empty"][0].write_bytes(b"")
    pd.DataFrame({"a": [1, 2]}).to_parquet(tables["pandas"][0])
    table = pq.read_table(good)
    pq.write_table(table.replace_schema_metadata(None), tables["no metadata"][0])
    meta = json.loads(table.schema.metadata[b"gpu_kernels"])
    meta["query"]["lengths"] = [1000]
    pq.write_table(table.replace_schema_metadata({"gpu_kernels": json.dumps(meta)}), tables["lengths"][0])
    meta["query"]["names"], meta["query"]["lengths"] = [], []
    pq.write_table(table.replace_schema_metadata({"gpu_kernels": json.dumps(meta)}), tables["records"][0])
    return tables


def test_broken_or_contradictory_tables_get_one_line(tmp_path):
    """Case 7: `paf` and `filter` on a truncated, empty, pandas-written or metadata-less Parquet file gave
    20-50 line tracebacks, and a table whose rows contradict its metadata silent nonsense: one line
    naming the file, exit 2, no output under its final name."""
    for name, (path, says) in broken_tables(tmp_path).items():
        for command in (["paf", str(path), "-o", str(tmp_path / "out.paf")],
                        ["filter", str(path), "-o", str(tmp_path / "filtered")]):
            proc = subprocess.run([sys.executable, "-m", "gpu_kernels", *command], cwd=ROOT, capture_output=True,
                                  text=True)
            one_line_error(proc, str(path), says)
            assert not (tmp_path / "out.paf").exists() and not (tmp_path / "filtered" / "hsps.parquet").exists(), name


def test_filter_into_an_earlier_filters_folder_leaves_nothing_stale(tmp_path):
    """Case 16: a filter into a folder holding an earlier filter's outputs left its dotplots and files
    beside the new ones: with --no-plots the second run's folder holds no picture, and the pair
    dotplots of the first are gone; a file of the user's own there is kept."""
    table = tmp_path / "hsps.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(table)],
                   check=True, cwd=ROOT, capture_output=True)
    out = tmp_path / "filtered"
    run = lambda *extra: subprocess.run([sys.executable, "-m", "gpu_kernels", "filter", str(table), "-o", str(out),  # noqa: E731
                                         *extra], check=True, cwd=ROOT, capture_output=True)
    run("--min-len", "50")
    assert (out / "grid_dotplot.png").exists() and list((out / "pair_dotplots").glob("*.png"))
    (out / "notes.txt").write_text("mine\n")
    run("--min-len", "500", "--no-plots")
    assert not (out / "grid_dotplot.png").exists() and not (out / "dotplot.html").exists()
    assert not list((out / "pair_dotplots").glob("*.png")) and (out / "hsps.parquet").exists()
    assert (out / "notes.txt").read_text() == "mine\n"


def test_closed_standard_streams(tmp_path):
    """Case 17: with standard output closed, PAF bound for it gave a traceback after the whole
    comparison: one line at once, exit 2 (mems too); with an -o file it runs as usual. With standard
    error closed, a complete run exited 1: it exits 0 and its outputs are those of a plain run."""
    import shlex

    cli = f"{shlex.quote(sys.executable)} -m gpu_kernels"
    pair = f"{shlex.quote(MYCO_232)} {shlex.quote(MYCO_7422)}"
    for command in (f"{cli} compare {pair} >&-", f"{cli} mems {pair} -l 100 >&-"):
        proc = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=False, stderr=subprocess.PIPE, text=True)
        one_line_error(proc, "standard output is closed: name an output file with -o")
    plain, quiet = tmp_path / "plain.paf", tmp_path / "quiet.paf"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "-o", str(plain)], check=True,
                   cwd=ROOT, capture_output=True)
    for command in (f"{cli} compare {pair} -o {shlex.quote(str(quiet))} 2>&-",
                    f"{cli} compare {pair} -o {shlex.quote(str(quiet))} >&-"):
        proc = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0 and quiet.read_bytes() == plain.read_bytes(), proc.stderr


def test_a_workflow_genome_with_a_contig_shorter_than_k_is_planned(tmp_path):
    """Case 22 in the workflow: the plan stopped at such a record; now a note names it and the run goes on
    (a full run lists it in coverage_query.tsv, covered 0)."""
    import gzip as gz

    from wfhelpers import snakemake, workdir

    cwd = workdir(tmp_path)
    (cwd / "a.fa").write_text(">tiny\nACGTACGTAC\n" + gz.decompress(open(MYCO_232, "rb").read()).decode())
    (cwd / "c.yaml").write_text("genomes:\n  A: a.fa\n  B: resources/Mhyopneumoniae_7422.fa.gz\n")
    proc = snakemake(cwd, "--cores", "1", "--configfile", "c.yaml", "-n", check=False)
    assert proc.returncode == 0, proc.stderr[-1500:]
    assert "note: a.fa: 1 records shorter than k = 32 (the first 'tiny', 10 bp)" in proc.stderr


def test_a_workflow_genome_with_a_scaffold_of_gaps_runs_through(tmp_path):
    """Issue 35's read sets, and drafts: a record of no A, C, G or T (an all-N read, a scaffold of gaps)
    stopped the workflow's index; now the log says it and the run goes on (it is listed uncovered in
    coverage_query.tsv), as nucmer, minimap2 and mummer take such records. The command line's compare
    still refuses one (test_malformed_fasta)."""
    import gzip as gz

    from wfhelpers import snakemake, workdir

    cwd = workdir(tmp_path)
    (cwd / "a.fa").write_text(">gaps\n" + "N" * 5000 + "\n" + gz.decompress(open(MYCO_232, "rb").read()).decode())
    (cwd / "c.yaml").write_text("genomes:\n  A: a.fa\n  B: resources/Mhyopneumoniae_7422.fa.gz\noutputs:\n"
                                "  pair_dotplots: false\n  html_dotplot: false\n")
    proc = snakemake(cwd, "--cores", "2", "--configfile", "c.yaml", check=False)
    assert proc.returncode == 0, proc.stderr[-1500:]
    rows = [line.split("\t") for line in (cwd / "results/default/A_vs_B/coverage_query.tsv").read_text().splitlines()]
    gaps = [row for row in rows if row[1] == "gaps"]
    assert len(gaps) == 1 and gaps[0][2] == "5000" and float(gaps[0][-1]) == 0.0
    logs = "".join(p.read_text() for p in (cwd / "results/logs").rglob("*.log"))
    assert "record 'gaps' has no A, C, G or T" in logs


def test_a_uuid_in_a_record_name_stays_in_the_html_dotplot():
    """Case 14: the HTML dotplot's ids are made stable by replacing Bokeh's random UUIDs, and a UUID in
    a record name was replaced with them: the user's UUIDs stay, Bokeh's are still replaced."""
    from gpu_kernels.workflow.html import _stable_ids

    name = "contig_3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c"
    page = '<div id="0b8e8f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b"></div><span>' + name + "</span>"
    once = _stable_ids(page, [name])
    assert name in once and "0b8e8f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b" not in once
    assert _stable_ids(page, [name]) == once


def test_nested_yaml_aliases_are_refused_before_they_expand(tmp_path):
    """Case 21: nested YAML aliases in a sweep.grid value (a few hundred bytes standing for 10^9 values)
    exhausted memory (under a 3 GB limit: a MemoryError traceback after 53 s): one line at once."""
    from wfhelpers import workdir

    lines = ["sweep:", "  grid:", "    k:", "      - 20", "      - [&a1 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"         , &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(2, 10)] + ["        ]"]
    import time

    start = time.perf_counter()
    one_config_error(workdir(tmp_path), "\n".join(lines) + "\n", "once its YAML aliases (*name) are expanded")
    assert time.perf_counter() - start < 30


def test_the_tests_that_need_several_gb_skip_unless_asked(tmp_path):
    """Case 24: `pytest` as the README gives it peaked at 6.4 GB (the 2^31-base record); such tests are
    marked bigmem and run only where BIGMEM_TESTS=1 (CI sets it)."""
    env = {key: value for key, value in os.environ.items() if key != "BIGMEM_TESTS"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_hostile.py", "-k",
                           "record_past_2_31"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and "1 skipped" in proc.stdout and "BIGMEM_TESTS=1" in proc.stdout, proc.stdout[-800:]


def test_all_vs_all_takes_the_named_reference(tmp_path):
    """comparisons.reference (issue 37): in all-vs-all the genome listed first was always the query, so a
    draft listed last became the reference; the named genome is the reference of every pair it is in."""
    from wfhelpers import snakemake, workdir

    cwd = workdir(tmp_path)
    (cwd / "c.yaml").write_text("genomes:\n  A: resources/Mhyopneumoniae_232.fa.gz\n"
                                "  B: resources/Mhyopneumoniae_7422.fa.gz\ncomparisons:\n  reference: A\n")
    proc = snakemake(cwd, "--cores", "1", "--configfile", "c.yaml", "-n", check=False)
    assert proc.returncode == 0 and "B_vs_A" in proc.stdout and "A_vs_B" not in proc.stdout, proc.stderr[-1500:]
    one_config_error(cwd, "comparisons:\n  reference: C\n", "comparisons.reference: C is not listed under genomes")


def test_a_table_of_a_million_long_record_names_reads_back(tmp_path):
    """Case 9: a draft of 1.5 M records of 70-character names gave a table (exit 0) that nothing could
    read back (its footer over Thrift's 100 MB string limit): the record tables are stored compressed
    past 16 MB, and pyarrow, read_meta and paf read the table."""
    import numpy as np
    import pyarrow.parquet as pq

    from gpu_kernels.formats import HspWriter, read_meta

    n = 1_500_000
    names = [f"contig_{i:07d}_" + "x" * 55 for i in range(n)]
    lengths = np.full(n, 1000, dtype=np.int64)
    table = tmp_path / "t.parquet"
    rows = {"qrec": np.array([0, n - 1], dtype=np.int32), "rrec": np.array([0, 1], dtype=np.int32),
            "qstart": np.array([0, 10], dtype=np.int64), "qend": np.array([100, 110], dtype=np.int64),
            "rstart": np.array([5, 20], dtype=np.int64), "strand": np.array([0, 1], dtype=np.int8),
            "score": np.array([100, 100], dtype=np.int64), "identities": np.array([100, 100], dtype=np.int64)}
    with HspWriter(str(table), names, lengths, ["r1", "r2"], [1000, 1000]) as writer:
        writer.write(rows)
    assert pq.read_table(table).num_rows == 2  # pyarrow's default Thrift limits
    meta = read_meta(str(table))
    assert meta["query"]["names"][n - 1] == names[n - 1] and len(meta["query"]["lengths"]) == n
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "paf", str(table)], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0 and proc.stdout.splitlines()[1].startswith(names[n - 1]), proc.stderr[-500:]


def test_ctrl_c_inside_a_compiled_stage_ends_the_run_at_once(tmp_path):
    """Case 11: Ctrl-C waited until the running compiled stage returned (12.6 s late on a 1 Mbp pair).
    The caller of a compiled stage now waits on its threads looking for the signal every 50 ms: k 8 on
    the bundled pair spends over a minute in the seeds and extension stages, and the signal sent in
    them ends the run within a second or two (one line, status 130, no output)."""
    import signal
    import time

    out = tmp_path / "o.paf"
    proc = subprocess.Popen([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--k", "8",
                             "--backend", "numpy", "-o", str(out), "-v"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    while True:  # until the seeds stage has begun (the log's words line)
        line = proc.stderr.readline()
        assert line, "the run ended before its words stage"
        if " words: " in line:
            break
    time.sleep(1.0)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    late = time.perf_counter() - sent
    said = [line for line in err.strip().splitlines() if not re.match(r"\d{4}-\d\d-\d\d ", line)]  # -v's log aside
    assert proc.returncode == 130 and said == ["error: interrupted"], err[-800:]
    assert "Traceback" not in err
    assert late < 3.0, f"the run ended {late:.1f} s after Ctrl-C"
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_a_cpu_batch_holds_at_most_its_budget_of_seeds(monkeypatch):
    """Case 12: CPU memory grew with the kept seeds (k 8 on the bundled pair: 5.7 GB), and the
    out-of-memory advice (--tile-bytes) did nothing on the CPU. A batch of query words is now cut where
    its seeds would pass the budget (--tile-bytes, 256 MiB by default), so what a batch holds is
    bounded, with the same HSPs."""
    from gpu_kernels.backend import CPU_SEED_BYTES
    from gpu_kernels.fasta import Record, read_fasta
    from gpu_kernels.seeds import KeptSeeds

    held = []
    seeds = KeptSeeds.seeds

    def counted(self, i0, i1):
        n, keys = seeds(self, i0, i1)
        held.append((n, keys.size, self.qkeys[i0] == self.qkeys[i1 - 1]))
        return n, keys

    monkeypatch.setattr(KeptSeeds, "seeds", counted)
    query = [Record(r.name, r.codes[:120_000]) for r in read_fasta(MYCO_232)]
    reference = [Record(r.name, r.codes[:120_000]) for r in read_fasta(MYCO_7422)]
    budget = 1 << 16
    few = compare(query, reference, Params(k=8, tile_bytes=budget), backend="numpy")
    assert len(held) > 20 and all(n <= budget // CPU_SEED_BYTES or one_key for n, _, one_key in held)
    held.clear()
    whole = compare(query, reference, Params(k=8), backend="numpy")
    assert len(held) == 2  # a batch a strand
    assert hsp_set(few) == hsp_set(whole) and len(hsp_set(whole)) > 0


def test_ctrl_c_gives_one_line_and_leaves_no_output(tmp_path):
    """Case 11, the first part: Ctrl-C printed a 29-line KeyboardInterrupt traceback; now one line, the
    status a shell gives SIGINT (130), and no output under its final name."""
    import signal
    import time

    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from simulate import heavy_pair, write_fasta

    first, second, fm, sm = heavy_pair(int(12e6), 1, seed=3)
    a, b = tmp_path / "a.fa", tmp_path / "b.fa"
    write_fasta(str(a), ["a"], first, fm)
    write_fasta(str(b), ["b"], second, sm)
    out = tmp_path / "o.paf"
    proc = subprocess.Popen([sys.executable, "-m", "gpu_kernels", "compare", str(a), str(b), "-o", str(out)], cwd=ROOT,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    if proc.returncode == 0:
        pytest.skip("the comparison finished before the signal on this machine")
    assert proc.returncode == 130 and err.strip() == "error: interrupted", err[-800:]
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def _walks(q, r, sq, sr, k, ext):
    """(qstart, qend, score, identities) of each seed and the bases the walks read (extend.c)."""
    import numpy as np

    from gpu_kernels import native

    out = [np.empty(sq.size, dtype=np.int64) for _ in range(4)]
    reads = native.cpu().extend(q, r, np.ascontiguousarray(sq, dtype=np.int64), np.ascontiguousarray(sr, dtype=np.int64),
                                k, ext.match, ext.mismatch, ext.n_score, ext.xdrop, float(ext.min_identity), *out, 2)
    return tuple(out), reads


def test_a_long_alignment_of_substitutions_is_walked_in_linear_time():
    """Case 8: 5 % substitutions and no indels over 300 kbp: kept seeds every few dozen bases
    each walked to the end cost the square of the length (11-15 s at 1 Mbp). The walks of a diagonal
    read each base a bounded number of times now (a few walks alone, then all side by side once they
    read more than three times the stretch between the seeds), and end where each alone would."""
    import numpy as np

    from gpu_kernels.params import Extension
    from gpu_kernels.seqset import make_seqset

    rng = np.random.default_rng(5)
    size, k = 300_000, 32
    base = rng.integers(0, 4, size).astype(np.uint8)
    other = base.copy()
    hit = np.flatnonzero(rng.random(size) < 0.05)
    other[hit] = (other[hit] + rng.integers(1, 4, hit.size)) % 4
    same = np.convolve((base == other).astype(np.int32), np.ones(k, dtype=np.int32), "valid") == k
    starts = np.flatnonzero(same)
    kept = starts[np.concatenate([[True], np.diff(starts) >= 2 * k])]  # the diagonal filter's survivors
    assert kept.size > 1000
    q, r = make_seqset(["q"], [base]), make_seqset(["r"], [other])
    (qstart, qend, score, ids), reads = _walks(q.codes, r.codes, q.starts[0] + kept, r.starts[0] + kept, k,
                                                  Extension())
    assert reads <= 8 * size  # each seed alone: about kept.size * size / 2 (over 400 M here)
    assert (qstart == q.starts[0]).all() and (qend == q.starts[0] + size).all()
    few = kept[[0, kept.size // 2, -1]]
    (qstart1, qend1, score1, ids1), reads1 = _walks(q.codes, r.codes, q.starts[0] + few, r.starts[0] + few, k,
                                                       Extension())
    assert reads1 >= size  # the counter counts: the whole alignment is read
    assert score1.tolist() == score[[0, kept.size // 2, -1]].tolist() == [int(score[0])] * 3


def test_filter_finds_the_genomes_for_the_chains_or_says_it_cannot(tmp_path):
    """The chains' blocks are placed on the sequences, so `filter` needs the genomes: a table whose FASTA
    files are gone gets one line and exit 2 before any output; --query and --reference name them;
    genomes that are not the table's get one line and leave no table behind."""
    import shutil

    a, b = tmp_path / "a.fa.gz", tmp_path / "b.fa.gz"
    shutil.copy(MYCO_232, a)
    shutil.copy(MYCO_7422, b)
    table = tmp_path / "hsps.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(a), str(b), "--hsps", str(table),
                    "--chains", str(tmp_path / "c.paf")], check=True, cwd=ROOT, capture_output=True)
    out = tmp_path / "f"
    run = lambda *extra: subprocess.run([sys.executable, "-m", "gpu_kernels", "filter", str(table), "-o", str(out),  # noqa: E731
                                         "--no-plots", *extra], cwd=ROOT, capture_output=True, text=True)
    assert run().returncode == 0 and (out / "chains.paf").read_bytes() == (tmp_path / "c.paf").read_bytes()
    shutil.rmtree(out)
    a.rename(tmp_path / "moved.fa.gz")
    one_line_error(run(), str(table), "give --query and --reference")
    assert not out.exists() or not any(out.iterdir())
    assert run("--query", str(tmp_path / "moved.fa.gz"), "--reference", str(b)).returncode == 0
    assert (out / "chains.paf").read_bytes() == (tmp_path / "c.paf").read_bytes()
    shutil.rmtree(out)
    one_line_error(run("--query", str(b), "--reference", str(b)), str(b), "not those of the HSP table's query")
    assert not (out / "hsps.parquet").exists()
