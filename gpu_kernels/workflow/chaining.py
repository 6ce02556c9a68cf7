"""`filter`'s chains (chains.py) of a tightened HSP table, a record pair at a time: the table is in
record pair order, so memory holds one record pair's HSPs and every chain found, never the table.
The chains are the same as chaining the whole table at once: no chain crosses record pairs, each
pair's chains are taken in its own best-first order, and the chains are numbered, and the
backbone kept, over all pairs at the end."""
from __future__ import annotations

import logging
import os

import numpy as np

from ..arrays import stable_argsort
from ..backend import get_backend
from ..backbone import backbone
from ..chains import chain_hsps
from ..errors import InputError
from ..formats import HspWriter, iter_hsps, read_meta, write_chain_text
from ..hsps import concat
from ..params import Params
from ..schema import CHAIN, HSP
from .outputs import TEMPLATES

log = logging.getLogger(__name__)


def record_pair_parts(hsps_path: str):
    """(rows before the part, HSP columns) of the table's complete record pairs, a few row groups at a
    time. Row groups of one record pair wait in a list and are joined once, when the pair is whole
    (a row group of the next pair, or one that ends inside another, says it is)."""
    pending, waiting, offset = [], None, 0  # row groups of the record pair `waiting` for its end

    def joined(pieces):
        nonlocal offset
        part = concat(pieces, list(pieces[0]))
        offset += int(part["qrec"].size)
        return offset - int(part["qrec"].size), part

    # the stored columns only (the chainer derives rend and length), row groups read on 4 threads ahead
    for chunk in iter_hsps(hsps_path, list(HSP.stored), read_ahead=4, threads=4):
        if chunk["qrec"].size == 0:
            continue
        pair = chunk["qrec"].astype(np.int64) * (1 << 32) + chunk["rrec"]
        if pending and pair[0] != waiting:  # the merge copies bin pairs' row groups whole: a pair ends at one
            yield joined(pending)
            pending = []
        cut = int(np.searchsorted(pair, pair[-1]))  # the chunk's last record pair may go on in the next one
        if cut:
            yield joined(pending + [{name: column[:cut] for name, column in chunk.items()}])
            pending = []
        pending.append({name: column[cut:] for name, column in chunk.items()})
        waiting = int(pair[-1])
    if pending:
        yield joined(pending)


def chain_table(hsps_path: str, qlens, rlens, params: Params, backend: str = "numpy", sides: tuple | None = None
                ) -> tuple[dict, dict]:
    """(the chains table in chain order, the chains' blocks: chains.chain_blocks) of an HSP table;
    backend cupy: each record pair chained on the device (chain_hsps_cupy). sides: both genomes'
    SeqSets, to give the blocks as written (chains.refine_blocks) and the table from them."""
    tables, blocks, heads, count = [], [], [], 0
    engine = get_backend(backend)
    for offset, part in record_pair_parts(hsps_path):
        part = {name: engine.to_device(column) for name, column in part.items()}
        table, _, members = engine.chain_hsps(part, qlens, rlens, params, ordered=True)  # a merged table is in order
        heads.append(offset + members["rows"][members["first"]])
        found = _blocks(members)
        found["chain"] = found["chain"] + count
        tables.append(table)
        blocks.append(found)
        count += int(table["chain"].size)
    if not tables:  # no HSP: the empty table's chains, none
        table, _, members = chain_hsps(HSP.empty(), qlens, rlens, params)
        return _refined(table, _blocks(members), params, engine, sides)
    table = {name: np.concatenate([t[name] for t in tables]) for name in CHAIN.names}
    blocks = {name: np.concatenate([b[name] for b in blocks]) for name in blocks[0]}
    order = np.lexsort((np.concatenate(heads), -table["score"]))  # chain order over every record pair
    number = np.empty(order.size, dtype=np.int64)
    number[order] = np.arange(order.size)
    table = {name: column[order] for name, column in table.items()}
    table["chain"] = np.arange(order.size, dtype=np.int64)
    blocks["chain"] = number[blocks["chain"]]
    placed = stable_argsort(blocks["chain"])
    blocks = {name: column[placed] for name, column in blocks.items()}
    table["backbone"] = backbone(table, blocks, qlens, rlens)
    return _refined(table, blocks, params, engine, sides)


def _refined(table: dict, blocks: dict, params: Params, engine, sides: tuple | None) -> tuple[dict, dict]:
    """The chains and blocks as written where both genomes' SeqSets are at hand."""
    return engine.refine_blocks(table, blocks, *sides, params) if sides else (table, blocks)


def _blocks(members: dict) -> dict:
    """The block columns of chain_hsps' members (their rows and trims belong to one part's table)."""
    return {name: column for name, column in members.items() if name not in ("rows", "first_round")}


def write_chains(hsps_path: str, paths: dict, backend: str = "numpy", sides: tuple | None = None) -> None:
    """The chains of a genome pair's HSP table (`filter`'s: a finished run's table tightened), written
    where paths (by kind: chains_paf, chain_file, chains_table) say, with the table's parameters;
    backend cupy: chained on the device. sides (both genomes' SeqSets) gives the blocks as written.
    Alignments are never made from an HSP table: the homology pipeline (pipeline.py) makes them."""
    meta = read_meta(hsps_path)
    params = Params(**meta["params"]) if meta.get("params") else Params()
    q, r = meta["query"], meta["reference"]
    qlens, rlens = np.asarray(q["lengths"], dtype=np.int64), np.asarray(r["lengths"], dtype=np.int64)
    table, blocks = chain_table(hsps_path, qlens, rlens, params, backend, sides)
    log.info("%d chains, %d in the backbone", table["chain"].size, int(table["backbone"].sum()))
    for kind in ("chains_paf", "chain_file"):
        if paths.get(kind):
            write_chain_text(kind, paths[kind], table, blocks, q["names"], qlens, r["names"], rlens)
    if paths.get("chains_table"):
        extra = {key: value for key, value in meta.items() if key not in ("query", "reference", "params")}
        with HspWriter(paths["chains_table"], q["names"], qlens, r["names"], rlens, params, extra,
                       record=CHAIN) as writer:
            writer.write(table)


def load_sides(meta: dict, index: dict) -> tuple:
    """Both genomes' SeqSets from their index files (codes.2bit, a SeqSet's layout at two bits a base), checked against the
    HSP table's record tables."""
    from .genome import WHOLE, load_bin, read_table

    sides = []
    for side, codes, rows in (("query", index["qcodes"], index["qtable"]), ("reference", index["rcodes"],
                                                                             index["rtable"])):
        seqset, _ = load_bin(codes, read_table(rows), WHOLE)
        check_records(seqset, meta, side, codes)
        sides.append(seqset)
    return tuple(sides)


def check_records(seqset, meta: dict, side: str, where: str) -> None:
    """A genome's records are those of the HSP table's side (names and lengths), else an InputError."""
    if list(seqset.names) != [str(n) for n in meta[side]["names"]] or \
            [int(n) for n in seqset.lengths] != [int(n) for n in meta[side]["lengths"]]:
        raise InputError(f"its records are not those of the HSP table's {side}", where)


def fasta_sides(meta: dict, query: str, reference: str) -> tuple:
    """Both genomes' SeqSets from their FASTA files, checked against the HSP table's record tables."""
    from ..engine import as_seqsets

    found = as_seqsets(query, reference, 1)
    for seqset, side, path in zip(found, ("query", "reference"), (query, reference)):
        check_records(seqset, meta, side, path)
    return found


def find_sides(table_path: str, meta: dict, query: str | None = None, reference: str | None = None):
    """Where both genomes' sequences are for a finished run's table: the FASTA files given, else the
    workflow's index beside the run (RESULTS/index/GENOME/codes.2bit for RESULTS/SET/PAIR/hsps.parquet),
    else the FASTA files the table names (query_fasta, reference_fasta; refused where one has changed
    since the table was made: its stamp). Returns a function that reads them (load_sides, fasta_sides);
    an InputError at once where none is found."""
    if query or reference:
        if not (query and reference):
            raise InputError("give both --query and --reference (the genomes' FASTA files)")
        for path in (query, reference):
            if not os.path.isfile(path):
                raise InputError("no such file", path)
        return lambda: fasta_sides(meta, query, reference)
    results = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(table_path))))
    index = {}
    for key, side in (("q", "query"), ("r", "reference")):
        genome = str(meta.get(f"{side}_genome"))
        index[f"{key}codes"] = TEMPLATES["codes"].format(results=results, genome=genome)
        index[f"{key}table"] = TEMPLATES["chromosomes"].format(results=results, genome=genome)
    if meta.get("query_genome") and meta.get("reference_genome") and all(map(os.path.isfile, index.values())):
        return lambda: load_sides(meta, index)
    fastas = [meta.get("query_fasta"), meta.get("reference_fasta")]
    if all(path and os.path.isfile(path) for path in fastas):
        from ..engine import fasta_stamp

        for side, path in zip(("query", "reference"), fastas):
            stamp = meta.get(f"{side}_fasta_stamp")
            if stamp and fasta_stamp(path) != stamp:  # replaced since: its records may match, its bases not
                raise InputError(f"the table was made from the {side} FASTA file named here, which has changed since "
                                 "(size or time): give --query and --reference", path)
        return lambda: fasta_sides(meta, *fastas)
    raise InputError("the chains' blocks need both genomes' sequences: give --query and --reference (neither "
                     "the run's index nor the FASTA files the table names are found)", table_path)
