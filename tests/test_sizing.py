"""What the workflow chooses from the genomes' sizes (gpu_kernels/workflow/sizing.py): bins, fast mode a
pair, the disk check's estimate and its one line; `auto` and numbers read from --config."""
import os
import re

import pytest

from gpu_kernels.workflow.estimate import FAMILIES, PairCounts
from gpu_kernels.workflow.outputs import PAIR_OUTPUTS

from gpu_kernels.workflow.config import coerce_overrides, schema_error
from gpu_kernels.workflow.sizing import (FAST_AUTO_BASES, MALLOC_TUNABLES, MAX_BIN, MIN_BIN, INDEX_PER_BASE, RESULTS_PER_BASE, bin_size, disk_need, disk_problem,
                                         by_estimate, fast_for, free_bytes, pair_params, repeat_bound)
from gpu_kernels.workflow.sweep import engine_params

UNITS = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}


def dry_run_estimates(text: str) -> dict:
    """pair -> family (and "all") -> bytes, from the table a dry run prints."""
    out = {}
    for line in text.splitlines():
        cells = re.findall(r"(\S+ [kMG]?B|-)(?=\s|$)", line)
        if line.startswith("  ") and "_vs_" in line.split()[0] and len(cells) > len(FAMILIES):
            values = [0.0 if c == "-" else float(c.split()[0]) * UNITS[c.split()[1]] for c in cells]
            out[line.split()[0]] = dict(zip([*FAMILIES, "all"], values))
    return out


def written_families(pair) -> dict:
    """family -> bytes of the outputs in a pair's folder (a delta's plain FASTA copies with it), and all."""
    sizes = {}
    for family, kinds in FAMILIES.items():
        paths = [pair / PAIR_OUTPUTS[kind] for kind in kinds]
        paths += [p.with_name(p.name + s) for p in paths for s in (".query.fa", ".reference.fa")]
        sizes[family] = sum(sum(f.stat().st_size for f in p.iterdir()) if p.is_dir() else p.stat().st_size
                            for p in paths if p.exists())
    sizes["all"] = sum(sizes.values())
    return sizes


SCHEMA = os.path.join(os.path.dirname(__file__), "..", "config", "schema.yaml")
GBP = 1_000_000_000


def test_auto_bins_are_a_sixth_of_the_genome_within_their_bounds():
    assert bin_size("auto", 2_000_000) == MIN_BIN  # a bacterium: one bin, as before
    assert bin_size("auto", 300_000_000) == MIN_BIN
    assert bin_size("auto", 1_200_000_000) == 200_000_000
    assert bin_size("auto", 3_100_000_000) == MAX_BIN  # a human-sized genome: about seven bins
    assert bin_size(1000, 3_100_000_000) == 1000  # a configured size is kept


def engine(**values):
    """An engine section as the schema fills it."""
    return {"k": 32, "fast": "auto", "max_freq": 20, "preset": "close", "min_len": 64, **values}


@pytest.mark.parametrize("query, reference, fast", [(3 * GBP, 3 * GBP, True), (600_000_000, 500_000_000, True),
                                                    (500_000_000, 500_000_000, False), (5_000_000, 4_000_000, False)])
def test_auto_fast_mode_follows_the_pairs_size(query, reference, fast):
    section = engine()
    params = engine_params(section, {"k"})
    assert params.seeding.max_freq == 0  # the set itself is exhaustive; a pair turns fast mode on
    assert fast_for(section, query, reference) == fast == (query + reference > FAST_AUTO_BASES)
    assert pair_params(params, section, query, reference).seeding.max_freq == (20 if fast else 0)


def test_a_given_fast_mode_or_preset_is_kept_whatever_the_size():
    never = engine(fast=False)
    assert pair_params(engine_params(never), never, 3 * GBP, 3 * GBP).seeding.max_freq == 0
    always = engine(fast=True, max_freq=50)
    assert pair_params(engine_params(always), always, 1000, 1000).seeding.max_freq == 50
    capped = engine(max_freq=7)  # auto with a cap of the config's own
    assert pair_params(engine_params(capped, {"max_freq"}), capped, 3 * GBP, 3 * GBP).seeding.max_freq == 7
    distant = engine(preset="distant")  # the preset's own cap (200), not auto's
    params = engine_params(distant, {"preset"})
    assert pair_params(params, distant, 3 * GBP, 3 * GBP) == params and params.seeding.max_freq == 200


def test_the_disk_estimate_counts_the_index_every_pairs_outputs_and_the_largest_pairs_parts():
    need = disk_need(6 * GBP, [6 * GBP, 2 * GBP])
    assert need.index == int(6 * GBP * INDEX_PER_BASE) and need.results == int(8 * GBP * RESULTS_PER_BASE)
    assert need.temporary == disk_need(0, [6 * GBP]).temporary > disk_need(0, [2 * GBP]).temporary
    assert need.total == need.index + need.temporary + need.results
    assert disk_need(0, []).total == 0  # a finished run needs nothing more
    assert disk_problem(need, need.total, "results") is None
    line = disk_problem(need, need.total - 1, "results")
    assert "\n" not in line and line.startswith("results: results: this run needs about")
    assert "check_disk: false" in line


def test_free_bytes_reads_the_nearest_existing_parent(tmp_path):
    assert free_bytes(str(tmp_path / "not" / "yet" / "made")) == free_bytes(str(tmp_path)) > 0


def test_auto_and_numbers_from_the_command_line_pass_the_schema():
    config = {"genomes": {"A": "a.fa"}, "bins": {"size": "100000"}, "engine": {"fast": "auto"}}
    coerce_overrides(config, SCHEMA)  # --config 'bins={size: 100000}' gives the string '100000'
    assert config["bins"]["size"] == 100000 and config["engine"]["fast"] == "auto"
    assert schema_error(config, SCHEMA) is None
    config["engine"]["fast"] = "true"
    coerce_overrides(config, SCHEMA)
    assert config["engine"]["fast"] is True
    config["bins"]["size"] = "big"
    coerce_overrides(config, SCHEMA)
    assert "bins.size: 'big' is not integer or 'auto'" in schema_error(config, SCHEMA)


@pytest.mark.slow
def test_a_pairs_hsp_texts_and_every_chain_are_written_where_they_weigh_little(tmp_path):
    """outputs.hsps auto: the bundled pair's HSP table and texts and every chain are written (their
    estimate, from the genomes' sketches, is a few percent of its bases); with outputs.auto_share
    under that, the HSP table and texts are left out and the chains' outputs hold the backbone's,
    while the coverage tables (made of the compare jobs' HSPs then) and the alignments stay the same.
    The dry run's estimate of each output family is within 2x of what the run writes. A finished run
    has nothing left to do."""
    import pyarrow.parquet as pq
    from wfhelpers import snakemake, workdir

    runs = {}
    for name, share in (("plain", None), ("small", 0.001)):
        cwd = workdir(tmp_path / name) if (tmp_path / name).mkdir() is None else None
        extra = [] if share is None else ["--config", f"outputs={{auto_share: {share}}}"]
        dry = snakemake(cwd, "--cores", "2", "-n", *extra)
        snakemake(cwd, "--cores", "2", *extra)
        estimated = dry_run_estimates(dry.stderr)["default/Mhyo232_vs_Mhyo7422"]
        pair = cwd / "results" / "default" / "Mhyo232_vs_Mhyo7422"
        for family, real in written_families(pair).items():
            assert (real == 0) == (estimated[family] == 0), family
            assert real == 0 or 0.5 <= estimated[family] / real <= 2, (family, estimated[family], real)
        assert "Nothing to be done" in snakemake(cwd, "--cores", "2", "-n", *extra).stdout
        runs[name] = cwd / "results" / "default" / "Mhyo232_vs_Mhyo7422"
    plain, small = runs["plain"], runs["small"]
    assert (plain / "hsps.paf").stat().st_size > 0 and (plain / "hsps.gecko.csv").exists()
    assert pq.read_table(plain / "hsps.parquet").num_rows > 0
    assert not any((small / name).exists() for name in ("hsps.parquet", "hsps.paf", "hsps.gecko.csv"))
    for name in ("coverage_pairs.tsv", "coverage_query.tsv", "coverage_reference.tsv"):
        assert (small / name).read_bytes() == (plain / name).read_bytes(), name
    every, backbone = pq.read_table(plain / "chains.parquet"), pq.read_table(small / "chains.parquet")
    assert 0 < backbone.num_rows < every.num_rows
    assert set(backbone.column("backbone").to_pylist()) == {1}
    assert (small / "alignments.paf").read_bytes() == (plain / "alignments.paf").read_bytes()


def counts(repeat_hsps: int, collinear_hsps: int) -> PairCounts:
    return PairCounts(aligned=10**6, divergence=0.02, alignments=10, hsps=repeat_hsps + collinear_hsps,
                      repeat_hsps=repeat_hsps, chains=10, collinear_hsps=collinear_hsps)


@pytest.mark.parametrize("repeats, collinear, fast", [
    (9_917_801, 26_200, True),  # the repeat-rich 2 x 20 Mbp pair's estimate
    (1_140_000_000, 334_000, True),  # 2 x 150 Mbp of 30 % repeats: a billion HSPs
    (118, 740, False),  # the bundled Mycoplasma pair
    (2_000_000, 1_000_000, False),  # many copies, not most of the HSPs
    (900_000, 1_000, False)])  # most of the HSPs, too few to matter
def test_auto_fast_mode_follows_the_repeat_content_below_its_size(repeats, collinear, fast):
    section = engine()
    params = engine_params(section, {"k"})
    made = counts(repeats, collinear)
    assert repeat_bound(made) == fast
    assert by_estimate(params, section, 20_000_000, 20_000_000)
    assert pair_params(params, section, 20_000_000, 20_000_000, made).seeding.max_freq == (20 if fast else 0)
    # a fast mode given (either way), another preset, or a size that decides alone: no estimate asked
    assert not by_estimate(engine_params(engine(fast=False)), engine(fast=False), 20_000_000, 20_000_000)
    assert not by_estimate(engine_params(engine(preset="distant"), {"preset"}), engine(preset="distant"), 10, 10)
    assert not by_estimate(params, section, 3 * GBP, 3 * GBP)
    mems = engine(mode="mem")
    assert not by_estimate(engine_params(mems, {"mode"}), mems, 20_000_000, 20_000_000)
    never = engine(fast=False)
    assert pair_params(engine_params(never), never, 20_000_000, 20_000_000, made).seeding.max_freq == 0


def repeat_pair(repeats: bool, seed: int = 3) -> tuple[str, str]:
    """Two 4 Mbp genomes 2 % apart, with (repeats) a family of 4,000 copies of 300 bases in each (30 % of
    it, copies 1 % from their consensus), or without."""
    import numpy as np

    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)
    unit, base = rng.integers(0, 4, 300), rng.integers(0, 4, 4_000_000)

    def genome():
        seq = base.copy()
        if repeats:
            for at in rng.choice(seq.size // 300, 4000, replace=False) * 300:
                copy = unit.copy()
                hit = rng.random(300) < 0.01
                copy[hit] = rng.integers(0, 4, int(hit.sum()))
                seq[at:at + 300] = copy
        hit = rng.random(seq.size) < 0.02
        seq[hit] = (seq[hit] + rng.integers(1, 4, int(hit.sum()))) % 4
        return letters[seq].tobytes().decode()

    return genome(), genome()


def test_the_sketches_tell_a_repeat_rich_pair_from_a_repeat_poor_one():
    """From the genomes' own sketches (as a run's scan makes them): only the repeat-rich pair of
    repeat_pair is repeat-bound."""
    from test_sketch import pair_counts

    rich = pair_counts(*([g] for g in repeat_pair(True)))
    poor = pair_counts(*([g] for g in repeat_pair(False)))
    assert repeat_bound(rich) and rich.repeat_hsps > 100 * rich.collinear_hsps, rich
    assert not repeat_bound(poor) and poor.repeat_hsps < poor.collinear_hsps, poor


def test_a_command_sketches_a_genome_as_the_workflows_scan_does(tmp_path):
    """align and compare choose fast mode from sketches of the sequences they read (sketch_of_codes):
    the same sites as the genome scan's sketch of the FASTA file (mixed case, N runs, two records),
    so that a command and the workflow choose alike."""
    import numpy as np

    from gpu_kernels.fasta import load_fasta
    from gpu_kernels.workflow.genome import scan_cached
    from gpu_kernels.workflow.sketch import load_sketch, sketch_of_codes

    first, second = repeat_pair(True)
    second = second[:1_000_000].lower() + "N" * 500 + second[1_000_500:]
    path = tmp_path / "g.fa"
    path.write_text(f">a\n{first[:1_500_000]}\n>b some words\n" +
                    "\n".join(second[i:i + 70] for i in range(0, len(second), 70)) + "\n")
    scan_cached(str(path), str(tmp_path / "scan.json"), str(tmp_path / "sketch.npz"), digest=False)
    scanned = load_sketch(str(tmp_path / "sketch.npz"))
    seqs = load_fasta(str(path))
    made = sketch_of_codes(seqs.codes, seqs.starts, seqs.lengths)
    assert made.shift == scanned.shift and made.sites.size > 1000
    assert np.array_equal(made.sites, scanned.sites) and np.array_equal(made.runs, scanned.runs)


def test_align_takes_fast_mode_where_the_workflow_would_and_says_so(tmp_path):
    """align with no --max-freq on the repeat-rich pair: one line names fast mode and why, and the
    alignments are those of --max-freq 20; a --max-freq given is kept (no line); the repeat-poor
    pair stays exhaustive (no line)."""
    import subprocess
    import sys

    from conftest import ROOT

    def run(pair: str, *options):
        done = subprocess.run([sys.executable, "-m", "gpu_kernels", "align", str(tmp_path / f"{pair}_q.fa"),
                               str(tmp_path / f"{pair}_r.fa"), "--backend", "numpy", *options], cwd=ROOT,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout, [line for line in done.stderr.splitlines() if "fast mode" in line]

    for pair, repeats in (("rich", True), ("poor", False)):
        query, reference = repeat_pair(repeats)
        (tmp_path / f"{pair}_q.fa").write_text(f">q\n{query}\n")
        (tmp_path / f"{pair}_r.fa").write_text(f">r\n{reference}\n")
    auto, lines = run("rich")
    assert len(lines) == 1 and lines[0].startswith("fast mode (--max-freq 20): the genomes' sketches put ")
    assert lines[0].endswith("exhaustive HSPs between repeat copies (--max-freq 0 keeps every HSP)")
    given, none = run("rich", "--max-freq", "20")
    assert auto == given and auto.count("\n") > 0 and none == []
    assert run("rich", "--max-freq", "5")[1] == []
    assert run("poor")[1] == []


def test_the_jobs_malloc_setting_reuses_large_arrays_without_faulting_pages_in():
    """sizing.MALLOC_TUNABLES, which the Snakefile gives every job: arrays of 8 to 400 MB freed and taken
    again come from the process's heap, with no page faulted in; without it, glibc maps each afresh."""
    import platform
    import subprocess
    import sys

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("GLIBC_TUNABLES is glibc's")
    probe = ("import resource, numpy as np\n"
             "faults = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
             "for size in (8 << 20, 64 << 20, 400 << 20):\n"
             "    a = np.ones(size // 8); del a\n"
             "    before = faults()\n"
             "    for _ in range(3):\n"
             "        a = np.ones(size // 8); del a\n"
             "    print(faults() - before)\n")

    def faulted(tunables):
        env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
        env.update({"GLIBC_TUNABLES": tunables} if tunables else {})
        done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
        return [int(n) for n in done.stdout.split()]

    assert faulted(MALLOC_TUNABLES) == [0, 0, 0]
    # glibc's default: each 64 and 400 MB array mapped and faulted in afresh (at least a fault a 2 MB huge page)
    assert min(faulted(None)[1:]) >= 3 * 16
