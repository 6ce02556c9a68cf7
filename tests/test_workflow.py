"""The Snakemake workflow end to end: default run, lint, sweeps, bad configs, fragmented assemblies, resume."""
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from contigs import fragmented_pair
from wfhelpers import SNAKEFILE, comparable, read_tsv, snakemake, workdir

PAIR = "results/default/Mhyo232_vs_Mhyo7422"

def png_is_a_picture(path):
    import matplotlib.image as mpimg

    image = mpimg.imread(path)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    assert float(image[..., :3].std()) > 0.01, f"{path} is blank"


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    cwd = workdir(tmp_path_factory.mktemp("default"))
    snakemake(cwd, "--cores", "2")
    return cwd


def test_default_run_outputs(default_run):
    pair = default_run / PAIR
    rows = [line.split("\t") for line in (pair / "hsps.paf").read_text().splitlines()]
    assert len(rows) > 300
    for row in rows:
        qlen, qs, qe, rlen, rs, re_, ids, length = (int(row[i]) for i in (1, 2, 3, 6, 7, 8, 9, 10))
        assert 0 <= qs < qe <= qlen and 0 <= rs < re_ <= rlen and row[4] in "+-"
        assert qe - qs == length == re_ - rs and ids * 100 >= 80 * length and length >= 64
        assert row[-1] == f"cg:Z:{length}M"
    csv_lines = (pair / "hsps.gecko.csv").read_text().splitlines()
    assert csv_lines[0].startswith("All by-Identity Ungapped Fragments")
    assert csv_lines[16].startswith("Type,xStart,yStart,xEnd,yEnd")
    assert "SeqX length          : 892758" in csv_lines and len(csv_lines) == 17 + len(rows)
    for name in ("coverage_pairs.tsv", "coverage_query.tsv"):
        table = read_tsv(pair / name)
        assert table
        for row in table:
            for strand in ("forward", "reverse", "both"):
                assert 0 <= float(row[f"coverage_{strand}"]) <= 1
            assert float(row["coverage_both"]) >= max(float(row["coverage_forward"]), float(row["coverage_reverse"]))
    assert float(read_tsv(pair / "coverage_query.tsv")[0]["coverage_both"]) > 0.89
    for png in [pair / "grid_dotplot.png", pair / "coverage_heatmap.png", default_run / "results/summary.png",
                *sorted((pair / "pair_dotplots").glob("*.png"))]:
        png_is_a_picture(png)
    stats = read_tsv(pair / "stats.tsv")
    assert len(stats) == 1 and int(stats[0]["kept_seeds"]) > 0 and int(stats[0]["hsps"]) == len(rows)
    summary = read_tsv(default_run / "results/summary.tsv")
    assert [r["set"] for r in summary] == ["default"]


def test_report(default_run):
    snakemake(default_run, "--report", "report.html")
    html = (default_run / "report.html").read_text()
    assert "grid_dotplot.png" in html and len(html) > 10000


def test_lint_has_no_findings(tmp_path):
    proc = snakemake(workdir(tmp_path), "--lint")
    assert "Congratulations" in proc.stdout + proc.stderr


def test_example_sweep_dry_run(tmp_path):
    proc = snakemake(workdir(tmp_path), "-n", "--configfile", "config/sweep_grid.yaml")
    out = proc.stdout + proc.stderr
    for k in (16, 24, 32):
        for identity in (70, 80):
            assert f"results/sweep_grid/k{k}_min_identity{identity}/Mhyo232_vs_Mhyo7422/hsps.parquet" in out


@pytest.mark.parametrize("config, expected", [
    ("genomes:\n  A: nope.fa\n", "genome A: nope.fa: no such file"),
    ("genomes:\n  A: resources/Mhyopneumoniae_232.fa.gz\n  A: resources/Mhyopneumoniae_7422.fa.gz\n", "key 'A' appears twice"),
    ("genomes:\n  A: resources/Mhyopneumoniae_232.fa.gz\nengine:\n  k: 40\n", "config engine.k: 40 is greater than the maximum of 32"),
    ("genomes: {}\nbogus: 1\n", "config "),
    ("genomes:\n  A: dup.fa\n  B: resources/Mhyopneumoniae_232.fa.gz\n", "dup.fa: record 'x': duplicate record name"),
])
def test_bad_config_one_line_before_any_job(tmp_path, config, expected):
    cwd = workdir(tmp_path)
    (cwd / "dup.fa").write_text(">x\n" + "ACGT" * 20 + "\n>x\n" + "ACGT" * 20 + "\n")
    (cwd / "bad.yaml").write_text(config)
    proc = snakemake(cwd, "--cores", "1", "--configfile", "bad.yaml", check=False)
    assert proc.returncode != 0
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and expected in errors[0], proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and not (cwd / "results" / "default").exists()


CONTIG_CONFIG = """genomes:
  fragA: a.fa
  fragB: b.fa
engine:
  k: 24
  min_len: 40
bins:
  size: 250000
outputs:
  max_pair_dotplots: 5
"""


def contig_workdir(tmp_path, bin_size: int = 250000):
    tmp_path.mkdir(parents=True, exist_ok=True)
    cwd = workdir(tmp_path)
    fragmented_pair(str(cwd / "a.fa"), str(cwd / "b.fa"), contigs=2000, length=1_000_000)
    (cwd / "contigs.yaml").write_text(CONTIG_CONFIG.replace("size: 250000", f"size: {bin_size}"))
    return cwd


def test_fragmented_assemblies_are_a_bounded_number_of_jobs(tmp_path):
    cwd = contig_workdir(tmp_path)
    proc = snakemake(cwd, "-n", "--configfile", "contigs.yaml")
    counts = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    # 1 Mbp in bins of at most 250 kbp: at most 5 bins a genome, so at most 25 compare jobs, not 4 million
    assert 16 <= counts["compare"] <= 25 and counts["index"] == 2, proc.stdout


@pytest.mark.slow
def test_killed_run_resumes_to_identical_outputs(tmp_path):
    whole = contig_workdir(tmp_path / "whole", bin_size=400000)  # 3 bins a genome: 9 compare jobs
    snakemake(whole, "--cores", "2", "--configfile", "contigs.yaml")
    cut = contig_workdir(tmp_path / "cut", bin_size=400000)
    proc = subprocess.Popen([sys.executable, "-m", "snakemake", "-s", SNAKEFILE, "-d", str(cut), "--cores", "1",
                             "--configfile", "contigs.yaml"], cwd=cut, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    bins = cut / "results/default/fragA_vs_fragB/bins"
    deadline = time.time() + 300
    while time.time() < deadline and len(list(bins.glob("*.parquet")) if bins.exists() else []) < 3:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (cut / "results/summary.tsv").exists(), "the run finished before it was killed"
    shutil.rmtree(cut / ".snakemake" / "locks", ignore_errors=True)
    snakemake(cut, "--cores", "2", "--configfile", "contigs.yaml", "--rerun-incomplete")
    assert comparable(cut) == comparable(whole)
