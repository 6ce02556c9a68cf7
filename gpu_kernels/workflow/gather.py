"""A genome pair's dotplots gathered, ready to draw: where the query records go (a Layout: along the
pair's backbone, from its chains table), then the HSPs gathered into bounded Dots
(dots.py) for the genome dotplots and for the pair dotplots of the most covered chromosome pairs:
from an HSP table read once (gather_pictures: the command line's pictures), or in the workflow from
the compare jobs' shares of them (shares.py, merged by the `hsp_coverage` rule and placed by the
`plots` rule), drawn (pictures.py) once the pair's chains and alignments are made."""
from __future__ import annotations

import logging
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..formats import iter_hsps
from ..schema import HSP
from .dots import HTML_LINES, MAX_LINES, Dots, Layout
from .genome import Genome
from .tables import read_hsp_coverage

log = logging.getLogger(__name__)


def along_backbone(chains: dict | None, query: Genome, reference: Genome) -> Layout | None:
    """The query ordered and oriented along the reference by its backbone chains (the chains table's
    columns; Layout.along_reference's rule, the backbone's aligned bases in place of the HSPs'); None
    where there are no chains or no backbone chain."""
    if chains is None or not chains["backbone"].any():
        return None
    keep = chains["backbone"] == 1
    qrec, rrec = chains["qrec"][keep].astype(np.int64), chains["rrec"][keep].astype(np.int64)
    aligned = chains["aligned"][keep].astype(np.float64)
    centre = (chains["rstart"][keep] + chains["rend"][keep]) / 2.0
    key = qrec * len(reference.names) + rrec
    pairs, inverse = np.unique(key, return_inverse=True)
    sums = np.bincount(inverse, aligned)
    reverse = np.bincount(inverse, aligned * (chains["strand"][keep] == 1))
    centres = np.bincount(inverse, aligned * centre) / np.maximum(sums, 1)
    return Layout.along_reference(query.lengths, reference.lengths, pairs // len(reference.names),
                                  pairs % len(reference.names), sums, reverse, centres)


def best_pairs(summary: dict, max_pair_plots: int, nr: int) -> list[tuple[int, int]]:
    """The most covered chromosome pairs (query bases covered on both strands; ties in record
    order), at most max_pair_plots, as (query record, reference record)."""
    qindex, rindex, covered = summary["qindex"], summary["rindex"], summary["query_both"]
    ranked = np.lexsort((qindex * nr + rindex, -covered))
    return [(int(qindex[i]), int(rindex[i])) for i in ranked[:max_pair_plots] if covered[i] > 0]


def choose_layout(summary: dict, query: Genome, reference: Genome, order: str, layout: Layout | None) -> Layout:
    """The dotplots' layout: file order, or (order "reference") `layout` where given (along_backbone's),
    else along the reference by where the HSPs lie (summary: read_hsp_coverage's numbers)."""
    if order != "reference" or len(query.names) < 2:
        return Layout(query.lengths, reference.lengths)
    if layout is not None:
        return layout
    return Layout.along_reference(query.lengths, reference.lengths, summary["qindex"], summary["rindex"],
                                  summary["aligned_bases"], summary["aligned_reverse"], summary["reference_centre"])


@dataclass
class Gathered:
    """What a pair's pictures draw of its HSPs: the layout, the genome dotplots' Dots (None where
    none is drawn) and each pair dotplot's Dots, in the order they are drawn."""
    layout: Layout
    whole: Dots | None = None
    pairs: dict = field(default_factory=dict)  # (query record, reference record) -> Dots


def gather_dots(hsps_path, columns, accumulator, add, threads: int) -> tuple:
    """Row groups of an HSP table added into `threads` accumulators side by side (NumPy releases
    the GIL in the big array operations), then merged into the first: (whole Dots or None,
    {pair key: Dots})."""
    import queue

    free: queue.Queue = queue.Queue()
    made = [accumulator() for _ in range(max(1, threads))]
    for dots in made:
        free.put(dots)

    def task(chunk: dict) -> None:
        dots = free.get()
        try:
            add(chunk, dots)
        finally:
            free.put(dots)

    with ThreadPoolExecutor(max(1, threads)) as pool:
        pending: deque = deque()
        # two reading threads: eight gathered the 2.7 G HSP table no faster on an H200's host
        # (13.2-13.5 s against 13.7-14.3 s) and held 1.4 GB more
        for chunk in iter_hsps(hsps_path, columns, read_ahead=2):
            pending.append(pool.submit(task, chunk))
            while len(pending) > 2 * threads:  # row groups in memory stay bounded
                pending.popleft().result()
        for done in pending:
            done.result()
    whole, pair_dots = made[0]
    for other_whole, other_pairs in made[1:]:
        if whole is not None:
            whole.merge(other_whole)
        for key, dots in other_pairs.items():
            if key in pair_dots:
                pair_dots[key].merge(dots)
            else:
                pair_dots[key] = dots
    return whole, pair_dots


def gather_pictures(hsps_path, summary_path: str, query: Genome, reference: Genome, whole: bool, html: bool,
                    max_pair_plots: int, order: str = "reference", threads: int = 1,
                    layout: Layout | None = None) -> Gathered:
    """The HSPs of a genome pair gathered for its pictures: the genome dotplots' Dots (whole; html: with
    the interactive dotplot's many lines), the pair dotplots' of the max_pair_plots most covered
    chromosome pairs (summary_path: tables.hsp_coverage's numbers). order: "reference" orders and
    orients the query records along the reference (by `layout` where given: along_backbone's;
    else by where the HSPs lie, the summary's numbers), "file" keeps file order. The HSP table
    (hsps_path: one, or a list of them read as one) is read once, a row group at a time, into
    `threads` accumulators side by side, merged at the end."""
    nr = len(reference.names)
    summary = read_hsp_coverage(summary_path, query, reference)
    chosen = choose_layout(summary, query, reference, order, layout)
    best = best_pairs(summary, max_pair_plots, nr)

    wanted = {qi * nr + ri for qi, ri in best}

    def accumulator() -> tuple:
        # one gathering serves both genome dotplots: the PNG takes the longest of the HTML one's lines.
        # A pair dotplot's Dots are made by the accumulators that meet its HSPs (a pair's rows are a
        # few row groups of one table), not by all: each holds a raster of 8 MB, 50 pairs by 16 threads
        # were most of a whole-genome dots job's memory and of its merge
        dots = Dots(chosen.width, chosen.height, chosen, max_lines=HTML_LINES if html else MAX_LINES) if whole else None
        return dots, {}

    def add(chunk: dict, dots: tuple) -> None:
        all_dots, pair_dots = dots
        if all_dots is not None:
            all_dots.add(chunk)
        if wanted and chunk["qrec"].size:
            # rows are in (qrec, rrec) order: each chromosome pair is one run of a chunk, and a chunk
            # that begins and ends in the same pair (most row groups of a big table) is one run
            qrec, rrec = chunk["qrec"], chunk["rrec"]
            bounds = [] if qrec[0] == qrec[-1] and rrec[0] == rrec[-1] else \
                (np.flatnonzero(np.diff(qrec.astype(np.int64) * nr + rrec)) + 1).tolist()
            for lo, hi in zip([0] + bounds, bounds + [qrec.size]):
                key = int(qrec[lo]) * nr + int(rrec[lo])
                if key in wanted:
                    if key not in pair_dots:
                        pair_dots[key] = Dots(reference.lengths[key % nr], query.lengths[key // nr])
                    zeros = np.zeros(hi - lo, np.int64)
                    pair_dots[key].add({**{c: v[lo:hi] for c, v in chunk.items()}, "qrec": zeros, "rrec": zeros})

    started = time.perf_counter()
    all_dots, pair_dots = gather_dots(hsps_path, HSP.view("dots"), accumulator, add, threads) \
        if whole or best else (None, {})
    log.info("HSPs gathered into dots in %.1f s", time.perf_counter() - started)
    return Gathered(chosen, all_dots, {(qi, ri): pair_dots.get(qi * nr + ri) or
                                       Dots(reference.lengths[ri], query.lengths[qi]) for qi, ri in best})
