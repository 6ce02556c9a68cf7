"""The workflow's unit of work is the homology pipeline on a bin pair: its alignments and chains are
`align`'s, whatever the bins, and a changed alignment parameter reruns what it changes."""
import os
import re

import pytest

from gpu_kernels.__main__ import main
from generate import duplicated_genomes
from wfhelpers import coverage_of, read_tsv, snakemake

PAIR = "results/default/q_vs_r"
# workflow output -> align's option writing the same file
SAME = {"alignments.paf": "-o", "alignments.delta": "--delta", "snps.tsv": "--snps", "chains.paf": "--chains",
        "chains.chain": "--chain-file", "variants.vcf": "--vcf", "alignments.chain": "--liftover",
        "alignments.maf": "--maf", "alignments.psl": "--psl"}


def config(folder, query, reference, bins: int = 12_000, group: int = 1_000_000_000, engine: str = "",
           outputs: str = "") -> str:
    text = f"""genomes:
  q: {query}
  r: {reference}
comparisons: {{mode: pairs, pairs: [{{query: q, reference: r}}]}}
backend: numpy
bins: {{size: {bins}, group_size: {group}}}
engine: {{{engine}}}
outputs: {{gecko_csv: false, paf: false, grid_dotplot: false, html_dotplot: false, coverage_heatmap: false,
           pair_dotplots: false, alignments_sam: false, vcf: true, alignments_chain: true, alignments_maf: true,
           alignments_psl: true{outputs}}}
"""
    path = folder / "config.yaml"
    path.write_text(text)
    return str(path)


def align_files(folder, query, reference, *options) -> dict:
    args = ["align", query, reference, "--backend", "numpy", *options]
    for name, flag in SAME.items():
        args += [flag, str(folder / f"align.{name}")]
    assert main(args) == 0
    return {name: (folder / f"align.{name}").read_bytes() for name in SAME}


def run_files(cwd) -> dict:
    return {name: (cwd / PAIR / name).read_bytes() for name in SAME}


def header_free(name: str, data: bytes) -> bytes:
    """A delta file names its FASTA files in its first line, as they were given to each command; a
    VCF's header its command line."""
    if name.endswith(".vcf"):
        return b"".join(line for line in data.splitlines(keepends=True) if not line.startswith(b"##commandline="))
    if name.endswith(".maf"):  # its command line in a comment
        return b"".join(line for line in data.splitlines(keepends=True) if not line.startswith(b"# "))
    return data.split(b"\n", 1)[1] if name.endswith(".delta") else data


@pytest.fixture(scope="module")
def genomes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("genomes")
    return folder, *duplicated_genomes(folder, 7)


@pytest.mark.parametrize("bins,group", [(12_000, 1_000_000_000), (30_000, 1_000_000_000), (12_000, 20_000),
                                        (1_000_000, 1_000_000_000)])
def test_workflow_alignments_are_aligns_whatever_the_bins(tmp_path, genomes, bins, group):
    folder, query, reference = genomes
    expected = align_files(folder, query, reference)
    assert expected["alignments.paf"].count(b"tp:A:P") >= 4
    snakemake(tmp_path, "--cores", "2", "--configfile", config(tmp_path, query, reference, bins, group))
    got = run_files(tmp_path)
    for name in SAME:
        assert header_free(name, got[name]) == header_free(name, expected[name]), (name, bins, group)
    jobs = list((tmp_path / "results/logs/compare").rglob("*.log"))
    assert len(jobs) > 1 or bins == 1_000_000, jobs
    assert not (tmp_path / PAIR / "bins").exists() or not any((tmp_path / PAIR / "bins").iterdir())  # temporary
    log = (tmp_path / "results/logs/alignments/default/q/r.log").read_text()
    assert f"the compare jobs' texts removed ({len(jobs)} files" in log, log


def test_notemp_keeps_the_compare_jobs_texts(tmp_path, genomes):
    """Snakemake's --notemp keeps the temporary files, the texts the alignments job would otherwise
    remove as soon as it holds them among them; the outputs are the same."""
    folder, query, reference = genomes
    snakemake(tmp_path, "--cores", "2", "--notemp", "--configfile", config(tmp_path, query, reference, 12_000, 20_000))
    texts = list((tmp_path / PAIR / "bins").glob("*.texts.bin"))
    assert len(texts) == len(list((tmp_path / "results/logs/compare").rglob("*.log"))) > 1
    assert "texts removed" not in (tmp_path / "results/logs/alignments/default/q/r.log").read_text()
    expected = align_files(folder, query, reference)
    got = run_files(tmp_path)
    for name in SAME:
        assert header_free(name, got[name]) == header_free(name, expected[name]), name


def test_a_changed_alignment_parameter_reruns_to_aligns_result(tmp_path, genomes):
    folder, query, reference = genomes
    snakemake(tmp_path, "--cores", "2", "--configfile", config(tmp_path, query, reference))
    before = run_files(tmp_path)
    # the same config file, rewritten: Snakemake's default triggers (parameters) must see the change
    snakemake(tmp_path, "--cores", "2", "--configfile", config(tmp_path, query, reference, engine="gap_open: 9"))
    after = run_files(tmp_path)
    expected = align_files(folder, query, reference, "--gap-open", "9")
    assert after["alignments.paf"] != before["alignments.paf"]
    for name in SAME:
        assert header_free(name, after[name]) == header_free(name, expected[name]), name
    dry = snakemake(tmp_path, "--cores", "2", "-n", "--configfile", config(tmp_path, query, reference,
                                                                          engine="gap_open: 9"))
    assert "Nothing to be done" in dry.stdout + dry.stderr


def test_the_exhaustive_hsp_table_and_secondary_chains_are_opt_in_past_the_size(tmp_path, genomes):
    folder, query, reference = genomes
    # the merged table of the HSPs in chains is asked for here only to check that the coverage tables,
    # made from the compare jobs' shares, are those of that table
    snakemake(tmp_path, "all", f"{PAIR}/chained_hsps.parquet", "--cores", "2", "--configfile",
              config(tmp_path, query, reference, outputs=", hsps_auto_bases: 1000, chained_hsps: true"))
    pair = tmp_path / PAIR
    assert not (pair / "hsps.parquet").exists()
    _, _, merged = coverage_of(pair / "chained_hsps.parquet", tmp_path)
    # without outputs.chained_hsps the compare jobs keep their shares alone: asked for, one clear line
    (pair / "chained_hsps.parquet").unlink()
    failed = snakemake(tmp_path, f"{PAIR}/chained_hsps.parquet", "--cores", "2", "--configfile",
                       config(tmp_path, query, reference, outputs=", hsps_auto_bases: 1000"), check=False)
    assert failed.returncode != 0 and "set outputs.chained_hsps: true" in failed.stdout + failed.stderr
    for made, name in zip(merged, ("coverage_pairs.tsv", "coverage_query.tsv")):
        got, want = read_tsv(pair / name), read_tsv(made)
        keys = [k for k in want[0] if not k.endswith("genome")]  # coverage_of names the genomes Q and R
        assert [[row[k] for k in keys] for row in got] == [[row[k] for k in keys] for row in want], name
        assert len(want) > 1, name
    expected = align_files(folder, query, reference)
    assert (pair / "alignments.paf").read_bytes() == expected["alignments.paf"]
    # past the size, the chains' outputs hold the backbone (the other chains are as many as the repeats' hits)
    backbone = [line for line in expected["chains.paf"].splitlines(keepends=True) if b"\ttp:A:P\t" in line]
    assert (pair / "chains.paf").read_bytes() == b"".join(backbone) and backbone
    assert float(read_tsv(pair / "coverage_query.tsv")[0]["coverage_aligned"]) > 0.5


@pytest.mark.parametrize("max_gap", [None, 300])
def test_backbone_chains_no_job_aligned_are_aligned_as_align_aligns_them(tmp_path, max_gap):
    """Genomes (seed 109) whose jobs, a query record each against the whole reference, leave backbone
    chains unaligned (each lost in its own job to a chain that another job's chain beats): the
    assemble rule aligns them on windows of the records they lie on, and the PAF (the late chains'
    texts among the parts') is align's. With a max_gap of 300 the windows are inside the records."""
    query, reference = duplicated_genomes(tmp_path, 109)
    engine = "" if max_gap is None else f"max_gap: {max_gap}"
    snakemake(tmp_path, "--cores", "2", "--configfile", config(tmp_path, query, reference, engine=engine,
                                                               outputs=", hsps_auto_bases: 1000"))
    log = (tmp_path / "results/logs/assemble/default/q/r.log").read_text()
    assert "no part aligned: aligned here" in log
    if max_gap is not None:
        windows = re.search(r"windows of (\d+) query and (\d+) reference bases \(their records: (\d+) and (\d+)\)",
                            log)
        assert int(windows[1]) < int(windows[3]) and int(windows[2]) < int(windows[4]), windows[0]
    expected = align_files(tmp_path, query, reference, *([] if max_gap is None else ["--max-gap", str(max_gap)]))
    assert (tmp_path / PAIR / "alignments.paf").read_bytes() == expected["alignments.paf"]
    assert header_free("snps.tsv", (tmp_path / PAIR / "snps.tsv").read_bytes()) == expected["snps.tsv"]


def test_the_coverage_pass_and_the_dots_run_beside_the_assembly_and_the_pictures_beside_the_tables(tmp_path, genomes):
    """The serial tail of a whole-genome run: the compare jobs' shares of the coverage tables and the
    dotplots' dots are merged beside `assemble` (they need nothing it makes), so the pictures after the
    assembly only draw (their gathering once waited for it: 7.4 s of a 3 Gbp pair's 15.4 s plots job);
    the pictures read that merge's numbers, not the coverage tables (they once waited for them: 12.6 s
    of a 3 Gbp pair's run after coverage's 15.3 s); and nothing waits for an HSP table the pair's
    outputs do not hold: the alignments start once the pair is assembled."""

    _, query, reference = genomes
    made = config(tmp_path, query, reference, outputs=", hsps_auto_bases: 1000")
    (tmp_path / "config.yaml").write_text(open(made).read().replace("grid_dotplot: false", "grid_dotplot: true"))
    graph = snakemake(tmp_path, "--rulegraph", "--configfile", "config.yaml").stdout
    names = dict(re.findall(r"^\s*(\d+)\[label = \"(\w+)\"", graph, re.M))
    edges = {(names[a], names[b]) for a, b in re.findall(r"^\s*(\d+) -> (\d+)", graph, re.M)}
    assert {("compare", "hsp_coverage"), ("hsp_coverage", "coverage"), ("hsp_coverage", "plots"),
            ("assemble", "coverage"), ("assemble", "plots"), ("assemble", "alignments")} <= edges, edges
    assert not {("assemble", "hsp_coverage"), ("coverage", "plots"), ("merge", "hsp_coverage"),
                ("compare", "plots"), ("hsp_coverage", "alignments")} & edges
    assert "merge" not in names.values()
    # a rule's priority made Snakemake's ILP scheduler take its 10 s limit to choose the jobs after
    # assemble (a 3 Gbp pair's run, one H200): the order comes from the threads asked for, not priorities
    rules = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "workflow", "rules")
    assert not [name for name in os.listdir(rules) if re.search(r"^\s+priority:", open(os.path.join(rules, name)).read(), re.M)]
