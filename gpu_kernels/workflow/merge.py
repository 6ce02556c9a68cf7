"""A genome pair's merge: its bin-pair tables into one HSP table, streamed; its text formats
(formats.FORMATS) made from that table (a rule of their own, beside the chains and coverage rules);
and MUMmer's text for the exact-match modes."""
from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..formats import (HspWriter, iter_hsps, mummer_parts, read_hsps, read_meta, read_tsv, text_from_table, write_parts,
                       write_tsv)
from ..errors import InputError
from ..hsps import concat, sort_rows
from ..matches import hsps_to_matches
from ..params import Params
from ..schema import HSP
from .genome import Genome

log = logging.getLogger(__name__)


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
          hsps_path: str, stats_path: str | None, sources: dict | None = None) -> None:
    """All bin pairs of a genome pair into one Parquet HSP table (streamed), and the stats table where
    stats_path names it. sources: the genomes' FASTA paths (query_fasta, reference_fasta), kept in the table's metadata
    for the formats that name them."""
    missing = [part for part in parts if not os.path.exists(part)]
    if missing:  # past outputs.hsps' size the compare jobs keep their shares alone
        raise InputError("the compare jobs kept no HSP table: set outputs.chained_hsps: true to merge the HSPs in "
                         "chains", missing[0])
    stats = [row for p in stats_parts for row in read_tsv(p)]
    seeds = sum(int(r["seeds"]) for r in stats)
    kept = sum(int(r["kept_seeds"]) for r in stats)
    extra = {"seeds": seeds, "kept_seeds": kept, "query_genome": query.name, "reference_genome": reference.name,
             **(sources or {})}
    with HspWriter(hsps_path, query.names, query.lengths, reference.names, reference.lengths, params, extra) as out:
        for piece in merged_parts(parts):
            if isinstance(piece, str):
                out.copy_row_groups(piece)
            else:
                out.write(piece)
    if stats_path:
        write_tsv(stats_path, stats)
    log.info("%s vs %s: %d HSPs from %d bin pairs", query.name, reference.name, out.rows, len(parts))


def merge_stats(stats_parts: list[str], stats_path: str) -> None:
    """The stats tables of a genome pair's bin pairs as one."""
    write_tsv(stats_path, [row for p in stats_parts for row in read_tsv(p)])


def write_texts(hsps_path: str, texts: dict) -> None:
    """The text formats asked for (texts: kind of formats.FORMATS -> path) from an HSP table, side by
    side: each is mostly disk writes and compiled printing that release the GIL."""
    with ThreadPoolExecutor(max(1, len(texts))) as pool:
        for job in [pool.submit(text_from_table, kind, hsps_path, path) for kind, path in texts.items()]:
            job.result()


def write_mummer(hsps_path: str, query: Genome, reference: Genome, path: str) -> None:
    """A genome pair's MEMs or MUMs in MUMmer's text format (mummer -b -c), the table read a query
    record at a time (its rows are in query record order), so memory holds one record's matches."""
    def parts():
        pending, done = [], 0  # row groups not printed yet; records before `done` are printed
        for chunk in iter_hsps(hsps_path, HSP.view("matches"), read_ahead=1):
            if chunk["qrec"].size == 0:
                continue
            pending.append(chunk)
            last = int(chunk["qrec"][-1])  # a later row group may hold more of it: records before it are whole
            if last > done:
                rows = concat(pending, HSP.view("matches"))
                cut = int(np.searchsorted(rows["qrec"], last))
                yield from _mummer_records({k: v[:cut] for k, v in rows.items()}, query, reference, range(done, last))
                pending, done = [{k: v[cut:] for k, v in rows.items()}], last
        rows = concat(pending, HSP.view("matches"))
        yield from _mummer_records(rows, query, reference, range(done, len(query.names)))

    write_parts(path, parts())


def _mummer_records(rows: dict, query: Genome, reference: Genome, records: range):
    return mummer_parts(hsps_to_matches(rows, query.lengths), query.names, query.lengths, reference.names, records)
