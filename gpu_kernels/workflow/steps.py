"""The workflow's steps as library functions; workflow/scripts/ only unpack Snakemake's arguments."""
from __future__ import annotations

import logging
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..backend import NumpyBackend, get_backend
from ..coverage import pair_coverage, query_coverage
from ..engine import compare, write_table
from ..formats import (HspWriter, atomic_path, gecko_csv_from_table, iter_hsps, mummer_text,
                       paf_from_table, read_columns, read_hsps, read_meta, read_tsv, write_string, write_tsv)
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

    def __init__(self, name: str, codes: str | None, table: str):
        self.name, self.codes, self.table = name, codes, table
        self.rows = read_table(table)
        self.names = np.array([r["name"] for r in self.rows])
        self.lengths = np.array([r["length"] for r in self.rows], dtype=np.int64)


def compare_bins(query: Genome, reference: Genome, qbin: str, rbin: str, params: Params, backend: str,
                 hsps_path: str, stats_path: str, labels: dict) -> None:
    """Compare one bin pair into a Parquet HSP table with genome-wide record indices, in the canonical order."""
    qset, qindex = load_bin(query.codes, query.table, qbin)
    rset, rindex = load_bin(reference.codes, reference.table, rbin)
    log.info("comparing %s:%s (%d records, %d bp) with %s:%s (%d records, %d bp), %s",
             query.name, qbin, len(qset.names), qset.lengths.sum(), reference.name, rbin,
             len(rset.names), rset.lengths.sum(), params)
    backend = get_backend(backend)
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
    extra = {"seeds": seeds, "kept_seeds": kept}
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


def write_mummer(hsps_path: str, query: Genome, reference: Genome, path: str) -> None:
    """A genome pair's MEMs or MUMs in MUMmer's text format (mummer -b -c)."""
    hsps, _ = read_hsps(hsps_path)
    write_string(path, mummer_text(hsps_to_matches(hsps, query.lengths), query.names, query.lengths, reference.names))


def coverage_tables(hsps_path: str, query: Genome, reference: Genome, pairs_path: str, query_path: str,
                    backend: str = "numpy") -> None:
    """Coverage per chromosome pair (pairs with HSPs) and per query chromosome, forward, reverse and
    both strands (unions of intervals on the backend's device)."""
    hsps = read_columns(hsps_path, ("qrec", "rrec", "strand", "qstart", "qend"))
    nq, nr = len(query.names), len(reference.names)
    backend = get_backend(backend)
    hsps = {name: backend.to_device(column) for name, column in hsps.items()}
    keys, counts, per_pair = pair_coverage(hsps, nq, nr, backend.union_length)
    per_query = query_coverage(hsps, nq, backend.union_length)
    del hsps
    rows = []
    for i, key in enumerate(keys.tolist()):
        qi, ri = divmod(key, nr)
        qlen = int(query.lengths[qi])
        rows.append({"query_genome": query.name, "query": query.names[qi], "query_length": qlen,
                     "reference_genome": reference.name, "reference": reference.names[ri],
                     "reference_length": int(reference.lengths[ri]), "hsps": int(counts[i]),
                     **{f"covered_{s}": int(per_pair[s][i]) for s in ("forward", "reverse", "both")},
                     **{f"coverage_{s}": round(per_pair[s][i] / qlen, 6) for s in ("forward", "reverse", "both")}})
    write_tsv(pairs_path, rows, fields=PAIR_FIELDS)
    rows = [{"query_genome": query.name, "query": query.names[qi], "query_length": int(query.lengths[qi]),
             "reference_genome": reference.name,
             **{f"covered_{s}": int(per_query[s][qi]) for s in ("forward", "reverse", "both")},
             **{f"coverage_{s}": round(per_query[s][qi] / query.lengths[qi], 6) for s in ("forward", "reverse", "both")}}
            for qi in range(nq)]
    write_tsv(query_path, rows)


PAIR_FIELDS = ["query_genome", "query", "query_length", "reference_genome", "reference", "reference_length", "hsps",
               "covered_forward", "covered_reverse", "covered_both", "coverage_forward", "coverage_reverse",
               "coverage_both"]


def plots(hsps_path: str, coverage_path: str, query: Genome, reference: Genome, grid_path: str | None,
          heatmap_path: str | None, pairs_dir: str | None, max_pair_plots: int) -> None:
    """Grid dotplot, coverage heatmap and per chromosome pair dotplots of one genome pair (coverage
    from the pair table the coverage rule wrote, not computed again). The HSP table is read once, a
    row group at a time, into the dotplots' bounded Dots."""
    from .plots import Dots, coverage_heatmap, grid_dotplot, offsets, pair_dotplot

    nr = len(reference.names)
    index = {name: i for i, name in enumerate(query.names)}, {name: i for i, name in enumerate(reference.names)}
    covered = {(index[0][row["query"]], index[1][row["reference"]]): int(row["covered_both"])
               for row in read_tsv(coverage_path)}  # only pairs with HSPs: never a dense records x records table
    grid = Dots(query.lengths.sum(), reference.lengths.sum(), offsets(query.lengths), offsets(reference.lengths))
    best = [key for key, value in sorted(covered.items(), key=lambda item: (-item[1], item[0]))[:max_pair_plots]
            if value > 0] if pairs_dir else []
    pair_dots = {qi * nr + ri: Dots(query.lengths[qi], reference.lengths[ri]) for qi, ri in best}
    if grid_path or pair_dots:
        for chunk in iter_hsps(hsps_path, ["qrec", "rrec", "strand", "qstart", "qend", "rstart"], read_ahead=2):
            if grid_path:
                grid.add(chunk)
            if pair_dots:
                # rows are in (qrec, rrec) order: each chromosome pair is one run of a chunk
                pair = chunk["qrec"].astype(np.int64) * nr + chunk["rrec"]
                bounds = np.flatnonzero(np.diff(pair)) + 1
                for lo, hi in zip(np.concatenate(([0], bounds)).tolist(), np.concatenate((bounds, [pair.size])).tolist()):
                    if int(pair[lo]) in pair_dots:
                        pair_dots[int(pair[lo])].add({c: v[lo:hi] for c, v in chunk.items()})
    if grid_path:
        grid_dotplot(grid, query.names, query.lengths, reference.names, reference.lengths,
                     query.name, reference.name, grid_path)
    if heatmap_path:
        shown = 60  # the longest records a side; coverage_heatmap lays out at most this many
        qorder = np.argsort(-query.lengths, kind="stable")[:shown]
        rorder = np.argsort(-reference.lengths, kind="stable")[:shown]
        matrix = np.array([[covered.get((qi, ri), 0) for ri in rorder.tolist()] for qi in qorder.tolist()],
                          dtype=np.float64).reshape(len(qorder), len(rorder)) / query.lengths[qorder, None]
        coverage_heatmap(matrix, query.names[qorder], reference.names[rorder], query.name, reference.name, heatmap_path)
    if pairs_dir:
        os.makedirs(pairs_dir, exist_ok=True)
        for qi, ri in best:
            name = f"{_safe(query.names[qi])}__{_safe(reference.names[ri])}.png"
            pair_dotplot(pair_dots[qi * nr + ri], query.names[qi], reference.names[ri],
                         int(query.lengths[qi]), int(reference.lengths[ri]), os.path.join(pairs_dir, name))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(name))[:80]


def sweep_summary(rows_in: list[dict], tsv_path: str, png_path: str) -> None:
    """One row per parameter set and genome pair: parameters, HSPs, coverage, compare time; and a plot."""
    rows = []
    for item in rows_in:
        stats = read_tsv(item["stats"])
        coverage = read_tsv(item["coverage"])
        qlen = sum(int(r["query_length"]) for r in coverage)
        covered = sum(int(r["covered_both"]) for r in coverage)
        rows.append({"set": item["set"], "query": item["query"], "reference": item["reference"],
                     **{key: item["params"][key] for key in ("mode", "min_match", "k", "min_len", "min_identity",
                                                             "xdrop", "max_freq")},
                     "hsps": sum(int(r["hsps"]) for r in stats), "coverage": round(covered / max(1, qlen), 6),
                     "compare_jobs": len(stats), "compare_s": round(sum(float(r["total_s"]) for r in stats), 3)})
    write_tsv(tsv_path, rows)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(12, 0.6 + 0.4 * max(3, len(rows))))
    labels = [f"{r['set']}  {r['query']} vs {r['reference']}" for r in rows]
    for ax, key, title in zip(axes, ("coverage", "hsps", "compare_s"), ("query coverage", "HSPs", "compare time (s)")):
        ax.barh(range(len(rows)), [float(r[key]) for r in rows], color="#1f5fbf")
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(labels if ax is axes[0] else [], fontsize=7)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    with atomic_path(png_path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)


def setup_logging(log_path: str | None) -> None:
    """Log to the job's log file (and stderr when there is none)."""
    handlers = [logging.FileHandler(log_path)] if log_path else [logging.StreamHandler()]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        handlers=handlers, force=True)

