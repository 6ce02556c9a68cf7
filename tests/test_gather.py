"""The dotplots' dots gathered apart from their drawing: the compare jobs' shares (gpu_kernels/workflow/
shares.py) merged by `hsp_coverage` and drawn by `plots` give the pictures one process draws from the
pair's HSP table and chains (gpu_kernels/workflow/gather.py, pictures.py)."""
import numpy as np

from test_plots import many_hsps
from test_workflow_pipeline import PAIR, config, genomes  # noqa: F401 (a fixture)
from wfhelpers import snakemake


def pictures(folder) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_compare_jobs_shares_merged_then_drawn_are_the_pictures_of_their_table(tmp_path):
    """A table's rows split among compare jobs, each job's share made, merged as hsp_coverage merges
    them, then drawn by gathered_pictures: the same PNG, HTML, heatmap and pair dotplot bytes as
    pair_pictures draws from the table in one process; the merged file holds a raster's filled cells
    alone."""
    from gpu_kernels.formats import HspWriter
    from gpu_kernels.hsps import sort_rows
    from gpu_kernels.params import Params
    from gpu_kernels.schema import HSP
    from gpu_kernels.workflow.shares import make_share, merge_shares, save_share
    from gpu_kernels.workflow.genome import Genome
    from gpu_kernels.workflow.pictures import gathered_pictures, pair_pictures
    from gpu_kernels.workflow.tables import hsp_coverage, save_numbers

    hsps = many_hsps(20_000, seed=5, nq=3)
    hsps["length"] = hsps["qend"] - hsps["qstart"]
    hsps["rend"] = hsps["rstart"] + hsps["length"]
    hsps["score"] = 2 * hsps["identities"] - hsps["length"]
    hsps = sort_rows({name: np.asarray(column, dtype=np.int64) for name, column in hsps.items()})
    query = Genome.of("Q", ["q1", "q2", "q3"], [10**6 + 5000, 10**6 + 7000, 10**6 + 9000])
    reference = Genome.of("R", ["r1", "r2", "r3"], [10**6 + 5000] * 3)
    table = str(tmp_path / "hsps.parquet")
    with HspWriter(table, query.names, query.lengths, reference.names, reference.lengths, Params(),
                   row_group_rows=1000) as writer:
        writer.write(hsps)
    summary = str(tmp_path / "hsp_coverage.npz")
    hsp_coverage(table, query, reference, summary)
    paths = []
    for qbin, rgroup in (([0], [0, 1]), ([0], [2]), ([1, 2], [0, 1, 2])):
        rows = np.isin(hsps["qrec"], qbin) & np.isin(hsps["rrec"], rgroup)
        paths.append(str(tmp_path / f"share{len(paths)}.npz"))
        save_share(paths[-1], make_share({c: hsps[c][rows] for c in HSP.view("dots")}, query.lengths,
                                         reference.lengths, True, True, 4))
    numbers, merged = merge_shares(paths, query, reference, 4)
    save_numbers(str(tmp_path / "merged_coverage.npz"), numbers)
    save_share(str(tmp_path / "dots.npz"), merged)
    assert (tmp_path / "dots.npz").stat().st_size < 8 * 1000 * 1000  # not 5 rasters of 8 MB
    out = tmp_path / "apart"
    gathered_pictures(str(tmp_path / "dots.npz"), str(tmp_path / "merged_coverage.npz"), query, reference,
                      str(out / "grid.png"), str(out / "heatmap.png"), str(out / "pairs"), str(out / "dotplot.html"),
                      1, layers=("hsps",))
    at_once = tmp_path / "at_once"
    pair_pictures(table, summary, query, reference, str(at_once / "grid.png"), str(at_once / "heatmap.png"),
                  str(at_once / "pairs"), 4, str(at_once / "dotplot.html"), layers=("hsps",))
    drawn = pictures(out)
    assert len(drawn) == 3 + 4 and drawn == pictures(at_once)


def test_the_workflows_pictures_are_those_of_its_merged_table_and_chains(tmp_path, genomes):  # noqa: F811
    """Dots gathered from the compare jobs' tables beside the assembly, the layout chosen from their
    parts, drawn after it: every picture (genome dotplot PNG and HTML, heatmap, pair dotplots) the
    bytes pair_pictures draws from the pair's merged table of HSPs in chains and its chains and
    alignment tables in one process; the HSP tables and the dots are gone after the run."""
    from gpu_kernels.params import Params
    from gpu_kernels.workflow.genome import Genome
    from gpu_kernels.workflow.pictures import pair_pictures
    from wfhelpers import coverage_of

    _, query, reference = genomes
    made = config(tmp_path, query, reference, outputs=", hsps_auto_bases: 1000, chained_hsps: true")
    text = open(made).read()
    for kind in ("grid_dotplot", "html_dotplot", "coverage_heatmap", "pair_dotplots"):
        text = text.replace(f"{kind}: false", f"{kind}: true")
    (tmp_path / "config.yaml").write_text(text)
    snakemake(tmp_path, "all", f"{PAIR}/chained_hsps.parquet", "--cores", "2", "--configfile", "config.yaml")
    pair = tmp_path / PAIR
    assert not (pair / "dots.npz").exists() and not list(pair.rglob("shares.npz"))
    out = tmp_path / "own"
    out.mkdir()
    q, r, _ = coverage_of(pair / "chained_hsps.parquet", out)
    q, r = Genome.of("q", q.names, q.lengths), Genome.of("r", r.names, r.lengths)
    pair_pictures(str(pair / "chained_hsps.parquet"), str(tmp_path / "own" / "hsp_coverage.npz"), q, r,
                  str(out / "grid_dotplot.png"), str(out / "coverage_heatmap.png"), str(out / "pair_dotplots"), 50,
                  str(out / "dotplot.html"), "reference", 2, str(pair / "chains.parquet"),
                  ("alignments", "chains", "hsps"), str(pair / "alignments.parquet"),
                  low=Params().extension.min_identity)
    names = ["grid_dotplot.png", "coverage_heatmap.png", "dotplot.html"] + \
        [f"pair_dotplots/{p.name}" for p in sorted((pair / "pair_dotplots").glob("*.png"))]
    assert len(names) > 4
    for name in names:
        assert (out / name).read_bytes() == (pair / name).read_bytes(), name
