"""A compare job's share of its genome pair's coverage tables and pictures, made from its HSPs while
they are on the device, so that no HSP table need be written past outputs.hsps' size.

A share holds what one pass over the pair's HSP table would have gathered from the job's rows:
- the coverage pass's covered segments and per-pair sums (coverage.TableCoverage's state);
- the genome dotplot's dots before the layout is chosen: the job's longest HSPs as they are (the
  dotplot keeps the longest as lines), and every other one's raster cell in its query record's own
  rows (dots.Dots.rows), in both orientations of the record, the highest identity a cell;
- the dots of the job's most covered chromosome pairs (a chromosome pair's HSPs are all in one job,
  so the pair's most covered overall are among them).

`merge_shares` joins a pair's shares into tables.hsp_coverage's numbers and gather.Gathered's dots:
the same numbers and dots as the pass over the merged table (tests/test_shares.py). Either backend:
the share of a CuPy table is made on the device, a few small arrays come back.
"""
from __future__ import annotations

import logging
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from ..arrays import array_module, exclusive_sum, stable_argsort, to_host
from ..coverage import STRANDS, TableCoverage, merge_intervals, strand_bases
from .dots import HTML_LINES, MAX_LINES, RASTER, Dots, Layout, max_cells, offsets

log = logging.getLogger(__name__)

SIDES = ("query", "reference")
LINE_COLUMNS = ("qrec", "rrec", "qstart", "qend", "rstart", "strand", "identities")  # a line's HSP


def _value(xp, hsps, rows, length):
    """The raster's value of rows: identity in percent as float32, dots.c's arithmetic."""
    identities = hsps["identities"][rows].astype(xp.float64)
    return ((100.0 * identities) / xp.maximum(length, 1).astype(xp.float64)).astype(xp.float32)


def _scaled(xp, doubled, span: float, top: int):
    """Raster cells (rows or columns) of doubled midpoints along `span` bases: dots.c's arithmetic."""
    return xp.clip((doubled * (RASTER / (2 * span))).astype(xp.int64), 0, top)


def _lines_and_rest(hsps: dict, rows, count: int) -> tuple[dict, object]:
    """The `count` first of rows in the dotplots' total order of lines (longest first, then record
    pair, query start, reference start, strand: Dots._keep_longest's) as LINE_COLUMNS on the host, in
    that order, and the other rows. A partial sort finds the floor; the rows at or above it come to
    the host once and are ordered there."""
    xp = array_module(rows)
    length = hsps["qend"][rows] - hsps["qstart"][rows]
    n = int(length.size)
    if n > count:
        floor = xp.partition(length, n - count)[n - count] if count else length.max() + 1
        candidates = xp.nonzero(length >= floor)[0]
    else:
        candidates = xp.arange(n)
    host = {name: to_host(hsps[name][rows[candidates]]) for name in LINE_COLUMNS}
    order = np.lexsort((host["strand"], host["rstart"], host["qstart"], host["rrec"], host["qrec"],
                        host["qstart"] - host["qend"]))[:count]
    rest = xp.ones(n, dtype=bool)
    rest[xp.asarray(to_host(candidates)[order])] = False
    return {name: column[order] for name, column in host.items()}, rows[rest]


def _whole_cells(xp, hsps: dict, rows, qlens: np.ndarray, rlens: np.ndarray) -> tuple:
    """The genome dotplot's cells of rows in both orientations of their query records (key: ((qrec * 2
    + strand) * 2 + flipped) * (RASTER + 1) + row within the record, then * RASTER + column), and
    their values: dots.c's and Dots.rows' arithmetic before the records' places are known."""
    width, height = max(1.0, float(rlens.sum())), max(1.0, float(qlens.sum()))
    qrec, rrec = hsps["qrec"][rows].astype(xp.int64), hsps["rrec"][rows].astype(xp.int64)
    qstart, qend = hsps["qstart"][rows].astype(xp.int64), hsps["qend"][rows].astype(xp.int64)
    length = qend - qstart
    x2 = 2 * (xp.asarray(offsets(rlens))[rrec] + hsps["rstart"][rows].astype(xp.int64)) + length
    column = _scaled(xp, x2, width, RASTER - 1)
    value = _value(xp, hsps, rows, length)
    base = (qrec * 2 + hsps["strand"][rows].astype(xp.int64)) * 2
    keys = []
    for flipped, y2 in ((0, qstart + qend), (1, 2 * xp.asarray(qlens)[qrec] - qstart - qend)):
        keys.append(((base + flipped) * (RASTER + 1) + _scaled(xp, y2, height, RASTER)) * RASTER + column)
    return xp.concatenate(keys), xp.concatenate((value, value))


def _whole_share(hsps: dict, qlens: np.ndarray, rlens: np.ndarray, max_lines: int) -> dict:
    """The genome dotplot's share: its lines' HSPs (the max_lines first in the total order) and every
    other HSP's cells (_whole_cells), the highest identity a cell."""
    xp = array_module(hsps["qstart"])
    rows = xp.arange(hsps["qstart"].size)
    lines, rest = _lines_and_rest(hsps, rows, max_lines)
    key, value = max_cells(*_whole_cells(xp, hsps, rest, qlens, rlens))
    return {"whole.key": key, "whole.value": value, "whole.count": np.array(int(hsps["qstart"].size)),
            "whole.max_lines": np.array(max_lines), **{f"whole.{name}": column for name, column in lines.items()}}


def _pairs_dots(hsps: dict, best: list, qlens: np.ndarray, rlens: np.ndarray):
    """The pair dotplots of the chromosome pairs `best` ((query record, reference record), each pair's HSPs
    all among hsps), as gather.gather_pictures gathers each from a table (records numbered 0): every
    pair at once on the HSPs' device (a few steps however many pairs), then a function that makes
    each pair's Dots on the host. A pair's lines are its first max_lines HSPs in the dotplots' total
    order (Dots._keep_longest's: longest first, then query start, reference start, strand; ties in
    row order), the others its raster's cells."""
    xp = array_module(hsps["qstart"])
    nr, lines_each, cells_each = rlens.size, MAX_LINES, 2 * RASTER * RASTER
    wanted = np.array([qi * nr + ri for qi, ri in best], dtype=np.int64)
    by_key = np.argsort(wanted)
    keys = xp.asarray(wanted[by_key])
    pair = hsps["qrec"].astype(xp.int64) * nr + hsps["rrec"].astype(xp.int64)
    at = xp.minimum(xp.searchsorted(keys, pair), keys.size - 1)
    rows = xp.flatnonzero(keys[at] == pair)
    k = xp.asarray(by_key)[at[rows]]  # each row's place in best
    qstart, qend = hsps["qstart"][rows].astype(xp.int64), hsps["qend"][rows].astype(xp.int64)
    length = qend - qstart
    counts = to_host(xp.bincount(k, minlength=len(best)))
    # each pair's floor (its max_lines-th longest length): the rows at or above it are the candidates
    longest_first = k * (1 << 32) + ((1 << 32) - 1 - length)  # by pair, then longest first
    ranked = stable_argsort(longest_first)
    first = exclusive_sum(counts)[:-1]
    deep = counts > lines_each
    floor = np.zeros(len(best), dtype=np.int64)
    if deep.any():
        floor[deep] = to_host(length[ranked[xp.asarray(first[deep] + lines_each - 1)]])
    candidates = xp.flatnonzero(length >= xp.asarray(floor)[k])
    # the candidates in the total order, pair by pair (stable sorts, least significant key first)
    order = candidates
    for key in (hsps["strand"][rows].astype(xp.int64), hsps["rstart"][rows].astype(xp.int64), qstart, longest_first):
        order = order[stable_argsort(key[order])]
    starts = xp.asarray(exclusive_sum(to_host(xp.bincount(k[order], minlength=len(best)))))
    rank = xp.arange(order.size) - starts[k[order]]
    chosen = order[rank < lines_each]
    line_pair = to_host(k[chosen])
    lines = {name: to_host(hsps[name][rows[chosen]]) for name in LINE_COLUMNS}
    rest = xp.ones(rows.size, dtype=bool)
    rest[chosen] = False
    rest = xp.flatnonzero(rest)
    kr, length_r = k[rest], length[rest]
    spans = [(max(1.0, float(rlens[ri])), max(1.0, float(qlens[qi]))) for qi, ri in best]  # Dots' width, height
    width, height = (xp.asarray(side)[kr] for side in zip(*spans))
    x2 = 2 * hsps["rstart"][rows[rest]].astype(xp.int64) + length_r
    column, row = _scaled(xp, x2, width, RASTER - 1), _scaled(xp, qstart[rest] + qend[rest], height, RASTER - 1)
    cell, value = max_cells(kr * cells_each + (hsps["strand"][rows[rest]].astype(xp.int64) * RASTER + row) * RASTER
                            + column, _value(xp, hsps, rows[rest], length_r))

    def made() -> list:
        """Each pair's Dots, in best's order (host work alone)."""
        bounds = np.searchsorted(cell, np.arange(len(best) + 1, dtype=np.int64) * cells_each)
        line_bounds = np.searchsorted(line_pair, np.arange(len(best) + 1))
        out = []
        for j, (width, height) in enumerate(spans):
            mine = {name: column[line_bounds[j]:line_bounds[j + 1]] for name, column in lines.items()}
            mine["qrec"], mine["rrec"] = np.zeros_like(mine["qrec"]), np.zeros_like(mine["rrec"])
            low, high = bounds[j], bounds[j + 1]
            out.append(Dots(width, height).take(cell[low:high] - j * cells_each, value[low:high], mine,
                                                int(counts[j])))
        return out

    return made


def coverage_state(coverage: TableCoverage) -> dict:
    """A TableCoverage's share of hsp_coverage's numbers, as host arrays (`coverage.*`): each chromosome
    pair's numbers whole (a pair's HSPs are all in one compare job, so no other job adds to them: its
    `keys`, `hsps`, PAIR_COLUMNS and covered bases of each side and strand, `query_both` ...), and for
    the records' numbers, which other jobs add to, each side's covered segments of each record and
    strand (`coverage.query.group`: record * 2 + strand, `start`, `end`; disjoint, in order)."""
    from .tables import PAIR_COLUMNS

    keys, counts, per_pair, alignment = coverage.pairs()
    state = {"coverage.keys": keys, "coverage.hsps": counts,
             **{f"coverage.{name}": alignment[name] for name in PAIR_COLUMNS},
             **{f"coverage.{side}_{strand}": per_pair[side][strand] for side in SIDES for strand in STRANDS}}
    for side in SIDES:
        for name, column in zip(("group", "start", "end"), coverage.record_segments(side)):
            state[f"coverage.{side}.{name}"] = to_host(column).astype(np.int64)
    return state


def make_share(hsps: dict, qlens, rlens, whole: bool, html: bool, max_pair_plots: int,
               steps: list | None = None) -> dict:
    """A compare job's share (arrays by name, on the host) of its HSPs (HSP.view("dots") columns with
    genome-wide record indices, NumPy or CuPy): the coverage pass's state; with whole, the genome
    dotplot's (html: as many lines as the interactive dotplot draws); the dots of its max_pair_plots
    most covered chromosome pairs (gather.best_pairs' rule). steps, a list: each step's name and
    seconds appended (the device synchronized at each: the job's log says where its turn went)."""
    return start_share(hsps, qlens, rlens, whole, html, max_pair_plots, steps)()


def start_share(hsps: dict, qlens, rlens, whole: bool, html: bool, max_pair_plots: int,
                steps: list | None = None):
    """make_share in two halves: what reads the HSPs now (on their device), and a function that ends
    it on the host (the pair dotplots' Dots) and returns the share: a compare job calls it once the
    device is handed on."""
    from .gather import best_pairs

    xp = array_module(hsps["qstart"])
    mark = _stepper(xp, steps)
    mark("the kernels queued before")
    qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
    nr = rlens.size
    coverage = TableCoverage(qlens.size, nr, xp)
    coverage.add(hsps)
    mark("coverage")
    share = coverage_state(coverage)
    mark("coverage state")
    if whole:
        share.update(_whole_share(hsps, qlens, rlens, HTML_LINES if html else MAX_LINES))
        mark("genome dotplot")
    best = []
    if max_pair_plots:
        qindex, rindex = np.divmod(share["coverage.keys"], max(nr, 1))
        best = best_pairs({"qindex": qindex, "rindex": rindex, "query_both": share["coverage.query_both"]},
                          max_pair_plots, nr)
    pairs = _pairs_dots(hsps, best, qlens, rlens) if best else (lambda: [])
    share["pairs"] = np.array(best, dtype=np.int64).reshape(-1, 2)
    mark("pair dotplots")

    def ended() -> dict:
        for k, dots in enumerate(pairs()):
            share.update(dots.arrays(f"pair{k}"))
        return share

    return ended


def _stepper(xp, steps: list | None):
    """make_share's step marks: a no-op without steps, else (name, seconds since the last mark)
    appended, the device synchronized first."""
    if steps is None:
        return lambda name: None
    last = [time.perf_counter()]

    def mark(name: str) -> None:
        if xp is not np:
            xp.cuda.get_current_stream().synchronize()
        now = time.perf_counter()
        steps.append((name, now - last[0]))
        last[0] = now

    return mark


def rehearse_share(backend, device: int | None = None) -> float:
    """make_share once on the rehearsal table (warm.rehearsal_records) as a compare job calls it (its HSPs in
    chains, records numbered in the genome, the genome dotplot with the interactive one's lines, pair
    dotplots): about 40 kernels of CuPy's, loaded from its cache in 2 s of a job's turn on the device (12 s
    compiled on a fresh machine), are loaded while the job waits for its turn (jobs.compare_group) and
    compiled by the warm command. device: the CUDA device (a thread starts on device 0). The seconds taken."""
    from contextlib import nullcontext

    from ..schema import HSP
    from ..warm import rehearsal_records

    start = time.perf_counter()
    with backend.xp.cuda.Device(device) if device is not None else nullcontext():
        lengths, table = rehearsal_records(backend)
        chained = backend.xp.zeros(int(table["qstart"].size), dtype=backend.xp.int64) >= 0
        table = {name: table[name][chained] for name in HSP.view("dots")}
        index = backend.to_device(np.zeros(1, dtype=np.int64))  # a bin's records numbered in the genome
        table["qrec"], table["rrec"] = index[table["qrec"]], index[table["rrec"]]
        make_share(table, lengths, lengths, True, True, 3)
    took = time.perf_counter() - start
    log.debug("the share's kernels ready in %.2f s", took)
    return took


def save_share(path: str, share: dict) -> None:
    """A share to path (.npz), written whole or not at all."""
    from ..formats import save_arrays

    save_arrays(path, **share)


@contextmanager
def _opened(path: str):
    """A share's file, open (its arrays read when asked for); one clear error where the file is no
    share (cut short, of another kind)."""
    from ..errors import InputError

    try:
        with np.load(path) as saved:
            if "pairs" not in saved.files:
                raise InputError("not a compare job's share (no `pairs`)", path)
            yield saved
    except (zipfile.BadZipFile, ValueError, EOFError) as error:
        raise InputError(f"not a readable compare job's share ({error})", path) from None


def load_share(path: str, prefix: str = "") -> dict:
    """save_share's arrays (those whose names begin with prefix)."""
    with _opened(path) as saved:
        return {name: saved[name] for name in saved.files if name.startswith(prefix)}


def merged_numbers(shares: list[dict], nq: int, nr: int) -> dict:
    """hsp_coverage's numbers (tables.coverage_numbers') of the shares' states: the chromosome pairs' numbers
    put in order (no two compare jobs hold one pair: InputError where they do), each record's covered bases
    from the union of its segments in every share."""
    from ..errors import InputError
    from .tables import PAIR_COLUMNS

    keys = np.concatenate([s["coverage.keys"] for s in shares]).astype(np.int64)
    if np.unique(keys).size < keys.size:
        raise InputError("two compare jobs' shares hold one chromosome pair: not the shares of one run")
    order = np.argsort(keys, kind="stable")
    numbers = {"shape": np.array([nq, nr], dtype=np.int64), "keys": keys[order]}
    per_pair = ("hsps", *PAIR_COLUMNS, *(f"{side}_{strand}" for side in SIDES for strand in STRANDS))
    for name in per_pair:
        numbers[name] = np.concatenate([s[f"coverage.{name}"] for s in shares]).astype(np.int64)[order]

    def records(side: str) -> dict:
        segments = merge_intervals(*(np.concatenate([s[f"coverage.{side}.{name}"] for s in shares])
                                     for name in ("group", "start", "end")))
        return strand_bases(*segments, np.arange(nq if side == "query" else nr, dtype=np.int64))

    with ThreadPoolExecutor(2) as pool:  # the two sides side by side: sorts and gathers release the GIL
        for side, counts in zip(SIDES, pool.map(records, SIDES)):
            for strand in STRANDS:
                numbers[f"{side}_records_{strand}"] = counts[strand].astype(np.int64)
    return numbers


def merged_whole(shares: list[dict], qlens: np.ndarray, rlens: np.ndarray) -> dict:
    """One genome dotplot share of several (each job's): the lines kept of all theirs, the others'
    cells added to theirs."""
    max_lines = int(shares[0]["whole.max_lines"])
    lines = {name: np.concatenate([s[f"whole.{name}"] for s in shares]) for name in LINE_COLUMNS}
    merged = _whole_share(lines, qlens, rlens, max_lines)
    key, value = max_cells(np.concatenate([merged["whole.key"]] + [s["whole.key"] for s in shares]),
                           np.concatenate([merged["whole.value"]] + [s["whole.value"] for s in shares]))
    return {**merged, "whole.key": key, "whole.value": value,
            "whole.count": np.array(sum(int(s["whole.count"]) for s in shares))}


def whole_dots(share: dict, layout: Layout) -> Dots:
    """The genome dotplot's Dots of a share (one job's, or merged_whole's) in this layout."""
    dots = Dots(layout.width, layout.height, layout, max_lines=int(share["whole.max_lines"]))
    rest, column = np.divmod(share["whole.key"], RASTER)
    rest, row = np.divmod(rest, RASTER + 1)
    rest, flipped = np.divmod(rest, 2)
    qrec, strand = np.divmod(rest, 2)
    keep = flipped == layout.flip[qrec]
    qrec, strand, row, column = qrec[keep], strand[keep], row[keep], column[keep]
    start = (2 * layout.qoff[qrec] * (RASTER / (2 * dots.height))).astype(np.int64)
    cell = (strand ^ layout.flip[qrec]) * RASTER * RASTER + np.minimum(start + row, RASTER - 1) * RASTER + column
    lines = {name: share[f"whole.{name}"] for name in LINE_COLUMNS}
    # the share's lines are in the raster nowhere: those past max_lines are marked as the Dots keep theirs
    dots.take(cell, share["whole.value"][keep], lines, int(share["whole.count"]))
    return dots


def merge_shares(paths: list[str], query, reference, max_pair_plots: int) -> tuple[dict, dict]:
    """A genome pair's shares (one a compare job) joined, before the dotplots' layout is chosen:
    (tables.hsp_coverage's numbers, one share of the pictures: the genome dotplot's, as one job's,
    and the dots of the pair's max_pair_plots most covered chromosome pairs, `pairs` naming them).
    gathered() places it in a layout. The shares are read twice, a part at a time (their coverage,
    then the rest one share after another), so memory holds the coverage's segments, then the genome
    dotplot's arrays of every share (its lines and cells) and one share's pair dots."""
    from .gather import best_pairs

    started = time.perf_counter()
    nq, nr = len(query.names), len(reference.names)
    numbers = merged_numbers([load_share(path, "coverage.") for path in paths], nq, nr)
    summary = {**numbers, "qindex": numbers["keys"] // max(nr, 1), "rindex": numbers["keys"] % max(nr, 1)}
    best = {pair: k for k, pair in enumerate(best_pairs(summary, max_pair_plots, nr))}
    wholes: list = []
    pairs: dict = {}
    for path in paths:
        with _opened(path) as saved:  # read once: the genome dotplot's arrays, the best pairs' dots
            share = {name: saved[name] for name in saved.files if name.startswith("whole.")}
            if share:
                wholes.append(share)
            for j, (qi, ri) in enumerate(saved["pairs"].tolist()):
                if (qi, ri) in best:
                    pairs.update({f"pair{best[(qi, ri)]}." + name.split(".", 1)[1]: saved[name]
                                  for name in saved.files if name.startswith(f"pair{j}.")})
    for (qi, ri), k in best.items():  # a pair no share holds: none of its HSPs
        if f"pair{k}.shape" not in pairs:
            pairs.update(Dots(reference.lengths[ri], query.lengths[qi]).arrays(f"pair{k}"))
    # every job's genome dotplot share in one pass: merged job by job, the growing set of cells merged so
    # far would be sorted again for each
    merged = merged_whole(wholes, query.lengths, reference.lengths) if wholes else {}
    del wholes
    merged.update(pairs)
    merged["pairs"] = np.array(list(best), dtype=np.int64).reshape(-1, 2)
    log.info("%d compare jobs' shares merged (%.2f s)", len(paths), time.perf_counter() - started)
    return numbers, merged


def gathered(share: dict, summary: dict, query, reference, order: str, layout: Layout | None = None):
    """merge_shares' share of the pictures as gather.Gathered, in the layout given (along the pair's
    backbone) or the one chosen as gather_pictures chooses it (summary: read_hsp_coverage's numbers)."""
    from .gather import Gathered, choose_layout

    chosen = choose_layout(summary, query, reference, order, layout)
    out = Gathered(chosen, whole_dots(share, chosen) if "whole.key" in share else None)
    for k, (qi, ri) in enumerate(share["pairs"]):
        out.pairs[(int(qi), int(ri))] = Dots.of_arrays(f"pair{k}", share)
    return out
