"""A genome pair's pictures: what gather.py gathered of its HSPs drawn as the grid dotplot, the
interactive dotplot, the coverage heatmap and the pair dotplots, side by side; and the `plot`
command's dotplots of HSP tables."""
from __future__ import annotations

import logging
import os
import time
from contextlib import contextmanager

import numpy as np

from ..formats import iter_hsps, read_columns, read_meta
from ..formats.tables import check_records, table_kind
from ..schema import HSP
from .genome import Genome
from .tables import read_hsp_coverage

log = logging.getLogger(__name__)


def pair_pictures(hsps_path, summary_path: str, query: Genome, reference: Genome, grid_path: str | None,
                  heatmap_path: str | None, pairs_dir: str | None, max_pair_plots: int, html_path: str | None = None,
                  order: str = "reference", threads: int = 1, chains_path: str | None = None,
                  layers: tuple = ("backbone", "chains", "hsps"), alignments_path: str | None = None,
                  formats: tuple = (), frame: str = "aligned", low: float | None = None) -> None:
    """Grid dotplot, interactive HTML dotplot, coverage heatmap and per chromosome pair dotplots of
    one genome pair, from the HSP table and the numbers of its pass for the coverage tables
    (summary_path: tables.hsp_coverage's; their coverage picks the pair dotplots and fills the
    heatmap, where the HSPs lie orders the query where there is no backbone): gather.gather_pictures,
    then draw_pictures, in one process (the workflow runs them as two rules).

    order: "reference" orders and orients the query records along the reference by their best hits
    (by the backbone chains where chains_path, the chains table, is given), "file" keeps file order.
    hsps_path: one HSP table or a list of them (a genome pair's compare jobs' tables, read as one);
    threads: the gathering's accumulators and the drawing processes; the other arguments as
    draw_pictures'."""
    from .gather import along_backbone, best_pairs, gather_pictures

    chains = read_columns(chains_path) if chains_path else None
    layout = along_backbone(chains, query, reference)
    best = best_pairs(read_hsp_coverage(summary_path, query, reference), max_pair_plots, len(reference.names)) \
        if pairs_dir else []
    count = len(best) + sum(1 for path in (grid_path, html_path, heatmap_path) if path)
    with picture_pool(count, threads) as pool:
        gathered = gather_pictures(hsps_path, summary_path, query, reference, bool(grid_path or html_path),
                                   bool(html_path), len(best), order, threads, layout)
        draw_pictures(gathered, summary_path, query, reference, grid_path, heatmap_path, pairs_dir, html_path,
                      chains, layers, alignments_path, formats, frame, low, pool)


def gathered_pictures(dots_path: str, summary_path: str, query: Genome, reference: Genome, grid_path: str | None,
                      heatmap_path: str | None, pairs_dir: str | None, html_path: str | None = None,
                      threads: int = 1, chains_path: str | None = None, layers: tuple = ("backbone", "chains", "hsps"),
                      alignments_path: str | None = None, formats: tuple = (), frame: str = "aligned",
                      low: float | None = None, order: str = "reference") -> None:
    """The `plots` rule: draw_pictures of the compare jobs' shares as `hsp_coverage` merged them
    (dots_path: shares.merge_shares' share of the pictures), placed as pair_pictures places an HSP
    table's (along the backbone of chains_path, the chains table, where given), on `threads` drawing
    processes."""
    from .gather import along_backbone
    from .shares import gathered, load_share

    share = load_share(dots_path)
    count = (len(share["pairs"]) if pairs_dir else 0) + sum(1 for path in (grid_path, html_path, heatmap_path) if path)
    with picture_pool(count, threads) as pool:
        chains = read_columns(chains_path) if chains_path else None
        layout = along_backbone(chains, query, reference)
        placed = gathered(share, read_hsp_coverage(summary_path, query, reference), query, reference, order, layout)
        draw_pictures(placed, summary_path, query, reference, grid_path, heatmap_path, pairs_dir, html_path,
                      chains, layers, alignments_path, formats, frame, low, pool)


def draw_pictures(gathered, summary_path: str, query: Genome, reference: Genome, grid_path: str | None,
                  heatmap_path: str | None, pairs_dir: str | None, html_path: str | None, chains: dict | None,
                  layers: tuple, alignments_path: str | None, formats: tuple, frame: str, low: float | None,
                  pool=None) -> None:
    """The pictures of what was gathered (gather.Gathered), drawn side by side on pool (a
    picture_pool's, or None: here). With chains (the chains table's columns), the dotplots draw the
    layers asked for (backbone chains on top, other chains, the HSPs faded under them); with
    alignments_path (the alignment table), the one-to-one alignments over them (layer "alignments";
    without it the backbone chains in its place). formats: other formats of each PNG written beside
    it (svg, pdf); frame: the pair dotplots' frame (plots.pair_dotplot); low: where the identity
    colour scale starts (the run's min_identity; None: the lowest identity drawn)."""
    from .dots import MAX_LINES, Dots, file_stem, short_names
    from .html import html_dotplot
    from .plots import coverage_heatmap, grid_dotplot, pair_dotplot

    layout, whole = gathered.layout, gathered.whole
    aligned = one_to_one_rows(read_columns(alignments_path, ALIGNED_COLUMNS)) \
        if chains is not None and alignments_path and "alignments" in layers else None
    if aligned is None and "alignments" in layers:  # no alignments made: the backbone chains stand for them
        layers = tuple(dict.fromkeys("backbone" if name == "alignments" else name for name in layers))
    grid_layers = chain_layers(chains, layers, lambda: Dots(layout.width, layout.height, layout), alignments=aligned)
    pictures = []  # (function, arguments): each picture drawn on its own, side by side
    if grid_path:
        pictures.append((grid_dotplot, (whole.reduced(MAX_LINES), query.names, reference.names, query.name,
                                        reference.name, grid_path, low, grid_layers, formats)))
    if html_path:
        pictures.append((html_dotplot, (whole, query.names, reference.names, query.name, reference.name,
                                        html_path, low, grid_layers)))
    if heatmap_path:
        pairs = read_hsp_coverage(summary_path, query, reference)
        pictures.append((coverage_heatmap, (*heatmap_matrices(pairs, pairs["qindex"], pairs["rindex"], query,
                                                              reference, layout),
                                            query.name, reference.name, heatmap_path, len(query.names),
                                            len(reference.names), formats)))
    if pairs_dir:
        os.makedirs(pairs_dir, exist_ok=True)
        qshort, rshort = short_names(query.names), short_names(reference.names)
        used: set[str] = set()
        for (qi, ri), dots in gathered.pairs.items():
            stem = f"{file_stem(qshort[qi])}__{file_stem(rshort[ri])}"
            name = stem if stem not in used else f"{stem}_{qi}_{ri}"
            used.add(name)
            one, mine = (None if rows is None else {c: v[(rows["qrec"] == qi) & (rows["rrec"] == ri)]
                                                    for c, v in rows.items()} for rows in (chains, aligned))
            pair_layers = chain_layers(one, layers, lambda qi=qi, ri=ri: Dots(reference.lengths[ri], query.lengths[qi]),
                                       single=True, alignments=mine)
            pictures.append((pair_dotplot, (dots, qshort[qi], rshort[ri], os.path.join(pairs_dir, name + ".png"), low,
                                            pair_layers, frame, formats)))
    draw_all(pictures, pool)


def chain_layers(chains: dict | None, layers, dots, single: bool = False, alignments: dict | None = None) -> dict | None:
    """The dotplot layers asked for (outputs.dotplot_layers): "backbone" and "chains" as Dots of the
    chains table's rows (every chain a line, none rasterized), "hsps" (drawn from the HSPs' own
    Dots) as None; None where there are no chains, so the HSPs are drawn as before. dots: a function
    making an empty Dots of the picture; single: one record pair's picture (records as 0);
    alignments: the one-to-one alignments' rows (one_to_one_rows), the "alignments" layer."""
    if chains is None:
        return None
    out = {}
    for name in layers:
        if name == "hsps":
            out[name] = None
            continue
        if name == "alignments":
            if alignments is None:
                continue
            part = dict(alignments)
            rows = np.ones(part["qrec"].size, dtype=bool)
        else:
            rows = chains["backbone"] == (1 if name == "backbone" else 0)
            part = {c: v[rows] for c, v in chains.items()}
        if single:
            part["qrec"], part["rrec"] = np.zeros_like(part["qrec"]), np.zeros_like(part["rrec"])
        layer = dots()
        layer.max_lines = max(1, int(rows.sum()))
        out[name] = layer.add(part)
    return out


ALIGNED_COLUMNS = ["qrec", "rrec", "strand", "qstart", "qend", "rstart", "rend", "backbone", "matches", "mismatches",
                   "unknown"]


def one_to_one_rows(al: dict) -> dict:
    """The one-to-one alignments of an alignment table as the rows a layer draws: spans, strand, and
    identity as identical columns over columns of two known bases (`identities` over `aligned`)."""
    keep = al["backbone"] == 1
    rows = {c: al[c][keep] for c in ("qrec", "rrec", "strand", "qstart", "qend", "rstart", "rend")}
    rows["identities"] = al["matches"][keep]
    rows["aligned"] = (al["matches"] + al["mismatches"] - al["unknown"])[keep]
    return rows


def heatmap_matrices(pairs, qindex: np.ndarray, rindex: np.ndarray, query: Genome, reference: Genome,
                     layout=None) -> tuple:
    """The coverage heatmap's query and reference fractions covered, one cell per pair of the
    MAX_HEATMAP longest records a side, in the dotplot's order (layout: query records by their place
    along the dotplot's y axis; reference records in file order), and those records' names (query
    rows, reference columns)."""
    qorder = np.argsort(-query.lengths, kind="stable")[:MAX_HEATMAP]
    rorder = np.sort(np.argsort(-reference.lengths, kind="stable")[:MAX_HEATMAP])
    qorder = qorder[np.argsort(layout.qoff[qorder], kind="stable")] if layout is not None else np.sort(qorder)
    qat = np.full(len(query.names), -1)
    qat[qorder] = np.arange(qorder.size)
    rat = np.full(len(reference.names), -1)
    rat[rorder] = np.arange(rorder.size)
    shown = (qat[qindex] >= 0) & (rat[rindex] >= 0)
    rows, cols = qat[qindex[shown]], rat[rindex[shown]]
    matrices = []
    for side, lengths in (("query", query.lengths[qorder][:, None]), ("reference", reference.lengths[rorder][None, :])):
        matrix = np.zeros((qorder.size, rorder.size))
        matrix[rows, cols] = np.asarray(pairs[f"{side}_both"])[shown]
        matrices.append(matrix / np.maximum(1, lengths))
    return (*matrices, query.names[qorder], reference.names[rorder])


@contextmanager
def picture_pool(count: int, processes: int):
    """Processes to draw `count` pictures on side by side (drawing is matplotlib's and bokeh's
    Python, one picture at a time in a process: the 50 pair dotplots of a whole-genome run took
    most of its plots rule's 40 s on one), or None where they are drawn here, one after another.

    The processes are forked (on Linux; spawned ones would run the Snakemake script that called
    this again, as their main module) when this is entered, before the HSP table is gathered:
    a child forked later would carry the gathered Dots and count them again in the job's memory
    (Snakemake's benchmark sums the processes' resident memory: 3 x 660 MB for 20,000-contig drafts).
    The pictures' arguments go to the children pickled."""
    import multiprocessing
    import sys
    import warnings
    from concurrent.futures import ProcessPoolExecutor

    processes = min(processes, count)
    if processes <= 1 or count < MIN_PICTURES_APART or not sys.platform.startswith("linux"):
        yield None
        return
    with warnings.catch_warnings():
        # Python warns of fork in a process with threads (an idle pyarrow pool); the children only draw
        warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork.*")
        pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"))
        pool.submit(os.getpid).result()  # a fork pool starts all its processes at the first task
    log.info("%d processes forked to draw %d pictures", processes, count)
    with pool:
        yield pool


def draw_all(pictures: list[tuple], pool=None) -> None:
    """Call each (function, arguments) of pictures: on the processes of a picture_pool, or here."""
    if pool is None:
        for function, arguments in pictures:
            function(*arguments)
        return
    started = time.perf_counter()
    futures = [(function.__name__, pool.submit(_timed, function, *arguments)) for function, arguments in pictures]
    took: dict = {}
    for name, done in futures:
        took[name] = max(took.get(name, 0.0), done.result())
    log.info("%d pictures drawn on the forked processes in %.1f s (the longest of each kind: %s)", len(pictures),
             time.perf_counter() - started, ", ".join(f"{name} {seconds:.1f} s" for name, seconds in took.items()))


def _timed(function, *arguments) -> float:
    """Seconds function(*arguments) took (in a picture process)."""
    started = time.perf_counter()
    function(*arguments)
    return time.perf_counter() - started


MIN_PICTURES_APART = 4  # fewer are drawn in this process


MAX_HEATMAP = 400  # records a side in the heatmap: the longest (its axis titles say how many of how many)


def table_layout(path: str, meta: dict, order: str):
    """The Layout of an HSP table's genome pair: file order, or the query along the reference by its
    best hits (Layout.along_reference), the per-pair sums gathered a row group at a time."""
    from .dots import Layout

    qlens = np.asarray(meta["query"]["lengths"], dtype=np.int64)
    rlens = np.asarray(meta["reference"]["lengths"], dtype=np.int64)
    if order == "file" or qlens.size == 1:
        return Layout(qlens, rlens)
    nr, size = rlens.size, qlens.size * rlens.size
    aligned, reverse, centre = np.zeros(size), np.zeros(size), np.zeros(size)
    for chunk in iter_hsps(path, ["qrec", "rrec", "strand", "qstart", "qend", "rstart"], read_ahead=2):
        key = chunk["qrec"].astype(np.int64) * nr + chunk["rrec"]
        length = (chunk["qend"] - chunk["qstart"]).astype(np.float64)
        aligned += np.bincount(key, length, size)
        reverse += np.bincount(key, length * (chunk["strand"] == 1), size)
        centre += np.bincount(key, length * (chunk["rstart"] + length / 2), size)
    pairs = np.flatnonzero(aligned)
    return Layout.along_reference(qlens, rlens, pairs // nr, pairs % nr, aligned[pairs], reverse[pairs],
                                  centre[pairs] / aligned[pairs])


def genome_label(meta: dict, side: str, fallback: str) -> str:
    """A side's genome as a table's metadata names it: the workflow's genome name, else its FASTA
    file's name without .gz and .fa, .fasta or .fna (`compare`'s tables), else fallback."""
    if meta.get(f"{side}_genome"):
        return str(meta[f"{side}_genome"])
    name = os.path.basename(str(meta.get(f"{side}_fasta") or ""))
    for suffix in (".gz", ".fa", ".fasta", ".fna", ".fas"):
        if name.lower().endswith(suffix):
            name = name[:-len(suffix)]
    return name or fallback


def table_dotplot(tables: list[str], path: str, query_record: str | None = None, reference_record: str | None = None,
                  order: str = "reference", frame: str = "aligned") -> int:
    """The `plot` command: a dotplot of HSP tables (compare --hsps, the workflow's hsps.parquet) to
    path (PNG, SVG or PDF by its suffix). One table: its genome grid, or with both records named the
    dotplot of that chromosome pair (framed as pair_dotplot frames it); several tables of one
    reference: their query genomes stacked against it. Returns the HSPs drawn."""
    from ..errors import InputError
    from .dots import Dots, short_names
    from .plots import grid_dotplot, pair_dotplot, stacked_dotplot

    metas = [read_meta(table) for table in tables]
    for table, meta in zip(tables, metas):
        if "query" not in meta or "reference" not in meta:
            raise InputError("is not an HSP table (no record tables in its metadata)", table)
    genomes = [(genome_label(meta, "query", os.path.basename(table).rsplit(".", 1)[0]),
                genome_label(meta, "reference", "reference")) for table, meta in zip(tables, metas)]
    low = (metas[0].get("params") or {}).get("min_identity")
    if (query_record is None) != (reference_record is None):
        raise InputError("name both records (--query-record and --reference-record), or neither")
    if query_record is not None:
        if len(tables) > 1:
            raise InputError("a chromosome pair is drawn from one table, not several")
        meta = metas[0]
        picked = []
        for side, name in (("query", query_record), ("reference", reference_record)):
            names = [str(n) for n in meta[side]["names"]]
            short = [str(n) for n in short_names(names)]
            if name in names:
                picked.append(names.index(name))
            elif short.count(name) == 1:  # the accession of an NCBI header, as the pictures name it
                picked.append(short.index(name))
            else:
                raise InputError(f"no {side} record '{name}' (it has {len(names):,}: {', '.join(short[:5])}"
                                 f"{', ...' if len(names) > 5 else ''})", tables[0])
        qi, ri = picked
        dots = Dots(meta["reference"]["lengths"][ri], meta["query"]["lengths"][qi])
        dots.unit = "chains" if table_kind(tables[0]) == "chains" else "HSPs"
        for chunk in iter_hsps(tables[0], HSP.view("dots"), read_ahead=2):
            check_records(chunk, meta, tables[0])
            keep = (chunk["qrec"] == qi) & (chunk["rrec"] == ri)
            if keep.any():
                zeros = np.zeros(int(keep.sum()), np.int64)
                dots.add({**{c: v[keep] for c, v in chunk.items()}, "qrec": zeros, "rrec": zeros})
        pair_dotplot(dots, short_names(meta["query"]["names"])[qi], short_names(meta["reference"]["names"])[ri], path,
                     low, None, frame)
        return dots.count
    reference = metas[0]["reference"]
    for table, meta in zip(tables[1:], metas[1:]):
        if list(meta["reference"]["names"]) != list(reference["names"]) or \
                list(meta["reference"]["lengths"]) != list(reference["lengths"]):
            raise InputError(f"its reference is not {tables[0]}'s: stacked dotplots share one reference", table)
    drawn = []
    for table, meta in zip(tables, metas):
        layout = table_layout(table, meta, order)
        dots = Dots(layout.width, layout.height, layout)
        dots.unit = "chains" if table_kind(table) == "chains" else "HSPs"
        for chunk in iter_hsps(table, HSP.view("dots"), read_ahead=2):
            check_records(chunk, meta, table)
            dots.add(chunk)
        drawn.append(dots)
    if len(tables) == 1:
        meta = metas[0]
        grid_dotplot(drawn[0], meta["query"]["names"], reference["names"], genomes[0][0], genomes[0][1], path, low)
    else:
        stacked_dotplot(drawn, [g for g, _ in genomes], reference["names"], genomes[0][1], path, low)
    return sum(d.count for d in drawn)
