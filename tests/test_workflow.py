"""The Snakemake workflow end to end: default run, lint, sweeps, bad configs, fragmented assemblies, resume."""
import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from common.contigs import fragmented_pair  # bench/common: the benchmarks make the same drafts
from gpu_kernels.workflow.sizing import MALLOC_TUNABLES
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
    pairs = read_tsv(pair / "coverage_pairs.tsv")
    assert pairs
    for side in ("query", "reference"):
        for row in pairs:
            for strand in ("forward", "reverse", "both"):
                assert 0 <= float(row[f"{side}_coverage_{strand}"]) <= 1
            assert float(row[f"{side}_coverage_both"]) >= max(float(row[f"{side}_coverage_forward"]),
                                                              float(row[f"{side}_coverage_reverse"]))
    for name, side in (("coverage_query.tsv", "query"), ("coverage_reference.tsv", "reference")):
        table = read_tsv(pair / name)
        assert len(table) == 1 and float(table[0]["coverage_both"]) > 0.89
        genome = [r for r in read_tsv(pair / "coverage_genomes.tsv") if r["side"] == side][0]
        assert genome["covered_both"] == table[0]["covered_both"] == pairs[0][f"{side}_covered_both"]
    html = (pair / "dotplot.html").read_text()
    assert "<html" in html.lower() and "cdn.bokeh.org" not in html  # self-contained: works offline
    for png in [pair / "grid_dotplot.png", pair / "coverage_heatmap.png", default_run / "results/summary.png",
                *sorted((pair / "pair_dotplots").glob("*.png"))]:
        png_is_a_picture(png)
    assert [p.name for p in (pair / "pair_dotplots").glob("*.png")] == ["NC_006360.1__NC_021831.1.png"]
    stats = read_tsv(pair / "stats.tsv")
    assert len(stats) == 1 and int(stats[0]["kept_seeds"]) > 0 and int(stats[0]["hsps"]) == len(rows)
    summary = read_tsv(default_run / "results/summary.tsv")
    assert [r["set"] for r in summary] == ["default"]
    # the chains rule: the same chains as the command line's, the backbone marked
    cli = default_run / "cli.chains.paf"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", "resources/Mhyopneumoniae_232.fa.gz",
                    "resources/Mhyopneumoniae_7422.fa.gz", "--chains", str(cli)], check=True, cwd=default_run,
                   capture_output=True)
    chains = (pair / "chains.paf").read_bytes()
    assert chains == cli.read_bytes() and chains.count(b"tp:A:P") >= 5
    assert (pair / "chains.chain").read_text().startswith("chain ") and (pair / "chains.parquet").stat().st_size > 0
    for row in read_tsv(pair / "coverage_genomes.tsv"):  # the backbone's spans: the homology map's coverage
        assert 0.9 < float(row["coverage_backbone"]) <= 1 and float(row["coverage_both"]) > 0.9
        assert 0.9 < float(row["coverage_aligned"]) <= 1 and 0.95 < float(row["identity_aligned"]) < 1
    # the alignments, made in the chains rule: the command line's, byte for byte
    cli = default_run / "cli.alignments.paf"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "align", "resources/Mhyopneumoniae_232.fa.gz",
                    "resources/Mhyopneumoniae_7422.fa.gz", "-o", str(cli)], check=True, cwd=default_run,
                   capture_output=True)
    alignments = (pair / "alignments.paf").read_bytes()
    assert alignments == cli.read_bytes() and alignments.count(b"tp:A:P") >= 5
    assert (pair / "alignments.delta").read_text().count("\n>") >= 1 and (pair / "snps.tsv").stat().st_size > 10_000


def test_report(default_run):
    """The report opens with the run (genomes, parameters, backend, job times) and groups its items
    by genome pair."""
    snakemake(default_run, "--report", "report.html")
    html = (default_run / "report.html").read_text()
    assert "grid_dotplot.png" in html and "dotplot.html" in html and len(html) > 10000
    for text in ("892,758", "Mhyo232 vs Mhyo7422", "min_identity 80", "numpy", "compare 1 job"):
        assert text in html, text
    # the first page's headline numbers: the pair's HSPs, one-to-one alignments and their coverage
    genomes = (default_run / "results/default/Mhyo232_vs_Mhyo7422/coverage_genomes.tsv").read_text().splitlines()
    query = dict(zip(genomes[0].split("\t"), genomes[1].split("\t")))
    headline = html.split("Headline numbers")[1][:3000]
    for text in ("597", f"{100 * float(query['coverage_aligned']):.2f} %", "one-to-one alignments"):
        assert text in headline, text
    assert "min_match" not in html.split("Parameters")[1][:400]  # a parameter of the exact-match modes only


def test_filter_writes_what_a_run_with_the_tighter_threshold_writes(default_run, tmp_path):
    """`filter --min-len 500` on the default run gives the same rows and the same outputs, byte for
    byte (table rows and metadata, PAF, GECKO CSV, coverage tables, pictures), as a run with
    min_len 500 (min_len only drops reported HSPs) and no alignments; --min-identity keeps exactly
    the rows at least that identical."""
    import pyarrow.parquet as pq

    table = default_run / PAIR / "hsps.parquet"
    out = tmp_path / "filtered"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "filter", str(table), "-o", str(out), "--min-len", "500"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rerun = workdir(tmp_path / "rerun") if (tmp_path / "rerun").mkdir() is None else None
    # filter makes no alignments (they need the genomes' sequences): the run it matches makes none either
    snakemake(rerun, "--cores", "2", "--config", "engine={min_len: 500}", "outputs={alignments_paf: False, "
              "alignments_table: False, alignments_delta: False, snps: False}")
    expected = rerun / PAIR.replace("/default/", "/min_len500/")  # an override is a set of its own
    assert not (rerun / "results" / "default").exists()
    assert pq.read_table(out / "hsps.parquet").num_rows == pq.read_table(expected / "hsps.parquet").num_rows > 100
    produced = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert "dotplot.html" in produced and "pair_dotplots/NC_006360.1__NC_021831.1.png" in produced
    for name in produced:
        a, b = out / name, expected / name
        if name.endswith(".parquet"):  # tables: by content; the filtered table names its source
            from wfhelpers import parquet_content

            strip = lambda data: data.replace(repr(str(table.resolve())).encode(), b"")  # noqa: E731
            assert strip(parquet_content(a)).replace(b", 'filtered_from': ", b"") == parquet_content(b)
        else:
            assert a.read_bytes() == b.read_bytes(), name
    strict = tmp_path / "strict"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "filter", str(table), "-o", str(strict), "--min-identity", "95",
                    "--no-plots", "--no-text"], check=True, capture_output=True)
    before, after = pq.read_table(table).to_pandas(), pq.read_table(strict / "hsps.parquet").to_pandas()
    keep = before["identities"] * 100 >= 95 * before["length"]
    assert 0 < len(after) < len(before) and after.equals(before[keep].reset_index(drop=True))
    assert not (strict / "hsps.paf").exists() and (strict / "coverage_genomes.tsv").exists()


def test_names_with_underscores_and_an_engine_override_from_the_command_line(tmp_path):
    """A genome named M_hyo232 runs; `--config 'engine={k: 20}'` (Snakemake's nested form: its
    --config refuses dotted keys) sets k to 20 and keeps the other engine keys, in a set of its own
    named from the override (k20), never over `default`'s results."""
    import json

    import pyarrow.parquet as pq

    cwd = workdir(tmp_path)
    (cwd / "u.yaml").write_text("genomes:\n  M_hyo232: resources/Mhyopneumoniae_232.fa.gz\n"
                                "  M_hyo7422: resources/Mhyopneumoniae_7422.fa.gz\noutputs:\n  pair_dotplots: false\n"
                                "  delta: true\n")
    snakemake(cwd, "--cores", "2", "--configfile", "u.yaml", "--config", "engine={k: 20}")
    assert not (cwd / "results/default").exists()
    # its summary is its own: a plain run's summary.tsv is neither written over nor made stale by it
    assert not (cwd / "results/summary.tsv").exists()
    assert [row["set"] for row in read_tsv(cwd / "results/summary_k20.tsv")] == ["k20"]
    table = cwd / "results/k20/M_hyo232_vs_M_hyo7422/hsps.parquet"
    params = json.loads(pq.read_schema(table).metadata[b"gpu_kernels"])["params"]
    assert params["k"] == 20 and params["min_len"] == 64 and params["min_identity"] == 80
    assert read_tsv(cwd / "results/k20/M_hyo232_vs_M_hyo7422/coverage_query.tsv")[0]["query_genome"] == "M_hyo232"
    # outputs.delta: the MUMmer delta file beside the PAF, naming the two FASTA files (plain copies of the
    # gzipped ones beside it, by absolute paths), a record a row
    pair = cwd / "results/k20/M_hyo232_vs_M_hyo7422"
    delta = (pair / "hsps.delta").read_text().splitlines()
    assert delta[:2] == [f"{pair / 'hsps.delta.reference.fa'} {pair / 'hsps.delta.query.fa'}", "NUCMER"]
    assert (pair / "hsps.delta.query.fa").read_bytes() == \
        gzip.decompress((cwd / "resources/Mhyopneumoniae_232.fa.gz").read_bytes())
    assert sum(len(line.split()) == 7 for line in delta) == pq.ParquetFile(table).metadata.num_rows > 500


def test_lint_has_no_findings_and_the_catalog_files_are_there(tmp_path):
    import yaml

    from conftest import ROOT

    proc = snakemake(workdir(tmp_path), "--lint")
    assert "Congratulations" in proc.stdout + proc.stderr
    for name in ("workflow/Snakefile", "config/README.md", "config/config.yaml", "config/schema.yaml", "LICENSE"):
        assert os.path.getsize(os.path.join(ROOT, name)) > 100, name
    catalog = yaml.safe_load(open(os.path.join(ROOT, ".snakemake-workflow-catalog.yml")))
    # it claims only what has been run: no deployment yet, the report yes
    assert not any(catalog["usage"]["software-stack-deployment"].values()) and catalog["usage"]["report"]
    snakefile = open(os.path.join(ROOT, "workflow", "Snakefile")).read()
    assert re.search(r'^container: "docker://', snakefile, re.M)
    rules_dir = os.path.join(ROOT, "workflow", "rules")
    for name in os.listdir(rules_dir):
        text = open(os.path.join(rules_dir, name)).read()
        assert len(re.findall(r"^(?:rule|checkpoint) ", text, re.M)) == text.count('conda:\n        "../envs/engine.yaml"'), name


def test_genome_names_yaml_reads_as_numbers_are_their_text(tmp_path):
    """`232:` and `7422:` as genome names (YAML reads them as numbers, once a KeyError traceback):
    the pair is planned as 232_vs_7422, and a pairs list naming them as numbers finds them."""
    cwd = workdir(tmp_path)
    (cwd / "n.yaml").write_text("genomes:\n  232: resources/Mhyopneumoniae_232.fa.gz\n"
                                "  7422: resources/Mhyopneumoniae_7422.fa.gz\n"
                                "comparisons:\n  mode: pairs\n  pairs:\n    - {query: 232, reference: 7422}\n")
    proc = snakemake(cwd, "-n", "--configfile", "n.yaml")
    assert "results/default/232_vs_7422/stats.tsv" in proc.stdout + proc.stderr


def test_example_sweep_dry_run(tmp_path):
    proc = snakemake(workdir(tmp_path), "-n", "--configfile", "config/sweep_grid.yaml")
    out = proc.stdout + proc.stderr
    for k in (16, 24, 32):
        for identity in (70, 80):
            assert f"results/sweep_grid/k{k}_min_identity{identity}/Mhyo232_vs_Mhyo7422/stats.tsv" in out


def test_the_distant_genomes_setting_runs_and_writes_alignment_chains(tmp_path):
    """config/distant_genomes.yaml beside a genomes file: the distant preset with its mammal-sized seed,
    and alignments.chain holds a UCSC chain for each one-to-one alignment."""
    cwd = workdir(tmp_path)
    (cwd / "g.yaml").write_text("genomes:\n  A: resources/Mhyopneumoniae_232.fa.gz\n"
                                "  B: resources/Mhyopneumoniae_7422.fa.gz\nbackend: numpy\n")
    snakemake(cwd, "--cores", "2", "--configfile", "config/distant_genomes.yaml", "g.yaml")
    pair = cwd / "results/default/A_vs_B"
    one_to_one = (pair / "alignments.paf").read_text().count("tp:A:P")
    chains = [line for line in (pair / "alignments.chain").read_text().splitlines() if line.startswith("chain ")]
    assert one_to_one >= 1 and len(chains) == one_to_one
    log = next((cwd / "results/logs/compare").rglob("*.log")).read_text()
    assert "preset='distant'" in log and "seed='14of22'" in log and "transitions=0" in log
    # the Snakefile's malloc setting reaches the jobs (sizing.MALLOC_TUNABLES)
    assert f"(GLIBC_TUNABLES {MALLOC_TUNABLES})" in log


@pytest.mark.parametrize("config, expected", [
    ("genomes:\n  A: nope.fa\n", "genome A: nope.fa: no such file"),
    ("genomes:\n  A: resources/Mhyopneumoniae_232.fa.gz\n  A: resources/Mhyopneumoniae_7422.fa.gz\n", "key 'A' appears twice"),
    ("genomes:\n  A: resources/Mhyopneumoniae_232.fa.gz\nengine:\n  k: 40\n", "config engine.k: 40 is greater than the maximum of 32"),
    ("genomes: {}\nbogus: 1\n", "config "),
    ("genomes:\n  A: dup.fa\n  B: resources/Mhyopneumoniae_232.fa.gz\n", "dup.fa: record 'x': duplicate record name"),
    ("genomes:\n  yes: resources/Mhyopneumoniae_232.fa.gz\n  B: resources/Mhyopneumoniae_7422.fa.gz\n",
     "genome name True: YAML reads yes, no, on, off, true and false as booleans; quote the name"),
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


def job_counts(proc) -> dict:
    """{rule: jobs} from a dry run's job table."""
    counts = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    return counts


def test_fragmented_assemblies_are_a_bounded_number_of_jobs(tmp_path):
    cwd = contig_workdir(tmp_path)
    counts = job_counts(snakemake(cwd, "-n", "--configfile", "contigs.yaml"))
    # 1 Mbp in bins of at most 250 kbp: at most 5 bins a genome; a compare job takes a query bin and
    # every reference bin, so at most 5 compare jobs, not 4 million
    assert 4 <= counts["compare"] <= 5 and counts["index"] == 2, counts
    counts = job_counts(snakemake(cwd, "-n", "--configfile", "contigs.yaml", "--config",
                                  "bins={size: 250000, group_size: 250000}"))
    assert 16 <= counts["compare"] <= 25, counts  # reference groups of one bin: a job per bin pair


def test_twelve_chromosomes_a_side_are_twelve_compare_jobs(tmp_path):
    """12 x 12 chromosomes: 144 bin pairs, in 12 compare jobs (one per query chromosome) by default."""
    cwd = workdir(tmp_path)
    rng = np.random.default_rng(12)
    for name in ("a", "b"):
        with open(cwd / f"{name}.fa", "w") as handle:
            for i in range(12):
                handle.write(f">chr{i + 1}\n" + "".join(rng.choice(list("ACGT"), 2000)) + "\n")
    (cwd / "twelve.yaml").write_text("genomes:\n  A: a.fa\n  B: b.fa\nbins:\n  size: 1000\n")
    counts = job_counts(snakemake(cwd, "-n", "--configfile", "twelve.yaml"))
    assert counts["compare"] == 12 and counts["stats"] == 1, counts


@pytest.mark.slow
def test_killed_run_resumes_to_identical_outputs(tmp_path):
    whole = contig_workdir(tmp_path / "whole", bin_size=400000)  # 3 bins a genome: 9 bin pairs
    snakemake(whole, "--cores", "2", "--configfile", "contigs.yaml")
    cut = contig_workdir(tmp_path / "cut", bin_size=400000)
    proc = subprocess.Popen([sys.executable, "-m", "snakemake", "-s", SNAKEFILE, "-d", str(cut), "--cores", "1",
                             "--configfile", "contigs.yaml"], cwd=cut, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    bins = cut / "results/default/fragA_vs_fragB/bins"
    deadline = time.time() + 300
    # killed inside a compare job (3 jobs of 3 bin pairs each): its folder is incomplete and is made again
    while time.time() < deadline and len(list(bins.rglob("*.parquet")) if bins.exists() else []) < 2:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (cut / "results/summary.tsv").exists(), "the run finished before it was killed"
    shutil.rmtree(cut / ".snakemake" / "locks", ignore_errors=True)
    snakemake(cut, "--cores", "2", "--configfile", "contigs.yaml", "--rerun-incomplete")
    assert comparable(cut) == comparable(whole)


def test_a_job_that_fails_says_why_in_its_log(tmp_path, capsys):
    """A full disk is one line naming the file (log and stderr) and a failed job; any other failure
    leaves its traceback in the job's log, not only on Snakemake's stderr."""
    import importlib.util
    import logging
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("_setup", os.path.join(os.path.dirname(SNAKEFILE), "scripts", "_setup.py"))
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)

    def full():
        raise OSError(28, "No space left on device", "results/A_vs_B/hsps.paf")

    def broken():
        raise RuntimeError("a bug")

    root = logging.getLogger()
    saved = root.handlers[:], root.level  # setup_logging replaces the root logger's handlers
    try:
        for name, step, expected in (("full", full, "results/A_vs_B/hsps.paf: No space left on device"),
                                     ("broken", broken, "RuntimeError: a bug")):
            log = tmp_path / f"{name}.log"
            with pytest.raises((SystemExit, RuntimeError)) as caught:
                setup.run(SimpleNamespace(threads=1, log=[str(log)]), step)
            assert expected in log.read_text(), log.read_text()
            if name == "full":
                assert caught.value.code == 1 and capsys.readouterr().err.strip() == f"error: {expected}"
            else:
                assert "Traceback" in log.read_text()
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])


def test_the_top_level_snakefile_plans_the_same_jobs(tmp_path):
    """The repository root's Snakefile (the design card's layout) includes workflow/Snakefile: a dry run
    through either plans the same jobs."""
    from conftest import ROOT

    cwd = workdir(tmp_path)
    plans = []
    for snakefile in (os.path.join(ROOT, "Snakefile"), SNAKEFILE):
        proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", snakefile, "-d", str(cwd), "-n", "--cores", "1"],
                              cwd=cwd, capture_output=True, text=True, check=True)
        plans.append(sorted(line.split()[1] for line in proc.stdout.splitlines() if line.startswith("rule ")
                            and line.split()[1] not in ("all:", "default:")))  # each file's target rule
    assert plans[0] == plans[1] and "compare:" in plans[0] and "alignments:" in plans[0]


def test_the_workflow_is_snakefmt_clean():
    """The Snakemake catalog asks for snakefmt's formatting: `snakefmt --check` changes nothing in the
    Snakefiles and rules (the test extras install it, so CI checks it)."""
    import shutil

    snakefmt = shutil.which("snakefmt")
    if snakefmt is None:
        pytest.skip("snakefmt is not installed (pip install -e '.[test]')")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([snakefmt, "--check", "workflow/", "Snakefile"], cwd=root, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_yaml_merge_keys_share_values_between_sweep_sets(tmp_path):
    """`<<: *base` (YAML's merge key) in a config is read as YAML reads it, the keys beside it
    overriding the merged ones; a key given twice in one mapping is still refused; set names hold '_'
    as the grid's own names do."""
    from gpu_kernels.errors import InputError
    from gpu_kernels.workflow.config import check_config_file

    cwd = workdir(tmp_path)
    genomes = "genomes:\n  Mhyo232: resources/Mhyopneumoniae_232.fa.gz\n  Mhyo7422: resources/Mhyopneumoniae_7422.fa.gz\n"
    (cwd / "merge.yaml").write_text(genomes + "sweep:\n  sets:\n    k_20: &base {k: 20, min_len: 30}\n"
                                    "    k_24: {<<: *base, k: 24}\n")
    check_config_file(str(cwd / "merge.yaml"))
    out = snakemake(cwd, "-n", "--configfile", "merge.yaml").stdout
    assert "results/k_20/Mhyo232_vs_Mhyo7422/stats.tsv" in out and "results/k_24/Mhyo232_vs_Mhyo7422/stats.tsv" in out
    (cwd / "twice.yaml").write_text("sweep:\n  sets:\n    a: &base {k: 20}\n    b: {<<: *base, k: 24, k: 28}\n")
    with pytest.raises(InputError, match="key 'k' appears twice"):
        check_config_file(str(cwd / "twice.yaml"))
    (cwd / "bad_name.yaml").write_text(genomes + "sweep:\n  sets:\n    _hidden: {k: 20}\n")
    proc = snakemake(cwd, "-n", "--configfile", "bad_name.yaml", check=False)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert proc.returncode != 0 and len(errors) == 1 and "'_hidden'" in errors[0] and "Traceback" not in proc.stderr


def test_the_genome_scan_goes_on_where_its_cache_cannot_be_written(tmp_path, monkeypatch):
    """The genome scan's cache cannot be written (a finished run archived read-only, a full disk: once
    a PermissionError stack at `snakemake -n`): the scan is made and used all the same."""
    from gpu_kernels.workflow import genome

    fasta = tmp_path / "g.fa"
    fasta.write_text(">a\nACGTACGT\n>b\nAC\n")

    def refused(path):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(genome, "atomic_path", refused)
    chromosomes, _ = genome.scan_cached(str(fasta), str(tmp_path / "ro" / "scan.json"))
    assert [(c.name, c.length) for c in chromosomes] == [("a", 8), ("b", 2)]
    assert not (tmp_path / "ro").exists()
