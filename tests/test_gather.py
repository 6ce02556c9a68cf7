"""The dotplots' dots gathered apart from their drawing (gpu_kernels/workflow/gather.py): what the
`dots` rule saves and the `plots` rule draws gives the pictures one process draws, and the workflow's
layout along the backbone, chosen from the compare jobs' parts, is the chains table's."""
import numpy as np

from test_plots import many_hsps
from test_workflow_pipeline import PAIR, config, genomes  # noqa: F401 (a fixture)
from wfhelpers import snakemake


def pictures(folder) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_gathered_dots_saved_then_drawn_are_the_pictures_drawn_at_once(tmp_path):
    """gather_pictures, Gathered.save and .load, then gathered_pictures: the same PNG, HTML and pair
    dotplot bytes as pair_pictures, with a layout given (the query records reordered and one flipped);
    the saved file holds a raster's filled cells alone."""
    from gpu_kernels.formats import HspWriter
    from gpu_kernels.hsps import sort_rows
    from gpu_kernels.params import Params
    from gpu_kernels.workflow.dots import Layout
    from gpu_kernels.workflow.gather import Gathered, gather_pictures
    from gpu_kernels.workflow.genome import Genome
    from gpu_kernels.workflow.pictures import draw_pictures, gathered_pictures
    from gpu_kernels.workflow.tables import hsp_coverage

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
    layout = Layout(query.lengths, reference.lengths, np.array([2, 0, 1]), np.array([False, True, False]))
    gathered = gather_pictures(table, summary, query, reference, True, True, 4, "reference", 2, layout)
    gathered.save(str(tmp_path / "dots.npz"))
    assert (tmp_path / "dots.npz").stat().st_size < 8 * 1000 * 1000  # not 5 rasters of 8 MB
    out = tmp_path / "apart"
    gathered_pictures(str(tmp_path / "dots.npz"), summary, query, reference, str(out / "grid.png"),
                      str(out / "heatmap.png"), str(out / "pairs"), str(out / "dotplot.html"), 1)
    at_once = tmp_path / "at_once"
    draw_pictures(gathered, summary, query, reference, str(at_once / "grid.png"), str(at_once / "heatmap.png"),
                  str(at_once / "pairs"), str(at_once / "dotplot.html"), None, ("hsps",), None, (), "aligned", None)
    drawn = pictures(out)
    assert len(drawn) == 3 + 4 and drawn == pictures(at_once)
    again = Gathered.load(str(tmp_path / "dots.npz"), query, reference)
    assert list(again.pairs) == list(gathered.pairs) and again.whole.count == 20_000
    assert np.array_equal(again.whole.cells, gathered.whole.cells)
    # the layout given is the one drawn: the records' places differ from the HSPs' own order
    assert not np.array_equal(again.layout.qoff, Layout(query.lengths, reference.lengths).qoff)


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
