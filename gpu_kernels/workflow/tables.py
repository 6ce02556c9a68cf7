"""A genome pair's coverage tables: per chromosome pair, per chromosome of each genome, per genome."""
from __future__ import annotations

import logging
import time

import numpy as np

from ..backend import get_backend
from ..errors import InputError
from ..coverage import STRANDS, table_coverage, union_length
from ..formats import read_columns, write_tsv
from ..schema import HSP
from .genome import Genome

log = logging.getLogger(__name__)


SIDES = ("query", "reference")
PAIR_COLUMNS = ("aligned_bases", "aligned_reverse", "reference_centre")  # where a pair's HSPs lie


def hsp_coverage(hsps_path, query: Genome, reference: Genome, out_path: str, backend: str = "numpy",
                 threads: int = 2) -> None:
    """The coverage tables' pass over the HSPs (unions of intervals on the backend's device), written as
    a small .npz (a few numbers a record pair with HSPs and a record): per chromosome pair with HSPs
    (`keys`, qrec * len(reference) + rrec, ascending) its HSP count, covered bases of each side
    forward, reverse and both strands (`query_both`, ...) and where its HSPs lie (PAIR_COLUMNS); per
    record of each side its covered bases (`query_records_both`, ...). It needs nothing the pair's
    assembly makes, so it runs beside it; the coverage tables and the pictures read it.
    hsps_path: one HSP table or a list of them (a genome pair's compare jobs' tables, read as one);
    threads: the table's reading threads (on the CuPy backend)."""
    nq, nr = len(query.names), len(reference.names)
    started = time.perf_counter()
    engine = get_backend(backend)
    # a batch of row groups at a time: memory holds a batch and the covered segments, not the table
    longest = max(int(query.lengths.max(initial=0)), int(reference.lengths.max(initial=0)))
    chunks = engine.table_batches(hsps_path, HSP.view("coverage"), engine.batch_rows, longest < 2**31, threads)
    saved = coverage_numbers(table_coverage(chunks, nq, nr, engine.xp), nq, nr)
    save_numbers(out_path, saved)
    log.info("HSPs' coverage: %d record pairs (%.2f s)", saved["keys"].size, time.perf_counter() - started)


def coverage_numbers(coverage, nq: int, nr: int) -> dict:
    """hsp_coverage's numbers of a TableCoverage (see hsp_coverage)."""
    from concurrent.futures import ThreadPoolExecutor

    # on the host side by side (their sorts and gathers release the GIL); on a device one after another
    with ThreadPoolExecutor(3 if coverage.xp is np else 1) as pool:
        pairs, *by_side = [pool.submit(coverage.pairs)] + [pool.submit(coverage.records, side) for side in SIDES]
        keys, counts, per_pair, alignment = pairs.result()
        by_side = [future.result() for future in by_side]
    saved = {"shape": np.array([nq, nr], dtype=np.int64), "keys": keys.astype(np.int64),
             "hsps": counts.astype(np.int64), **{name: alignment[name].astype(np.int64) for name in PAIR_COLUMNS}}
    for side, records in zip(SIDES, by_side):
        for strand in STRANDS:
            saved[f"{side}_{strand}"] = per_pair[side][strand].astype(np.int64)
            saved[f"{side}_records_{strand}"] = records[strand].astype(np.int64)
    return saved


def save_numbers(path: str, saved: dict) -> None:
    """hsp_coverage's numbers to path (.npz), written whole or not at all."""
    from ..formats import save_arrays

    save_arrays(path, **saved)


def read_hsp_coverage(path: str, query: Genome, reference: Genome) -> dict:
    """hsp_coverage's numbers, with `qindex` and `rindex` (each pair's records) beside `keys`; checked
    to be of these genomes' record counts."""
    with np.load(path) as saved:
        out = {name: saved[name] for name in saved.files}
    nq, nr = (int(n) for n in out.pop("shape"))
    if (nq, nr) != (len(query.names), len(reference.names)):
        raise InputError(f"HSP coverage of {nq} x {nr} records, not of {query.name} ({len(query.names)}) x "
                         f"{reference.name} ({len(reference.names)})", path)
    out["qindex"], out["rindex"] = np.divmod(out["keys"], max(nr, 1))
    return out


def coverage_tables(summary_path: str, query: Genome, reference: Genome, pairs_path: str, query_path: str,
                    reference_path: str, genomes_path: str, chains_path: str | None = None,
                    alignments_path: str | None = None) -> None:
    """Coverage of both genomes, forward, reverse and both strands, from hsp_coverage's numbers
    (summary_path): per chromosome pair with HSPs (each side), per query chromosome, per reference
    chromosome, and per genome; with chains_path (the chains table), the backbone's too (`backbone`:
    the union of the backbone chains' spans); with alignments_path (the alignment table), the
    one-to-one alignments' (`aligned`) and their identity (`identity_aligned`: identical columns over
    all their columns, gaps included)."""
    import pandas as pd

    nq, nr = len(query.names), len(reference.names)
    started = time.perf_counter()
    summary = read_hsp_coverage(summary_path, query, reference)
    keys, counts = summary["keys"], summary["hsps"]
    per_pair = {side: {strand: summary[f"{side}_{strand}"] for strand in STRANDS} for side in SIDES}
    per_record = {side: {strand: summary[f"{side}_records_{strand}"] for strand in STRANDS} for side in SIDES}
    alignment = {name: summary[name] for name in PAIR_COLUMNS}
    strands = STRANDS
    if chains_path:
        backbone = backbone_coverage(read_columns(chains_path), nq, nr, keys.astype(np.int64))
        for side in ("query", "reference"):
            per_pair[side]["backbone"], per_record[side]["backbone"] = backbone[side]
        strands = strands + ("backbone",)
    identity = None
    if alignments_path:
        al = read_columns(alignments_path, ["qrec", "rrec", "qstart", "qend", "rstart", "rend", "backbone", "matches",
                                            "mismatches", "insertions", "deletions", "unknown"])
        aligned = backbone_coverage(al, nq, nr, keys.astype(np.int64))
        for side in ("query", "reference"):
            per_pair[side]["aligned"], per_record[side]["aligned"] = aligned[side]
        strands = strands + ("aligned",)
        identity = alignment_identity(al, nq, nr, keys.astype(np.int64))
    qi, ri = np.divmod(keys.astype(np.int64), nr)
    pairs = pd.DataFrame({"query_genome": query.name, "query": query.names[qi], "query_length": query.lengths[qi],
                          "reference_genome": reference.name, "reference": reference.names[ri],
                          "reference_length": reference.lengths[ri], "hsps": counts.astype(np.int64)})
    for side, lengths in (("query", query.lengths[qi]), ("reference", reference.lengths[ri])):
        for strand in strands:
            pairs[f"{side}_covered_{strand}"] = per_pair[side][strand].astype(np.int64)
        for strand in strands:
            pairs[f"{side}_coverage_{strand}"] = np.round(per_pair[side][strand] / np.maximum(1, lengths), 6)
    if identity is not None:
        pairs["identity_aligned"] = identity["pairs"]
    for name, column in alignment.items():  # where the pair's HSPs lie: the dotplots order records by it
        pairs[name] = column
    write_tsv(pairs_path, pairs)
    genomes = []
    for side, this, other, path in (("query", query, reference, query_path),
                                    ("reference", reference, query, reference_path)):
        table = pd.DataFrame({f"{side}_genome": this.name, side: this.names, f"{side}_length": this.lengths,
                              f"{'reference' if side == 'query' else 'query'}_genome": other.name})
        for strand in strands:
            table[f"covered_{strand}"] = per_record[side][strand].astype(np.int64)
        for strand in strands:
            table[f"coverage_{strand}"] = np.round(per_record[side][strand] / np.maximum(1, this.lengths), 6)
        if identity is not None:
            table["identity_aligned"] = identity[side]
        write_tsv(path, table)
        total = int(this.lengths.sum())
        genomes.append({"side": side, "genome": this.name, "other_genome": other.name, "records": len(this.names),
                        "length": total,
                        **{f"covered_{s}": int(per_record[side][s].sum()) for s in strands},
                        **{f"coverage_{s}": round(int(per_record[side][s].sum()) / max(1, total), 6) for s in strands},
                        **({"identity_aligned": identity["genome"]} if identity is not None else {})})
    write_tsv(genomes_path, pd.DataFrame(genomes))
    log.info("coverage tables written (%.2f s)", time.perf_counter() - started)


def backbone_coverage(chains: dict, nq: int, nr: int, pair_keys: np.ndarray) -> dict:
    """{side: (bases covered by the backbone chains' spans per record pair of pair_keys (qrec * nr +
    rrec), per record of the side)}, unions of intervals."""
    keep = chains["backbone"] == 1
    qrec, rrec = chains["qrec"][keep].astype(np.int64), chains["rrec"][keep].astype(np.int64)
    out = {}
    for side, rec, records, start, end in (("query", qrec, nq, "qstart", "qend"),
                                           ("reference", rrec, nr, "rstart", "rend")):
        starts, ends = chains[start][keep].astype(np.int64), chains[end][keep].astype(np.int64)
        pair = qrec * nr + rrec
        per_pair = np.zeros(pair_keys.size, dtype=np.int64)
        if pair.size:
            slot = np.searchsorted(pair_keys, pair)  # every backbone chain's pair has HSPs, so is a key
            per_pair = union_length(slot, starts, ends, pair_keys.size).astype(np.int64)
        out[side] = (per_pair, union_length(rec, starts, ends, records).astype(np.int64))
    return out


def alignment_identity(al: dict, nq: int, nr: int, pair_keys: np.ndarray) -> dict:
    """Identity of the one-to-one alignments (identical columns over all columns but those holding an N, rounded to 6
    places; 0 where none): per record pair of pair_keys, per query record, per reference record, and
    over the genome pair (`genome`)."""
    keep = al["backbone"] == 1
    matches = al["matches"][keep].astype(np.float64)
    columns = matches + (al["mismatches"] - al["unknown"] + al["insertions"] + al["deletions"])[keep].astype(np.float64)
    qrec, rrec = al["qrec"][keep].astype(np.int64), al["rrec"][keep].astype(np.int64)

    def ratio(slot, size):
        same = np.bincount(slot, matches, minlength=size)[:size]
        total = np.bincount(slot, columns, minlength=size)[:size]
        return np.round(np.divide(same, total, out=np.zeros(size), where=total > 0), 6)

    slot = np.searchsorted(pair_keys, qrec * nr + rrec) if qrec.size else qrec
    return {"pairs": ratio(slot, pair_keys.size), "query": ratio(qrec, nq), "reference": ratio(rrec, nr),
            "genome": round(float(matches.sum() / columns.sum()), 6) if columns.sum() else 0.0}
