"""Many genomes (comparisons.many; gpu_kernels/workflow/many.py, ani.py, workflow/ani_set.py): ANI
against a plain oracle, the workflow's pairs equal to `align`'s, pyANI's matrices, and a genome
added to a finished run computing only its pairs."""
import math
import os
import re

import numpy as np
import pandas as pd
import pytest

from conftest import MYCO_232, MYCO_7422
from gpu_kernels.__main__ import main
from gpu_kernels.ani import pair_ani
from simulate_set import write_set  # bench/: the benchmarks' generator
from wfhelpers import read_tsv, snakemake, workdir


def oracle_ani(table: pd.DataFrame, qlens: dict, rlens: dict, fasta: tuple) -> dict:
    """ANI and aligned fractions the slow way: each one-to-one alignment's CIGAR walked column by
    column (a column holding a letter other than ACGT is unknown: neither match nor mismatch), each
    genome's covered bases marked one by one."""
    from gpu_kernels.fasta import read_fasta

    codes = [{record.name: record.codes for record in read_fasta(path)} for path in fasta]
    one = table[table["backbone"] == 1]
    matches = mismatches = gaps = 0
    marks = {"q": {n: np.zeros(v, bool) for n, v in qlens.items()}, "r": {n: np.zeros(v, bool) for n, v in rlens.items()}}
    for row in one.itertuples():
        q, r = codes[0][row.qname], codes[1][row.rname]
        i, j = 0, row.rstart  # query bases taken (from its start, or from its end on the reverse strand)
        for count, op in re.findall(r"(\d+)([=XID])", row.cigar):
            for _ in range(int(count)):
                qi = row.qend - 1 - i if row.strand == 1 else row.qstart + i
                if op == "=":
                    matches += 1
                elif op == "X":
                    mismatches += q[qi] < 4 and r[j] < 4
                else:
                    gaps += 1
                i += op in "=XI"
                j += op in "=XD"
        marks["q"][row.qname][row.qstart:row.qend] = True
        marks["r"][row.rname][row.rstart:row.rend] = True
    q = sum(int(m.sum()) for m in marks["q"].values())
    r = sum(int(m.sum()) for m in marks["r"].values())
    # pyani-plus's ANIm from a delta: (R + Q - 2 E) / (R + Q), R and Q the two sides' aligned bases, E
    # the mismatches and gap columns
    both = 2 * (matches + mismatches) + gaps
    return {"ani": 100 * matches / (matches + mismatches), "anim": 100 * (both - 2 * (mismatches + gaps)) / both, "aligned_fraction_query": q / sum(qlens.values()),
            "aligned_fraction_reference": r / sum(rlens.values()), "matches": matches, "mismatches": mismatches}


def aligned_table(tmp_path, query, reference, name):
    import pyarrow.parquet as pq

    from gpu_kernels.formats import read_meta

    table = tmp_path / f"{name}.parquet"
    assert main(["align", query, reference, "--table", str(table), "--backend", "numpy"]) == 0
    meta = read_meta(str(table))
    frame = pq.read_table(table).to_pandas()
    return frame, meta["query"], meta["reference"]


@pytest.mark.parametrize("pair", [(MYCO_232, MYCO_7422), "set"])
def test_pair_ani_equals_the_oracle(tmp_path, pair):
    if pair == "set":  # a draft (contigs, plasmids) against a genome about 10 % away
        write_set(3, str(tmp_path / "set"), 300_000, (200_000, 400_000), height=0.05, draft=1.0, seed=4)
        pair = (str(tmp_path / "set" / "g0001.fa"), str(tmp_path / "set" / "g0003.fa"))
    frame, q, r = aligned_table(tmp_path, *pair, "al")
    qlens, rlens = dict(zip(q["names"], q["lengths"])), dict(zip(r["names"], r["lengths"]))
    frame["qname"] = [q["names"][i] for i in frame["qrec"]]
    frame["rname"] = [r["names"][i] for i in frame["rrec"]]
    got = pair_ani({c: frame[c].to_numpy() for c in frame.columns if c not in ("cigar", "qname", "rname")},
                   q["lengths"], r["lengths"])
    want = oracle_ani(frame, qlens, rlens, pair)
    assert got["matches"] == want["matches"] and got["mismatches"] == want["mismatches"]
    for key in ("ani", "anim", "aligned_fraction_query", "aligned_fraction_reference"):
        assert math.isclose(got[key], want[key], rel_tol=1e-12), key
    assert 50 < got["ani"] < 100 and got["aligned_fraction_query"] > 0.1


def test_a_pair_with_nothing_aligned_has_no_ani():
    empty = {name: np.zeros(0, np.int64) for name in ("backbone", "matches", "mismatches", "insertions", "deletions", "unknown",
                                                     "qstart", "qend", "qrec", "rstart", "rend", "rrec")}
    row = pair_ani(empty, [100], [200])
    assert math.isnan(row["ani"]) and math.isnan(row["anim"]) and row["aligned_fraction_query"] == 0 and row["alignments"] == 0


def test_the_heatmap_clusters_pairs_that_share_little_as_unrelated():
    """Two genera, as the cyanobacteria of ANIclustermap's example set: g sits at 81 % over 43 % of
    its genome from s1 and s2, and at 84 % over 1 % (a few conserved genes) from t1 and t2. The
    clustering puts g with s1 and s2; ANI alone would put it with t1 and t2."""
    from scipy.cluster.hierarchy import fcluster

    from gpu_kernels.ani import ANI_COLUMNS, matrices
    from gpu_kernels.workflow.ani_set import MIN_SHARED, UNRELATED_ANI, ani_square, cluster_order

    genomes = ["g", "s1", "s2", "t1", "t2"]
    values = {("g", "s1"): (81.0, 0.43), ("g", "s2"): (81.2, 0.44), ("s1", "s2"): (97.0, 0.9), ("g", "t1"): (84.0, 0.01),
              ("g", "t2"): (84.1, 0.012), ("t1", "t2"): (99.0, 0.95), ("s1", "t1"): (83.0, 0.008), ("s2", "t2"): (83.5, 0.009)}
    rows = [dict.fromkeys(ANI_COLUMNS, 1) | {"query": q, "reference": r, "ani": ani, "aligned_fraction_query": shared,
                                              "aligned_fraction_reference": shared * 0.9}
            for (q, r), (ani, shared) in values.items()]
    frames = matrices(pd.DataFrame(rows, columns=list(ANI_COLUMNS)), genomes)
    square = ani_square(frames["percentage_identity"], frames["alignment_coverage"])
    at = {g: i for i, g in enumerate(genomes)}
    assert square[at["g"], at["t1"]] == UNRELATED_ANI and square[at["t2"], at["g"]] == UNRELATED_ANI
    assert square[at["g"], at["s1"]] == pytest.approx(81.0) and square[at["t1"], at["t2"]] == pytest.approx(99.0)
    assert 0.01 < MIN_SHARED <= 0.43
    _, tree = cluster_order(square)
    two = dict(zip(genomes, fcluster(tree, 2, criterion="maxclust")))
    assert two["g"] == two["s1"] == two["s2"] != two["t1"] == two["t2"]
    identity_only = np.nan_to_num(frames["percentage_identity"].to_numpy(float) * 100, nan=UNRELATED_ANI)
    alone = dict(zip(genomes, fcluster(cluster_order(identity_only)[1], 2, criterion="maxclust")))
    assert alone["g"] == alone["t1"]  # the case the shared fraction settles


@pytest.fixture(scope="module")
def many_run(tmp_path_factory):
    """Ten small related genomes (some drafts) through the many-genomes setting (an eleventh added later)."""
    cwd = workdir(tmp_path_factory.mktemp("many"))
    write_set(11, str(cwd / "set"), 150_000, (100_000, 200_000), height=0.06, draft=0.4, seed=2)
    lines = (cwd / "set" / "genomes.yaml").read_text().splitlines()
    (cwd / "ten.yaml").write_text("\n".join(lines[:11]) + "\nresults: results\n")
    (cwd / "eleven.yaml").write_text("\n".join(lines) + "\nresults: results\n")
    first = snakemake(cwd, "--cores", "2", "--configfile", "config/many_genomes.yaml", "ten.yaml")
    return cwd, first


def test_many_genomes_write_each_pairs_alignments_as_align_does(many_run, tmp_path):
    cwd, _ = many_run
    set_dir = cwd / "results" / "default"
    table = read_tsv(set_dir / "ani.tsv")
    names = [f"g{i:04d}" for i in range(1, 11)]
    assert [(r["query"], r["reference"]) for r in table] == [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    for row in table:
        q, r = row["query"], row["reference"]
        pair = set_dir / "rows" / r / f"{q}_vs_{r}"  # the row of the later genome
        close = float(row["ani"]) >= 99  # the setting's snps_min_ani: SNPs of the close pairs only
        assert sorted(p.name for p in pair.iterdir()) == ["alignments.paf", "snps.tsv"][:1 + close]
        paf, snps = tmp_path / "cli.paf", tmp_path / "cli.snps"
        fasta = [str(cwd / "set" / f"{g}.fa") for g in (q, r)]
        assert main(["align", *fasta, "-o", str(paf), "--snps", str(snps), "--backend", "numpy"]) == 0
        assert (pair / "alignments.paf").read_bytes() == paf.read_bytes()
        assert not close or (pair / "snps.tsv").read_bytes() == snps.read_bytes()
        frame, qm, rm = aligned_table(tmp_path, *fasta, "t")
        want = pair_ani({c: frame[c].to_numpy() for c in frame.columns if c != "cigar"}, qm["lengths"], rm["lengths"])
        assert math.isclose(float(row["ani"]), want["ani"], abs_tol=5e-5)
        assert int(row["matches"]) == want["matches"] and int(row["aligned_query"]) == want["aligned_query"]
    close = [float(r["ani"]) for r in table]
    assert max(close) > 99 and min(close) < 97  # the tree spreads them (its six genomes: 96.6 to 99.9 %)


def test_many_genomes_matrices_are_pyanis(many_run):
    cwd, _ = many_run
    set_dir = cwd / "results" / "default"
    table = pd.read_csv(set_dir / "ani.tsv", sep="\t")
    identity = pd.read_csv(set_dir / "ANIm_percentage_identity.tab", sep="\t", index_col=0)
    coverage = pd.read_csv(set_dir / "ANIm_alignment_coverage.tab", sep="\t", index_col=0)
    errors = pd.read_csv(set_dir / "ANIm_similarity_errors.tab", sep="\t", index_col=0)
    names = [f"g{i:04d}" for i in range(1, 11)]
    assert list(identity.index) == list(identity.columns) == names
    assert np.allclose(np.diag(identity.to_numpy()), 1) and np.allclose(identity.to_numpy(), identity.to_numpy().T)
    for row in table.itertuples():
        assert identity.loc[row.query, row.reference] == pytest.approx(row.ani / 100, abs=1e-6)
        assert coverage.loc[row.query, row.reference] == pytest.approx(row.aligned_fraction_query, abs=1e-6)
        assert coverage.loc[row.reference, row.query] == pytest.approx(row.aligned_fraction_reference, abs=1e-6)
        assert errors.loc[row.query, row.reference] == row.mismatches + row.insertions + row.deletions
    import matplotlib.image as mpimg

    image = mpimg.imread(set_dir / "ani_heatmap.png")
    assert image.shape[0] > 300 and float(image[..., :3].std()) > 0.05


def test_a_genome_added_to_a_finished_run_computes_only_its_pairs(many_run):
    cwd, _ = many_run
    set_dir = cwd / "results" / "default"
    before = {p: p.stat().st_mtime_ns for p in set_dir.glob("rows/*/*_vs_*/*")}
    close = sum(float(r["ani"]) >= 99 for r in read_tsv(set_dir / "ani.tsv"))
    assert 0 < close < 45 and len(before) == 45 + close  # 45 pairs' alignments, the close pairs' SNPs
    proc = snakemake(cwd, "--cores", "2", "--configfile", "config/many_genomes.yaml", "eleven.yaml")
    ran = re.findall(r"^(?:local)?rule (\w+):", proc.stdout + proc.stderr, re.M)
    # one row, the new genome's (its members' digest written, and the set's)
    assert sorted(ran) == ["all", "ani", "index", "index_list", "row", "row_members", "set_members"], ran
    log = (cwd / "results" / "logs" / "row" / "default" / "g0011.log").read_text()
    assert "10 pairs in" in log and "pair 10 of 10" in log  # 10 pairs, not 55
    assert {p: p.stat().st_mtime_ns for p in before} == before  # the finished pairs untouched
    table = read_tsv(set_dir / "ani.tsv")
    assert len(table) == 55 and sum(r["reference"] == "g0011" for r in table) == 10
    again = snakemake(cwd, "--cores", "2", "--configfile", "config/many_genomes.yaml", "eleven.yaml", "-n")
    assert "Nothing to be done" in again.stdout + again.stderr


def test_many_genomes_report_shows_the_set(many_run):
    cwd, _ = many_run
    snakemake(cwd, "--configfile", "config/many_genomes.yaml", "ten.yaml", "--report", "report.html")
    html = (cwd / "report.html").read_text()
    assert "ani_heatmap.png" in html and "ani.tsv" in html


def rows_written(tmp_path, runs: dict) -> dict:
    """A row of three pairs aligned by align_row once a run (name -> its backend and overlap): each
    run's files by name, its ANI rows' file among them."""
    from gpu_kernels.params import Params
    from gpu_kernels.workflow.genome import Genome, write_index
    from gpu_kernels.workflow.many import align_row

    write_set(4, str(tmp_path / "set"), 300_000, (200_000, 400_000), height=0.05, draft=0.5, seed=3)
    genomes, fasta = {}, {}
    for i in range(1, 5):
        name = f"g{i:04d}"
        fasta[name] = str(tmp_path / "set" / f"{name}.fa")
        codes, rows = str(tmp_path / f"{name}.npy"), str(tmp_path / f"{name}.tsv")
        write_index(fasta[name], codes, rows, 50_000_000)
        genomes[name] = Genome(name, codes, rows)
    pairs = [("g0001", "g0004"), ("g0002", "g0004"), ("g0003", "g0004")]
    out = {}
    for run, (backend, overlap) in runs.items():
        folder = tmp_path / run
        folder.mkdir()

        def paths(q, r, folder=folder):
            return {kind: str(folder / f"{q}_{r}.{kind}") for kind in ("paf", "snps", "delta", "table")}

        align_row(pairs, genomes, fasta, Params(), backend, paths, str(folder / "rows.tsv"), overlap=overlap)
        out[run] = {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.endswith(".table")}
        assert os.path.getsize(folder / "g0003_g0004.paf") > 0
    return out


def test_a_row_overlapping_its_pairs_halves_writes_what_it_writes_pair_after_pair(tmp_path):
    """A run's host half beside the next run's compare (a device's way) changes no byte, row or order."""
    out = rows_written(tmp_path, {"after": ("numpy", False), "beside": ("numpy", True)})
    assert out["after"] == out["beside"]
    assert len(out["after"]["rows.tsv"].decode().splitlines()) == 4  # the header and the three pairs in order


@pytest.mark.gpu
def test_gpu_rows_equal_cpu_rows(tmp_path):
    """CPU == GPU: a row of pairs aligned on each backend (the device's halves overlapped, the host's
    pair after pair) writes the same files and ANI rows."""
    out = rows_written(tmp_path, {"numpy": ("numpy", None), "cupy": ("cupy", None)})
    assert out["numpy"] == out["cupy"]


def test_many_genomes_refuse_the_exact_match_modes_and_pass_the_lint(tmp_path):
    cwd = workdir(tmp_path)
    (cwd / "g.yaml").write_text("genomes:\n  a: resources/Mhyopneumoniae_232.fa.gz\n"
                                "  b: resources/Mhyopneumoniae_7422.fa.gz\nengine: {mode: mum}\n")
    proc = snakemake(cwd, "-n", "--cores", "1", "--configfile", "config/many_genomes.yaml", "g.yaml", check=False)
    assert proc.returncode != 0 and "comparisons.many aligns genome pairs" in proc.stderr
    assert "Traceback" not in proc.stderr
    (cwd / "g.yaml").write_text("genomes:\n  a: resources/Mhyopneumoniae_232.fa.gz\n"
                                "  b: resources/Mhyopneumoniae_7422.fa.gz\n")
    lint = snakemake(cwd, "--lint", "--configfile", "config/many_genomes.yaml", "g.yaml")
    assert "Congratulations" in lint.stdout + lint.stderr  # the many-genomes rules pass the catalog's lint
