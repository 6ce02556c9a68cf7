"""Pictures: dotplots stay drawable with many HSPs, render without warnings from 1 to 80 records a
side, order query contigs along the reference, and the HTML dotplot carries every HSP of a small
run and opens in a headless browser without console errors."""
import base64
import gzip
import json
import os
import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest

from gpu_kernels.coverage import pair_coverage
from gpu_kernels.workflow import dots, plots
from gpu_kernels.workflow.html import html_dotplot


def ordered(qlens, rlens, hsps) -> "plots.Layout":
    """The layout along the reference, from the per-pair columns the coverage tables carry."""
    keys, _, _, alignment = pair_coverage(hsps, len(qlens), len(rlens))
    return plots.Layout.along_reference(qlens, rlens, keys // len(rlens), keys % len(rlens), alignment["aligned_bases"],
                                        alignment["aligned_reverse"], alignment["reference_centre"])


def many_hsps(n: int, seed: int = 0, nq: int = 2, nr: int = 3, span: int = 10**6) -> dict:
    rng = np.random.default_rng(seed)
    qstart = rng.integers(0, span, n)
    length = rng.integers(64, 5000, n)
    return {"qrec": rng.integers(0, nq, n).astype(np.int32), "rrec": rng.integers(0, nr, n).astype(np.int32),
            "strand": rng.integers(0, 2, n).astype(np.int8), "qstart": qstart, "qend": qstart + length,
            "rstart": rng.integers(0, span, n), "identities": (length * rng.uniform(0.8, 1.0, n)).astype(np.int64)}


def test_dotplots_rasterize_beyond_max_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(dots, "MAX_LINES", 500)
    hsps = many_hsps(20_000)
    qlens, rlens = np.array([10**6 + 5000] * 2), np.array([10**6 + 5000] * 3)
    layout = plots.Layout(qlens, rlens)
    grid = plots.Dots(layout.width, layout.height, layout).add(hsps)
    pair = plots.Dots(10**6 + 5000, 10**6 + 5000).add({c: (v[:300] if c not in ("qrec", "rrec") else v[:300] * 0)
                                                       for c, v in hsps.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plots.grid_dotplot(grid, ["q1", "q2"], ["r1", "r2", "r3"], "Q", "R", str(tmp_path / "grid.png"), 80)
        plots.pair_dotplot(pair, "q1", "r1", str(tmp_path / "pair.png"), 80)
    assert (grid.count, grid.rastered, grid.lines["x0"].size) == (20_000, 20_000 - 500, 500)
    assert (pair.count, pair.rastered) == (300, 0)  # the small pair plot draws every HSP as a line
    assert (tmp_path / "grid.png").stat().st_size > 10_000 and (tmp_path / "pair.png").exists()
    # the raster keeps the highest identity of the segments in a cell
    assert 80 <= grid.cells.max() <= 100 and (grid.cells > 0).sum() > 1000


@pytest.mark.parametrize("ties", [False, True])
def test_dots_gathered_in_chunks_equal_dots_gathered_at_once(ties):
    """Streaming a table a chunk at a time, or into two accumulators merged, keeps the same longest
    lines in the same order and marks the same cells, also when many lengths tie at the cut."""
    hsps = many_hsps(30_000, seed=4)
    spread = np.random.default_rng(1).permutation(30_000)
    hsps["qend"] = hsps["qstart"] + 64 + (spread % 40 if ties else spread)
    layout = plots.Layout(np.array([10**6 + 40_000] * 2), np.array([10**6 + 40_000] * 3))
    whole = plots.Dots(layout.width, layout.height, layout, max_lines=700).add(hsps)
    chunked = plots.Dots(layout.width, layout.height, layout, max_lines=700)
    for at in range(0, 30_000, 2_345):
        chunked.add({c: v[at:at + 2_345] for c, v in hsps.items()})
    order = lambda lines: lines  # noqa: E731  (kept in one total order: compared as they are)
    a, b = order(whole.lines), order(chunked.lines)
    assert all(np.array_equal(a[k], b[k]) for k in plots.LINE_FIELDS)
    assert np.array_equal(whole.cells, chunked.cells) and (whole.cells > 0).sum() > 1000
    assert whole.rastered == chunked.rastered == 30_000 - 700
    # two accumulators taking every other chunk, merged: the same again (the plots step's threads)
    first, second = (plots.Dots(layout.width, layout.height, layout, max_lines=700) for _ in range(2))
    for n, at in enumerate(range(0, 30_000, 2_345)):
        (first, second)[n % 2].add({c: v[at:at + 2_345] for c, v in hsps.items()})
    merged = first.merge(second)
    c = order(merged.lines)
    assert all(np.array_equal(a[k], c[k]) for k in plots.LINE_FIELDS) and np.array_equal(whole.cells, merged.cells)
    assert (merged.count, merged.rastered) == (30_000, 30_000 - 700)
    # fewer lines from more: the same as gathering with the lower limit
    fewer = plots.Dots(layout.width, layout.height, layout, max_lines=300).add(hsps)
    reduced = whole.reduced(300)
    a, b = order(fewer.lines), order(reduced.lines)
    assert all(np.array_equal(a[k], b[k]) for k in plots.LINE_FIELDS) and np.array_equal(fewer.cells, reduced.cells)
    assert reduced.rastered == fewer.rastered == 30_000 - 300


def test_short_names_are_accessions_or_the_name():
    names = ["gi|54019969|ref|NC_006360.1|", "gi|1|gb|CP000001.2|", "chr1", "lcl|contig_7", "a|b|c"]
    assert plots.short_names(names) == ["NC_006360.1", "CP000001.2", "chr1", "contig_7", "c"]
    assert plots.short_names(["x|ref|A|", "y|ref|A|"]) == ["x|ref|A|", "y|ref|A|"]  # a collision keeps the names
    assert plots.file_stem("gi|54019969|ref|NC_006360.1|") == "gi_54019969_ref_NC_006360.1"


def test_query_contigs_are_ordered_and_oriented_along_the_reference():
    """Three query contigs lying on the reference in the order 2, 0, 1, contig 0 reversed, contig 3
    without hits: drawn bottom up as 2, 0 (flipped), 1, then 3."""
    rows = {"qrec": [0, 0, 1, 2, 2], "rrec": [0, 0, 0, 0, 0], "strand": [1, 1, 0, 0, 1],
            "qstart": [0, 500, 0, 0, 900], "qend": [400, 900, 1000, 800, 950], "rstart": [3000, 2500, 5000, 100, 7000]}
    chunk = {k: np.array(v) for k, v in rows.items()}
    layout = ordered([1000, 1000, 1000, 500], [8000], chunk)
    assert layout.order.tolist() == [2, 0, 1, 3] and layout.flip.tolist() == [True, False, False, False]
    assert layout.qoff.tolist() == [1000, 2000, 0, 3000]
    # a flipped contig's reverse HSP is drawn rising, as forward
    points = layout.points({**{k: v[:1] for k, v in chunk.items()}, "identities": np.array([400])})
    assert points["drawn"].tolist() == [0] and points["y0"][0] > points["y1"][0] - 1 and points["x0"][0] > points["x1"][0]
    file_order = plots.Layout([1000, 1000, 1000, 500], [8000])
    assert file_order.order.tolist() == [0, 1, 2, 3] and not file_order.flip.any()


@pytest.mark.parametrize("nq,nr", [(1, 1), (1, 3), (80, 3)])
def test_pictures_render_without_warnings(tmp_path, nq, nr):
    qlens = np.random.default_rng(nq).integers(20_000, 2_000_000, nq)
    rlens = np.full(nr, 1_500_000)
    hsps = many_hsps(5000, seed=nq + nr, nq=nq, nr=nr, span=20_000)
    qnames = [f"gi|{i}|ref|NZ_CONTIG{i:03d}.1|" for i in range(nq)]
    rnames = [f"chr{i + 1}" for i in range(nr)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        layout = ordered(qlens, rlens, hsps)
        grid = plots.Dots(layout.width, layout.height, layout).add(hsps)
        plots.grid_dotplot(grid, qnames, rnames, "draft", "ref", str(tmp_path / "grid.png"), 80)
        matrix = np.random.default_rng(0).random((nq, nr))
        plots.coverage_heatmap(matrix, matrix / 2, qnames, rnames, "draft", "ref", str(tmp_path / "heat.png"))
        html = plots.Dots(layout.width, layout.height, layout, max_lines=plots.HTML_LINES).add(hsps)
        html_dotplot(html, qnames, rnames, "draft", "ref", str(tmp_path / "dotplot.html"), 80)
    from PIL import Image

    for name in ("grid.png", "heat.png"):
        width, height = Image.open(tmp_path / name).size
        assert 300 < width < 4000 and 300 < height < 4000


def html_segments(path) -> list[dict]:
    """The segment columns a Bokeh HTML file carries (its document JSON decoded)."""
    text = open(path, encoding="utf-8").read()
    document = json.loads(re.search(r'<script type="application/json" id="[^"]+">\s*(.*?)\s*</script>', text, re.S)[1])
    sources = []

    def value(v):
        if isinstance(v, dict) and v.get("type") == "ndarray" and isinstance(v["array"], list):
            return np.asarray(v["array"])
        if isinstance(v, dict) and v.get("type") == "ndarray":
            raw = base64.b64decode(v["array"]["data"])
            raw = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
            return np.frombuffer(raw, dtype=v["dtype"])
        return np.asarray(v)

    def walk(node):
        if isinstance(node, dict):
            if node.get("name") == "ColumnDataSource" and "data" in node.get("attributes", {}):
                sources.append({k: value(v) for k, v in node["attributes"]["data"]["entries"]})
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(document)
    return [s for s in sources if "identity" in s]


def test_html_dotplot_carries_every_hsp_and_opens_in_chromium(tmp_path):
    hsps = many_hsps(3000, seed=9, nq=3, nr=2, span=50_000)
    qlens, rlens = np.array([60_000, 55_000, 70_000]), np.array([80_000, 60_000])
    layout = ordered(qlens, rlens, hsps)
    dots = plots.Dots(layout.width, layout.height, layout, max_lines=plots.HTML_LINES).add(hsps)
    path = tmp_path / "dotplot.html"
    html_dotplot(dots, ["q0", "q1", "q2"], ["r0", "r1"], "Q", "R", str(path), 80)
    again = tmp_path / "again.html"  # the same HSPs give the same bytes (a resumed run compares equal)
    html_dotplot(dots, ["q0", "q1", "q2"], ["r0", "r1"], "Q", "R", str(again), 80)
    assert again.read_bytes() == path.read_bytes()
    sources = html_segments(path)
    got = sorted(zip(*(np.concatenate([s[c] for s in sources]).tolist() for c in ("qstart", "qend", "rstart"))))
    want = sorted(zip((hsps["qstart"] + 1).tolist(), hsps["qend"].tolist(), (hsps["rstart"] + 1).tolist()))
    assert got == want and len(got) == 3000  # every HSP, 1-based starts as the hover shows them
    # the legend beside the plot (its "right" panel), not over the data's top left
    import json
    import re

    html = path.read_text()
    docs = json.loads(re.search(r'<script type="application/json" id="[^"]+">\s*(\{.*?\})\s*</script>', html, re.S)[1])
    plot = next(iter(docs.values()))["roots"][0]["attributes"]["children"][0]["attributes"]
    assert [panel["name"] for panel in plot["right"]] == ["Legend"]
    assert "Legend" not in json.dumps(plot.get("center", []))
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        if os.environ.get("REQUIRE_CHROMIUM"):
            pytest.fail("chromium is not installed")
        pytest.skip("chromium is not installed")
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--enable-unsafe-swiftshader", "--enable-logging=stderr",
                           "--v=0", "--virtual-time-budget=10000", "--dump-dom", path.as_uri()],
                          capture_output=True, text=True, timeout=120)
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line]
    assert proc.returncode == 0 and any("document idle" in line for line in console), proc.stderr[-2000:]
    assert not [line for line in console if ":ERROR:" in line or "Uncaught" in line or "error" in line.lower()], console
    # the page fills a 1,400 x 900 window (it was 900 pixels wide whatever the window)
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--enable-unsafe-swiftshader", "--window-size=1400,900",
                    "--virtual-time-budget=10000", f"--screenshot={shot}", path.as_uri()], capture_output=True,
                   timeout=120)
    import matplotlib.image

    ink = matplotlib.image.imread(str(shot))[..., :3].min(axis=2) < 0.9
    columns, rows = np.flatnonzero(ink.any(axis=0)), np.flatnonzero(ink.any(axis=1))
    assert ink.shape == (900, 1400) and columns.max() - columns.min() > 1300 and rows.max() - rows.min() > 800


def test_compiled_raster_marks_the_cells_of_segment_midpoints():
    """Dots.add's compiled raster pass gives the cells and float32 identities of each segment's
    midpoint as points() draws it (flipped query records, both strands, int32 and int64 records; a
    record's rows counted from its offset's row),
    the highest identity winning; the longest HSPs stay lines."""
    qlens, rlens = np.array([700_000, 1_000_000]), np.array([400_000, 900_000, 300_000])
    layout = plots.Layout(qlens, rlens, order=[1, 0], flip=[True, False])
    for dtype in (np.int32, np.int64):
        hsps = many_hsps(50_000, seed=3, nq=2, nr=3, span=300_000)
        hsps["qrec"], hsps["rrec"] = hsps["qrec"].astype(dtype), hsps["rrec"].astype(dtype)
        dots = plots.Dots(layout.width, layout.height, layout, max_lines=100).add(hsps)
        p = layout.points(hsps)
        # lines are the 100 first in one total order (longest first); the rest go to the raster
        ranked = np.lexsort((p["strand"], p["rstart"], p["qstart"], p["rrec"], p["qrec"], -p["length"]))
        short = ranked[100:]
        ix = np.clip(((p["x0"] + p["x1"]) * (plots.RASTER / (2 * dots.width))).astype(np.int64), 0, plots.RASTER - 1)
        # a query record's rows count from the row of its offset (its cells do not move with the others')
        scale, qoff = plots.RASTER / (2 * dots.height), layout.qoff[p["qrec"]]
        iy = np.minimum((2 * qoff * scale).astype(np.int64) + ((p["y0"] + p["y1"] - 2 * qoff) * scale).astype(np.int64),
                        plots.RASTER - 1)
        expected = np.zeros((2, plots.RASTER ** 2), dtype=np.float32)
        np.maximum.at(expected, (p["drawn"][short].astype(np.int64), (iy * plots.RASTER + ix)[short]),
                      p["identity"][short].astype(np.float32))
        assert np.array_equal(dots.cells, expected) and dots.rastered == short.size and (expected > 0).sum() > 1000
        assert np.array_equal(np.sort(dots.lines["qstart"]), np.sort(hsps["qstart"][ranked[:100]]))


def covered_table(tmp_path, hsps: dict, nq: int, nr: int, length: int, row_group_rows: int | None = None) -> tuple:
    """many_hsps' HSPs written as a pair's HSP table (records of `length` bases) with its coverage pass
    and tables: (table, coverage summary, query Genome, reference Genome)."""
    from gpu_kernels.formats import HspWriter
    from gpu_kernels.hsps import sort_rows
    from gpu_kernels.params import Params
    from gpu_kernels.workflow.genome import Genome
    from gpu_kernels.workflow.tables import coverage_tables, hsp_coverage

    hsps["length"] = hsps["qend"] - hsps["qstart"]
    hsps["rend"] = hsps["rstart"] + hsps["length"]
    hsps["score"] = 2 * hsps["identities"] - hsps["length"]
    hsps = sort_rows({name: np.asarray(column, dtype=np.int64) for name, column in hsps.items()})
    query = Genome.of("Q", [f"q{k + 1}" for k in range(nq)], [length] * nq)
    reference = Genome.of("R", [f"r{k + 1}" for k in range(nr)], [length] * nr)
    table = str(tmp_path / "hsps.parquet")
    rows = {} if row_group_rows is None else {"row_group_rows": row_group_rows}
    with HspWriter(table, query.names, query.lengths, reference.names, reference.lengths, Params(), **rows) as writer:
        writer.write(hsps)
    tables = [str(tmp_path / f"{name}.tsv") for name in ("pairs", "query", "reference", "genomes")]
    summary = str(tmp_path / "hsp_coverage.npz")
    hsp_coverage(table, query, reference, summary)
    coverage_tables(summary, query, reference, *tables)
    return table, summary, query, reference


def test_plots_step_draws_the_same_bytes_on_processes_as_in_one(tmp_path):
    """The plots rule's pictures (grid, HTML, heatmap, a pair dotplot for each of 6 chromosome pairs)
    drawn side by side on forked processes equal those drawn one after another."""
    from gpu_kernels.workflow.pictures import pair_pictures

    table, summary, query, reference = covered_table(tmp_path, many_hsps(6000, seed=3), 2, 3, 10**6 + 5000, 1000)
    drawn = {}
    for threads in (1, 3):
        out = tmp_path / f"threads{threads}"
        pair_pictures(table, summary, query, reference, str(out / "grid.png"), str(out / "heatmap.png"),
                    str(out / "pairs"), 50, str(out / "dotplot.html"), "reference", threads)
        drawn[threads] = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert len(drawn[1]) == 3 + 6 and drawn[1] == drawn[3]


def test_dotplots_draw_the_chain_layers_asked_for(tmp_path):
    """With a chains table the genome dotplot's HTML carries a legend entry (a show and hide toggle)
    for each layer asked for, the backbone on top (the one-to-one alignments over it, where there is
    an alignment table); without chains the HSPs alone, as before; the PNGs differ with the layers."""
    import subprocess
    import sys

    from conftest import MYCO_232, MYCO_7422, ROOT
    from gpu_kernels.workflow.pictures import pair_pictures
    from wfhelpers import coverage_of

    table, chains, aligned = tmp_path / "h.parquet", tmp_path / "c.parquet", tmp_path / "a.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "align", MYCO_232, MYCO_7422, "--hsps", str(table),
                    "--chains-table", str(chains), "--table", str(aligned)], check=True, cwd=ROOT, capture_output=True)
    query, reference, tables = coverage_of(table, tmp_path)
    drawn = {}
    for label, chains_path, layers, alignments in (
            ("none", None, ("backbone", "chains", "hsps"), None),
            ("all", str(chains), ("backbone", "chains", "hsps"), None),
            ("backbone", str(chains), ("backbone",), None),
            ("alignments", str(chains), ("alignments", "chains", "hsps"), str(aligned)),
            ("no alignments made", str(chains), ("alignments", "chains", "hsps"), None)):
        out = tmp_path / label
        pair_pictures(str(table), str(tmp_path / "hsp_coverage.npz"), query, reference, str(out / "grid.png"), None, None, 50,
                      str(out / "dotplot.html"), "reference", 1, chains_path, layers, alignments)
        drawn[label] = ((out / "grid.png").read_bytes(), (out / "dotplot.html").read_text())
    entries = ("one-to-one alignments, ", "backbone chains, ", "other chains, ", "HSPs, ")
    legend = lambda html: {name for name in entries if name in html}  # noqa: E731
    assert legend(drawn["none"][1]) == {"HSPs, "}
    assert legend(drawn["all"][1]) == {"backbone chains, ", "other chains, ", "HSPs, "}
    assert legend(drawn["backbone"][1]) == {"backbone chains, "}
    assert legend(drawn["alignments"][1]) == {"one-to-one alignments, ", "other chains, ", "HSPs, "}
    # without an alignment table the backbone chains stand for the alignments: the "all" pictures
    assert drawn["no alignments made"] == drawn["all"]
    assert len({png for png, _ in drawn.values()}) == 4


def test_summary_axes_show_a_sweeps_small_differences():
    """summary.png drew coverage on a 0-1.2 axis, so a sweep's 0.3-point differences were invisible: an
    axis of close values far from 0 starts below the least (the panel's title says where), else at 0."""
    from gpu_kernels.workflow.summary import axis_range

    low, high = axis_range([0.951, 0.954, 0.960])
    assert 0.9 < low < 0.951 and 0.960 < high < 1.0
    width = high - low
    assert (0.954 - 0.951) / width > 0.05  # a 0.3-point difference is over 5 % of the panel
    assert axis_range([0.3, 0.9])[0] == 0 and axis_range([120, 4000])[0] == 0 and axis_range([]) == (0.0, 1.0)


def test_figures_for_papers_in_svg_and_pdf_beside_the_png(tmp_path):
    """outputs.figure_formats: each PNG (grid, heatmap, pair dotplots) gets an SVG and a PDF beside it,
    which parse (SVG as XML, PDF with its header, pages and end), and which are the same bytes when
    drawn again (no dates, no random ids)."""
    import xml.etree.ElementTree as ET

    from gpu_kernels.workflow.pictures import pair_pictures

    table, summary, query, reference = covered_table(tmp_path, many_hsps(2000, seed=7, nq=2, nr=2, span=10**5), 2, 2,
                                                     10**5 + 5000)
    drawn = {}
    for run in ("first", "again"):
        out = tmp_path / run
        pair_pictures(table, summary, query, reference, str(out / "grid.png"), str(out / "heatmap.png"),
                      str(out / "pairs"), 2, None, "reference", 1, formats=("svg", "pdf"))
        drawn[run] = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    names = set(drawn["first"])
    for stem in ("grid", "heatmap"):
        assert {f"{stem}.png", f"{stem}.svg", f"{stem}.pdf"} <= names
    assert sum(name.startswith("pairs/") for name in names) == 2 * 3
    for name, data in drawn["first"].items():
        if name.endswith(".svg"):
            assert ET.fromstring(data).tag.endswith("svg")
        if name.endswith(".pdf"):
            assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF") and b"/Type /Page" in data
    assert drawn["first"] == drawn["again"]


def test_a_pair_dotplot_is_framed_on_its_aligned_region():
    """A contig's hits on one stretch of a long chromosome: the pair dotplot shows that stretch (and
    a margin), not a strip of empty chromosome; hits over most of both records keep the whole frame."""
    hsps = {"qrec": np.zeros(3, np.int32), "rrec": np.zeros(3, np.int32), "strand": np.zeros(3, np.int8),
            "qstart": np.array([1000, 20_000, 40_000]), "qend": np.array([9000, 30_000, 48_000]),
            "rstart": np.array([2_001_000, 2_020_000, 2_040_000]), "identities": np.array([7900, 9800, 7990])}
    pair = plots.Dots(10_000_000, 50_000).add(hsps)
    x0, x1, y0, y1 = plots.aligned_frame(pair, None)
    assert 1_400_000 < x0 < 2_001_000 and 2_048_000 < x1 < 2_600_000 and y0 == 0 and y1 == 50_000
    whole = plots.Dots(50_000, 50_000).add({**hsps, "rstart": hsps["qstart"]})
    assert plots.aligned_frame(whole, None) == (0.0, 50_000, 0.0, 50_000)


def test_the_heatmap_takes_the_dotplots_order():
    """Heatmap rows are the query records in the dotplot's order (its Layout), columns the reference
    records in file order; the longest MAX_HEATMAP a side when there are more."""
    from gpu_kernels.workflow.genome import Genome
    from gpu_kernels.workflow.pictures import heatmap_matrices

    query = Genome.of("Q", ["a", "b", "c"], [300, 100, 200])
    reference = Genome.of("R", ["x", "y"], [100, 500])
    pairs = {"query_both": np.array([30, 50, 20]), "reference_both": np.array([10, 40, 60])}
    qindex, rindex = np.array([0, 1, 2]), np.array([1, 0, 1])
    layout = plots.Layout(query.lengths, reference.lengths, order=[2, 0, 1], flip=[False] * 3)
    qm, rm, qnames, rnames = heatmap_matrices(pairs, qindex, rindex, query, reference, layout)
    assert list(qnames) == ["c", "a", "b"] and list(rnames) == ["x", "y"]
    assert qm[0, 1] == 20 / 200 and qm[1, 1] == 30 / 300 and qm[2, 0] == 50 / 100


def test_the_plot_command_draws_a_grid_a_pair_and_assemblies_against_one_reference(tmp_path):
    """`plot TABLE -o X.svg|png|pdf`: the genome grid; with both records named (full names or the
    pictures' short names), that pair framed on its hits; several tables of one reference stacked
    (D-GENIES' many-against-one); an unknown record or tables of other references: one line, exit 2."""
    import sys
    import xml.etree.ElementTree as ET

    from conftest import MYCO_232, MYCO_7422, ROOT

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "gpu_kernels", *args], cwd=ROOT, capture_output=True, text=True)

    first, second, other = tmp_path / "a.parquet", tmp_path / "b.parquet", tmp_path / "c.parquet"
    for query, reference, table in ((MYCO_232, MYCO_7422, first), (MYCO_7422, MYCO_7422, second),
                                    (MYCO_7422, MYCO_232, other)):
        assert cli("compare", query, reference, "--hsps", str(table), "-o", os.devnull).returncode == 0
    grid = cli("plot", str(first), "-o", str(tmp_path / "grid.svg"))
    assert grid.returncode == 0 and "HSPs drawn" in grid.stderr
    assert ET.parse(tmp_path / "grid.svg").getroot().tag.endswith("svg")
    pair = cli("plot", str(first), "--query-record", "NC_006360.1", "--reference-record", "NC_021831.1", "-o",
               str(tmp_path / "pair.pdf"))
    assert pair.returncode == 0 and (tmp_path / "pair.pdf").read_bytes().startswith(b"%PDF-")
    stacked = cli("plot", str(first), str(second), "-o", str(tmp_path / "stacked.png"))
    assert stacked.returncode == 0 and (tmp_path / "stacked.png").read_bytes().startswith(b"\x89PNG")
    for bad, says in ((("plot", str(first), "--query-record", "chrX", "--reference-record", "NC_021831.1", "-o",
                        str(tmp_path / "x.png")), "no query record 'chrX'"),
                      (("plot", str(first), str(other), "-o", str(tmp_path / "y.png")), "share one reference"),
                      (("plot", str(first), "-o", str(tmp_path / "z.gif")), "name a .png, .svg or .pdf"),
                      (("plot", str(first), "--query-record", "NC_006360.1", "-o", str(tmp_path / "w.png")),
                       "name both records")):
        proc = cli(*bad)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and says in proc.stderr, proc.stderr
    assert not [p for p in tmp_path.iterdir() if p.suffix in (".gif",) or p.stem in ("x", "y", "w")]


def test_a_chains_tables_dotplot_counts_chains_in_its_title(tmp_path, monkeypatch):
    """plot (and report's dotplot) of a chains table said "49 HSPs" of its 49 chains: the title counts the
    table's chains as chains."""
    import pyarrow.parquet as pq

    from conftest import MYCO_232, MYCO_7422
    from gpu_kernels.__main__ import main

    titles = []
    monkeypatch.setattr(plots, "grid_dotplot", lambda drawn, *a, **k: titles.append(plots._layers_title(drawn, None)))
    table = tmp_path / "chains.parquet"
    assert main(["align", MYCO_232, MYCO_7422, "--backend", "numpy", "--chains-table", str(table)]) == 0
    assert main(["plot", str(table), "-o", str(tmp_path / "grid.png")]) == 0
    assert titles == [f"{pq.read_metadata(table).num_rows} chains"]
    assert plots.Dots(10, 10).reduced(5).unit == "HSPs"
