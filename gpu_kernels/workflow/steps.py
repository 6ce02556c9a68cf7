"""The workflow's steps as library functions; workflow/scripts/ only unpack Snakemake's arguments."""
from __future__ import annotations

import logging
import os
import time
from collections import deque
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..backend import NumpyBackend, get_backend
from ..coverage import STRANDS, table_coverage
from ..engine import compare, write_table
from ..formats import (HspWriter, default_threads, gecko_csv_from_table, iter_hsps, mummer_parts,
                       paf_from_table, read_hsps, read_meta, read_tsv, write_parts, write_tsv)
from ..hsps import concat, sort_rows
from ..matches import find_matches, hsps_to_matches, matches_to_hsps
from ..params import Params
from .genome import load_bin, read_table

log = logging.getLogger(__name__)

STAT_KEYS = ("backend", "tiles", "retries", "words", "seeds", "kept_seeds", "extended_seeds", "hsps_forward",
             "hsps_reverse", "hsps")
TIME_KEYS = ("load_s", "words_s", "seeds_s", "diagonals_s", "extend_s", "hsps_s", "total_s")


class Genome:
    """A genome's index files and chromosome table."""

    def __init__(self, name: str, codes: str | None, table: str | None):
        self.name, self.codes, self.table = name, codes, table
        self.rows = read_table(table) if table else []
        self.names = np.array([r["name"] for r in self.rows])
        self.lengths = np.array([r["length"] for r in self.rows], dtype=np.int64)

    @classmethod
    def of(cls, name: str, names, lengths) -> "Genome":
        """A genome known by its record table alone (an HSP table's metadata)."""
        genome = cls(name, None, None)
        genome.names, genome.lengths = np.array([str(n) for n in names]), np.asarray(lengths, dtype=np.int64)
        return genome


def compare_group(query: Genome, reference: Genome, qbin: str, rbins: list[str], params: Params, backend: str,
                  hsps_paths: list[str], stats_paths: list[str], labels: dict) -> None:
    """Compare one query bin with a group of reference bins, one bin pair at a time in this process
    (the query bin read once, the backend started once): a Parquet HSP table with genome-wide record
    indices, in the canonical order, and a stats table per bin pair."""
    start = time.perf_counter()
    qset, qindex = load_bin(query.codes, query.rows, qbin)
    engine = get_backend(backend)
    for number, (rbin, hsps_path, stats_path) in enumerate(zip(rbins, hsps_paths, stats_paths), 1):
        compare_bins(query, reference, qbin, rbin, qset, qindex, params, engine, hsps_path, stats_path, labels)
        log.info("bin pair %d of %d done (%.1f s since the job started)", number, len(rbins),
                 time.perf_counter() - start)


def compare_bins(query: Genome, reference: Genome, qbin: str, rbin: str, qset, qindex, params: Params, backend,
                 hsps_path: str, stats_path: str, labels: dict) -> None:
    """Compare one bin pair (the query bin already loaded) into a Parquet HSP table with genome-wide
    record indices, in the canonical order."""
    rset, rindex = load_bin(reference.codes, reference.rows, rbin)
    log.info("comparing %s:%s (%d records, %d bp) with %s:%s (%d records, %d bp), %s",
             query.name, qbin, len(qset.names), qset.lengths.sum(), reference.name, rbin,
             len(rset.names), rset.lengths.sum(), params)
    if params.matching.mode == "hsp":
        result = compare(qset, rset, params, backend=backend)
        table, stats, home = result.table, result.stats, backend
    else:  # exact matches come back on the host: they stay there
        table, stats = exact_matches(qset, rset, params, backend)
        home = NumpyBackend()
    # bin-local record indices to genome-wide ones: an increasing map, so the row order holds
    table = dict(table)
    table["qrec"] = home.to_device(qindex)[table["qrec"]]
    table["rrec"] = home.to_device(rindex)[table["rrec"]]
    stats = {**labels, "qbin": qbin, "rbin": rbin, **{key: stats.get(key, 0) for key in STAT_KEYS + TIME_KEYS}}
    extra = {"qbin": qbin, "rbin": rbin, "query_records": [int(i) for i in qindex], "stats": stats}
    os.makedirs(os.path.dirname(hsps_path) or ".", exist_ok=True)
    write_table(hsps_path, table, home, query.names, query.lengths, reference.names, reference.lengths, params, extra)
    write_tsv(stats_path, [stats])
    log.info("%d HSPs (%d forward, %d reverse) in %.2f s", stats["hsps"], stats["hsps_forward"],
             stats["hsps_reverse"], stats["total_s"])


def exact_matches(qset, rset, params: Params, backend) -> tuple[dict, dict]:
    """MEMs or MUMs of a bin pair as an HSP table in the canonical order, with the stats a compare job reports."""
    start = time.perf_counter()
    matching = params.matching
    matches = find_matches(qset, rset, matching.min_match, matching.mode == "mum", backend)
    hsps = sort_rows(matches_to_hsps(matches, qset), len(qset.names), len(rset.names))
    strand = hsps["strand"]
    stats = {"backend": backend.name, "hsps": int(strand.size), "hsps_forward": int((strand == 0).sum()),
             "hsps_reverse": int((strand == 1).sum()), "total_s": round(time.perf_counter() - start, 6)}
    return hsps, stats


def merged_parts(parts: list[str]):
    """The rows of every bin-pair table of a genome pair in the canonical order, a piece at a time:
    a part's path where its row groups can be copied as they are, else HSP columns.

    Parts come grouped by query bin, reference bins in order, each part sorted. Reference bins hold
    increasing record indices, so when a query bin is one record its parts simply follow one another
    (their row groups copied byte for byte); a bin of many small records is loaded and sorted (it is
    at most one bin of bases, so its HSPs are few)."""
    groups: list[list[tuple[str, dict]]] = []
    for part in parts:
        meta = read_meta(part)
        if groups and groups[-1][0][1]["qbin"] == meta["qbin"]:
            groups[-1].append((part, meta))
        else:
            groups.append([(part, meta)])
    for group in groups:
        if len(group[0][1]["query_records"]) <= 1:
            for part, _ in group:
                yield part
        else:
            tables = [read_hsps(part)[0] for part, _ in group]
            yield sort_rows(concat(tables))


def merge(parts: list[str], stats_parts: list[str], query: Genome, reference: Genome, params: Params,
          hsps_path: str, paf_path: str | None, csv_path: str | None, stats_path: str) -> None:
    """All bin pairs of a genome pair into one Parquet HSP table (streamed), then PAF and GECKO CSV
    streamed from it, and the stats table."""
    stats = [row for p in stats_parts for row in read_tsv(p)]
    seeds = sum(int(r["seeds"]) for r in stats)
    kept = sum(int(r["kept_seeds"]) for r in stats)
    extra = {"seeds": seeds, "kept_seeds": kept, "query_genome": query.name, "reference_genome": reference.name}
    with HspWriter(hsps_path, query.names, query.lengths, reference.names, reference.lengths, params, extra) as out:
        for piece in merged_parts(parts):
            if isinstance(piece, str):
                out.copy_row_groups(piece)
            else:
                out.write(piece)
    rows = out.rows
    # the two text formats at once: each is mostly disk writes and string kernels that release the GIL
    with ThreadPoolExecutor(2) as pool:
        jobs = []
        if paf_path:
            jobs.append(pool.submit(paf_from_table, hsps_path, paf_path))
        if csv_path:
            jobs.append(pool.submit(gecko_csv_from_table, hsps_path, csv_path, query.name, reference.name, seeds, kept))
        for job in jobs:
            job.result()
    write_tsv(stats_path, stats)
    log.info("%s vs %s: %d HSPs from %d bin pairs", query.name, reference.name, rows, len(parts))


PAIR_OUTPUTS = {"hsps": "hsps.parquet", "paf": "hsps.paf", "gecko_csv": "hsps.gecko.csv",
                "coverage_pairs": "coverage_pairs.tsv", "coverage_query": "coverage_query.tsv",
                "coverage_reference": "coverage_reference.tsv", "coverage_genomes": "coverage_genomes.tsv",
                "grid_dotplot": "grid_dotplot.png", "html_dotplot": "dotplot.html",
                "coverage_heatmap": "coverage_heatmap.png", "pair_dotplots": "pair_dotplots"}


def filter_table(table_path: str, out_dir: str, min_len: int = 0, min_identity: float = 0.0,
                 leave_out: set | None = None, max_pair_plots: int = 50, order: str = "reference",
                 backend: str = "numpy") -> int:
    """Tighten a finished run's thresholds without running it again: the rows of an HSP table at
    least min_len long and min_identity percent identical (streamed a row group at a time) into
    out_dir/hsps.parquet, then every output the workflow makes of a genome pair's table, under the
    same names but those in leave_out (PAIR_OUTPUTS keys). The parameters in the new table's metadata
    are the tightened ones. Returns the rows kept. (A looser min_identity changes the extension itself: that needs a new run.)"""
    from ..hsps import passes

    meta = read_meta(table_path)
    params = Params(**meta["params"]) if meta.get("params") else Params()
    rep, ext = params.reporting, params.extension
    params = params.replace(min_len=max(min_len, rep.min_len), min_identity=max(float(min_identity), ext.min_identity))
    query = Genome.of(meta.get("query_genome", "query"), meta["query"]["names"], meta["query"]["lengths"])
    reference = Genome.of(meta.get("reference_genome", "reference"), meta["reference"]["names"],
                          meta["reference"]["lengths"])
    leave_out = leave_out or set()
    out = {kind: None if kind in leave_out else os.path.join(out_dir, name) for kind, name in PAIR_OUTPUTS.items()}
    extra = {key: meta[key] for key in ("seeds", "kept_seeds", "query_genome", "reference_genome") if key in meta}
    extra["filtered_from"] = os.path.abspath(table_path)
    with HspWriter(out["hsps"], query.names, query.lengths, reference.names, reference.lengths, params, extra) as writer:
        for chunk in iter_hsps(table_path, read_ahead=1):
            keep = passes(chunk, params.reporting.min_len, params.extension.min_identity)
            writer.write({name: column[keep] for name, column in chunk.items()})
    log.info("%s: %d of %s rows kept", out["hsps"], writer.rows, table_path)
    if out["paf"]:
        paf_from_table(out["hsps"], out["paf"])
    if out["gecko_csv"]:
        gecko_csv_from_table(out["hsps"], out["gecko_csv"], query.name, reference.name, int(meta.get("seeds", 0)),
                             int(meta.get("kept_seeds", 0)))
    coverage_tables(out["hsps"], query, reference, out["coverage_pairs"], out["coverage_query"],
                    out["coverage_reference"], out["coverage_genomes"], backend, default_threads())
    plots(out["hsps"], out["coverage_pairs"], query, reference, out["grid_dotplot"], out["coverage_heatmap"],
          out["pair_dotplots"], max_pair_plots, out["html_dotplot"], order, default_threads())
    return writer.rows


def write_mummer(hsps_path: str, query: Genome, reference: Genome, path: str) -> None:
    """A genome pair's MEMs or MUMs in MUMmer's text format (mummer -b -c), the table read a query
    record at a time (its rows are in query record order), so memory holds one record's matches."""
    def parts():
        pending, done = [], 0  # row groups not printed yet; records before `done` are printed
        for chunk in iter_hsps(hsps_path, MATCH_COLUMNS, read_ahead=1):
            if chunk["qrec"].size == 0:
                continue
            pending.append(chunk)
            last = int(chunk["qrec"][-1])  # a later row group may hold more of it: records before it are whole
            if last > done:
                rows = concat(pending, MATCH_COLUMNS)
                cut = int(np.searchsorted(rows["qrec"], last))
                yield from _mummer_records({k: v[:cut] for k, v in rows.items()}, query, reference, range(done, last))
                pending, done = [{k: v[cut:] for k, v in rows.items()}], last
        rows = concat(pending, MATCH_COLUMNS)
        yield from _mummer_records(rows, query, reference, range(done, len(query.names)))

    write_parts(path, parts())


MATCH_COLUMNS = ["qrec", "rrec", "strand", "qstart", "qend", "rstart", "length"]


def _mummer_records(rows: dict, query: Genome, reference: Genome, records: range):
    return mummer_parts(hsps_to_matches(rows, query.lengths), query.names, query.lengths, reference.names, records)


def coverage_tables(hsps_path: str, query: Genome, reference: Genome, pairs_path: str, query_path: str,
                    reference_path: str, genomes_path: str, backend: str = "numpy", threads: int = 2) -> None:
    """Coverage of both genomes (unions of intervals on the backend's device), forward, reverse and
    both strands: per chromosome pair with HSPs (each side), per query chromosome, per reference
    chromosome, and per genome. threads: the table's reading threads (on the CuPy backend)."""
    import pandas as pd

    nq, nr = len(query.names), len(reference.names)
    xp = get_backend(backend).xp
    # a batch of row groups at a time: memory holds a batch and the covered segments, not the table
    if xp is np:
        chunks = batched(iter_hsps(hsps_path, COVERAGE_COLUMNS, read_ahead=2), COVERAGE_BATCH_ROWS["numpy"])
    else:
        longest = max(int(query.lengths.max(initial=0)), int(reference.lengths.max(initial=0)))
        chunks = device_batches(hsps_path, COVERAGE_COLUMNS, COVERAGE_BATCH_ROWS["cupy"], longest < 2**31, threads)
    coverage = table_coverage(chunks, nq, nr, xp)
    keys, counts, per_pair, alignment = coverage.pairs()
    per_record = {side: coverage.records(side) for side in ("query", "reference")}
    del coverage
    qi, ri = np.divmod(keys.astype(np.int64), nr)
    pairs = pd.DataFrame({"query_genome": query.name, "query": query.names[qi], "query_length": query.lengths[qi],
                          "reference_genome": reference.name, "reference": reference.names[ri],
                          "reference_length": reference.lengths[ri], "hsps": counts.astype(np.int64)})
    for side, lengths in (("query", query.lengths[qi]), ("reference", reference.lengths[ri])):
        for strand in STRANDS:
            pairs[f"{side}_covered_{strand}"] = per_pair[side][strand].astype(np.int64)
        for strand in STRANDS:
            pairs[f"{side}_coverage_{strand}"] = np.round(per_pair[side][strand] / np.maximum(1, lengths), 6)
    for name, column in alignment.items():  # where the pair's HSPs lie: the dotplots order records by it
        pairs[name] = column
    write_tsv(pairs_path, pairs)
    genomes = []
    for side, this, other, path in (("query", query, reference, query_path),
                                    ("reference", reference, query, reference_path)):
        table = pd.DataFrame({f"{side}_genome": this.name, side: this.names, f"{side}_length": this.lengths,
                              f"{'reference' if side == 'query' else 'query'}_genome": other.name})
        for strand in STRANDS:
            table[f"covered_{strand}"] = per_record[side][strand].astype(np.int64)
        for strand in STRANDS:
            table[f"coverage_{strand}"] = np.round(per_record[side][strand] / np.maximum(1, this.lengths), 6)
        write_tsv(path, table)
        total = int(this.lengths.sum())
        genomes.append({"side": side, "genome": this.name, "other_genome": other.name, "records": len(this.names),
                        "length": total,
                        **{f"covered_{s}": int(per_record[side][s].sum()) for s in STRANDS},
                        **{f"coverage_{s}": round(int(per_record[side][s].sum()) / max(1, total), 6) for s in STRANDS}})
    write_tsv(genomes_path, pd.DataFrame(genomes))


COVERAGE_BATCH_ROWS = {"numpy": 1 << 21, "cupy": 1 << 26}  # NumPy: a row group or two (measured fastest)
COVERAGE_COLUMNS = ["qrec", "rrec", "strand", "qstart", "qend", "rstart"]


def device_batches(path: str, columns: list, rows: int, narrow: bool, threads: int = 2):
    """An HSP table's columns in device batches of at least `rows` rows (the last may hold fewer), as
    batched gives them, read on `threads` threads that copy each row group into page-locked host
    memory, whence it goes to the device by DMA. narrow: int64 coordinates copied as int32 (every
    record shorter than 2^31), a third fewer bytes. (Copied from pageable memory on one thread, the
    columns of a 2.7 G HSP table took 16 s of its 44 s of coverage on an H200.)"""
    import queue

    import cupy as cp
    import cupyx

    free: queue.Queue = queue.Queue()
    for _ in range(threads + 2):  # a buffer for each row group in flight (threads + 1) and the one being copied
        free.put(None)

    def stage(chunk: dict) -> tuple:
        buffer = free.get()
        n = _rows(chunk)
        kinds = {name: np.dtype(np.int32) if narrow and column.dtype == np.int64 else column.dtype
                 for name, column in chunk.items()}
        sizes = {name: n * kind.itemsize for name, kind in kinds.items()}
        spans = {name: (size + 255) // 256 * 256 for name, size in sizes.items()}  # each column aligned
        if buffer is None or buffer.size < sum(spans.values()):
            buffer = None  # the old one unpinned first
            buffer = cupyx.empty_pinned(sum(spans.values()), dtype=np.uint8)
        staged, at = {}, 0
        for name, column in chunk.items():
            staged[name] = buffer[at:at + sizes[name]].view(kinds[name])
            np.copyto(staged[name], column, casting="unsafe")
            at += spans[name]
        return buffer, staged

    def to_device():
        for buffer, staged in iter_hsps(path, columns, read_ahead=threads, threads=threads, prepare=stage):
            yield staged
            # batched has queued its copies (asynchronous from page-locked memory): done before reuse
            cp.cuda.get_current_stream().synchronize()
            free.put(buffer)

    yield from batched(to_device(), rows, cp)


def batched(chunks, rows: int, xp=np):
    """Dicts of columns joined into batches of at least `rows` rows (the last may hold fewer), as
    arrays of module xp. With CuPy each chunk is copied into device arrays made once, at its place in
    the batch, so the host joins nothing (joining, then copying, took as long as reading the table);
    a batch's arrays are overwritten once the next one is asked for."""
    if xp is np:
        pending, held = [], 0
        for chunk in chunks:
            pending.append(chunk)
            held += _rows(chunk)
            if held >= rows:
                yield pending[0] if len(pending) == 1 else concat(pending, list(pending[0]))
                pending, held = [], 0
        if pending:
            yield pending[0] if len(pending) == 1 else concat(pending, list(pending[0]))
        return
    buffers, at = {}, 0
    for chunk in chunks:
        n = _rows(chunk)
        if buffers and at + n > _rows(buffers):
            yield {name: buffer[:at] for name, buffer in buffers.items()}
            at = 0
        if not buffers or n > _rows(buffers):
            buffers = {name: xp.empty(max(rows, n), dtype=column.dtype) for name, column in chunk.items()}
        for name, column in chunk.items():
            buffers[name][at:at + n].set(np.ascontiguousarray(column))
        at += n
    if at:
        yield {name: buffer[:at] for name, buffer in buffers.items()}


def _rows(columns: dict) -> int:
    return len(next(iter(columns.values())))


PLOT_COLUMNS = ["qrec", "rrec", "strand", "qstart", "qend", "rstart", "identities"]


def gather(hsps_path: str, columns: list, accumulator, add, threads: int) -> tuple:
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
            pair_dots[key].merge(dots)
    return whole, pair_dots


def plots(hsps_path: str, coverage_path: str, query: Genome, reference: Genome, grid_path: str | None,
          heatmap_path: str | None, pairs_dir: str | None, max_pair_plots: int, html_path: str | None = None,
          order: str = "reference", threads: int = 1) -> None:
    """Grid dotplot, interactive HTML dotplot, coverage heatmap and per chromosome pair dotplots of
    one genome pair, from the HSP table and the pair table the coverage rule wrote (its coverage
    picks the pair dotplots and fills the heatmap, its alignment columns order the query).

    order: "reference" orders and orients the query records along the reference by their best hits,
    "file" keeps file order. The HSP table is read once, a row group at a time, into bounded Dots:
    `threads` accumulators take row groups side by side and are merged at the end."""
    import pandas as pd

    from .plots import HTML_LINES, MAX_LINES, Dots, Layout, coverage_heatmap, file_stem, grid_dotplot, html_dotplot, \
        pair_dotplot, short_names

    nr = len(reference.names)
    params = read_meta(hsps_path).get("params") or {}
    low = params.get("min_identity") if params.get("mode", "hsp") == "hsp" else 99.0
    pairs = pd.read_csv(coverage_path, sep="\t", dtype={"query": str, "reference": str})
    qindex = pd.Index(query.names).get_indexer(pairs["query"])
    rindex = pd.Index(reference.names).get_indexer(pairs["reference"])
    covered = pairs["query_covered_both"].to_numpy(np.int64)
    layout = Layout(query.lengths, reference.lengths)
    if order == "reference" and len(query.names) > 1:
        layout = Layout.along_reference(query.lengths, reference.lengths, qindex, rindex, pairs["aligned_bases"],
                                        pairs["aligned_reverse"], pairs["reference_centre"])
    ranked = np.lexsort((qindex * nr + rindex, -covered))
    best = [(int(qindex[i]), int(rindex[i])) for i in ranked[:max_pair_plots] if covered[i] > 0] if pairs_dir else []

    def accumulator() -> tuple:
        # one gathering serves both genome dotplots: the PNG takes the longest of the HTML one's lines
        whole = Dots(layout.width, layout.height, layout, max_lines=HTML_LINES if html_path else MAX_LINES) \
            if grid_path or html_path else None
        return whole, {qi * nr + ri: Dots(reference.lengths[ri], query.lengths[qi]) for qi, ri in best}

    def add(chunk: dict, dots: tuple) -> None:
        whole, pair_dots = dots
        if whole is not None:
            whole.add(chunk)
        if pair_dots and chunk["qrec"].size:
            # rows are in (qrec, rrec) order: each chromosome pair is one run of a chunk, and a chunk
            # that begins and ends in the same pair (most row groups of a big table) is one run
            qrec, rrec = chunk["qrec"], chunk["rrec"]
            bounds = [] if qrec[0] == qrec[-1] and rrec[0] == rrec[-1] else \
                (np.flatnonzero(np.diff(qrec.astype(np.int64) * nr + rrec)) + 1).tolist()
            for lo, hi in zip([0] + bounds, bounds + [qrec.size]):
                key = int(qrec[lo]) * nr + int(rrec[lo])
                if key in pair_dots:
                    zeros = np.zeros(hi - lo, np.int64)
                    pair_dots[key].add({**{c: v[lo:hi] for c, v in chunk.items()}, "qrec": zeros, "rrec": zeros})

    count = len(best) + sum(1 for path in (grid_path, html_path, heatmap_path) if path)
    with picture_pool(count, threads) as pool:
        whole, pair_dots = gather(hsps_path, PLOT_COLUMNS, accumulator, add, threads) \
            if grid_path or html_path or best else (None, {})
        pictures = []  # (function, arguments): each picture drawn on its own, side by side
        if grid_path:
            pictures.append((grid_dotplot, (whole.reduced(MAX_LINES), query.names, reference.names, query.name,
                                            reference.name, grid_path, low)))
        if html_path:
            pictures.append((html_dotplot, (whole, query.names, reference.names, query.name, reference.name,
                                            html_path, low)))
        if heatmap_path:
            pictures.append((coverage_heatmap, (*heatmap_matrices(pairs, qindex, rindex, query, reference), query.name,
                                                reference.name, heatmap_path, len(query.names), nr)))
        if pairs_dir:
            os.makedirs(pairs_dir, exist_ok=True)
            qshort, rshort = short_names(query.names), short_names(reference.names)
            used: set[str] = set()
            for qi, ri in best:
                stem = f"{file_stem(qshort[qi])}__{file_stem(rshort[ri])}"
                name = stem if stem not in used else f"{stem}_{qi}_{ri}"
                used.add(name)
                pictures.append((pair_dotplot, (pair_dots[qi * nr + ri], qshort[qi], rshort[ri],
                                                os.path.join(pairs_dir, name + ".png"), low)))
        draw_all(pictures, pool)


def heatmap_matrices(pairs, qindex: np.ndarray, rindex: np.ndarray, query: Genome, reference: Genome) -> tuple:
    """The coverage heatmap's query and reference fractions covered, one cell per pair of the
    MAX_HEATMAP longest records a side, and those records' names (query rows, reference columns)."""
    qorder = np.argsort(-query.lengths, kind="stable")[:MAX_HEATMAP]
    rorder = np.argsort(-reference.lengths, kind="stable")[:MAX_HEATMAP]
    qat = np.full(len(query.names), -1)
    qat[qorder] = np.arange(qorder.size)
    rat = np.full(len(reference.names), -1)
    rat[rorder] = np.arange(rorder.size)
    shown = (qat[qindex] >= 0) & (rat[rindex] >= 0)
    rows, cols = qat[qindex[shown]], rat[rindex[shown]]
    matrices = []
    for side, lengths in (("query", query.lengths[qorder][:, None]), ("reference", reference.lengths[rorder][None, :])):
        matrix = np.zeros((qorder.size, rorder.size))
        matrix[rows, cols] = pairs[f"{side}_covered_both"].to_numpy()[shown]
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
    for done in [pool.submit(function, *arguments) for function, arguments in pictures]:
        done.result()
    log.info("%d pictures drawn on the forked processes in %.1f s", len(pictures), time.perf_counter() - started)


MIN_PICTURES_APART = 4  # fewer are drawn in this process


MAX_HEATMAP = 400  # records a side in the heatmap: the longest (its axis titles say how many of how many)


def sweep_summary(rows_in: list[dict], tsv_path: str, png_path: str) -> None:
    """One row per parameter set and genome pair: the parameters of its mode, HSPs, coverage of both
    genomes, compare time; and a plot of them with values on the bars."""
    import pandas as pd

    from .report import mode_params

    rows = []
    for item in rows_in:
        stats = read_tsv(item["stats"])
        genomes = {row["side"]: row for row in read_tsv(item["coverage"])}
        rows.append({"set": item["set"], "query": item["query"], "reference": item["reference"],
                     **{key: value for key, value in mode_params(item["params"]).items()
                        if key in ("mode", "min_match", "k", "min_len", "min_identity", "xdrop", "fast", "max_freq")},
                     "hsps": sum(int(r["hsps"]) for r in stats),
                     "query_coverage": float(genomes["query"]["coverage_both"]),
                     "reference_coverage": float(genomes["reference"]["coverage_both"]),
                     "compare_jobs": len(stats), "compare_s": round(sum(float(r["total_s"]) for r in stats), 3)})
    table = pd.DataFrame(rows)
    write_tsv(tsv_path, table)
    from .plots import plt, save_png

    fig, axes = plt.subplots(1, 4, figsize=(15, 1.2 + 0.45 * max(2, len(rows))), layout="constrained")
    labels = [f"{r['set']}  {r['query']} vs {r['reference']}" for r in rows]
    panels = (("query_coverage", "query coverage", "{:.2%}"), ("reference_coverage", "reference coverage", "{:.2%}"),
              ("hsps", "HSPs", "{:,.0f}"), ("compare_s", "compare time (s)", "{:,.1f}"))
    for ax, (key, title, text) in zip(axes, panels):
        values = table[key].astype(float).to_numpy()
        bars = ax.barh(range(len(rows)), values, color="#1f5fbf")
        ax.bar_label(bars, [text.format(v) for v in values], padding=3, fontsize=8)
        ax.set_xlim(0, (values.max() if values.size and values.max() > 0 else 1) * 1.3)
        ax.set_yticks(range(len(rows)), labels if ax is axes[0] else [], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
    save_png(fig, png_path)


def setup_logging(log_path: str | None) -> None:
    """Log to the job's log file (and stderr when there is none)."""
    handlers = [logging.FileHandler(log_path)] if log_path else [logging.StreamHandler()]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        handlers=handlers, force=True)

