"""A genome pair's chains (chains.py), from its HSP table a record pair at a time: the table is in
record pair order, so memory holds one record pair's HSPs and every chain found, never the table.
The chains are the same as chaining the whole table at once: no chain crosses record pairs, each
pair's chains are taken in its own best-first order, and the chains are numbered, and the
backbone kept, over all pairs at the end."""
from __future__ import annotations

import logging

import numpy as np

from ..arrays import stable_argsort
from ..backend import get_backend
from ..chains import backbone, chain_hsps
from ..formats import HspWriter, iter_hsps, read_meta, write_chain_text
from ..hsps import concat
from ..params import Params
from ..schema import CHAIN, HSP

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


def chain_table(hsps_path: str, qlens, rlens, params: Params, backend: str = "numpy") -> tuple[dict, dict]:
    """(the chains table in chain order, the chains' blocks: chains.chain_blocks) of an HSP table;
    backend cupy: each record pair chained on the device (chain_hsps_cupy)."""
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
        return table, _blocks(members)
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
    return table, blocks


def _blocks(members: dict) -> dict:
    """The block columns of chain_hsps' members (their rows and trims belong to one part's table)."""
    return {name: column for name, column in members.items() if name not in ("rows", "trim")}


def write_chains(hsps_path: str, paths: dict, backend: str = "numpy", aligned: dict | None = None,
                 index: dict | None = None) -> None:
    """The chains of a genome pair's HSP table, written where paths (by kind: chains_paf, chain_file,
    chains_table) say, with the table's parameters; backend cupy: chained on the device. Where aligned
    names outputs (align.write_alignments' kinds), the chains' alignments too, from both genomes'
    index files (index: qcodes, qtable, rcodes, rtable)."""
    meta = read_meta(hsps_path)
    params = Params(**meta["params"]) if meta.get("params") else Params()
    q, r = meta["query"], meta["reference"]
    qlens, rlens = np.asarray(q["lengths"], dtype=np.int64), np.asarray(r["lengths"], dtype=np.int64)
    table, blocks = chain_table(hsps_path, qlens, rlens, params, backend)
    log.info("%d chains, %d in the backbone", table["chain"].size, int(table["backbone"].sum()))
    for kind in ("chains_paf", "chain_file"):
        if paths.get(kind):
            write_chain_text(kind, paths[kind], table, blocks, q["names"], qlens, r["names"], rlens)
    if paths.get("chains_table"):
        extra = {key: value for key, value in meta.items() if key not in ("query", "reference", "params")}
        with HspWriter(paths["chains_table"], q["names"], qlens, r["names"], rlens, params, extra,
                       record=CHAIN) as writer:
            writer.write(table)
    if aligned and any(aligned.values()):
        write_pair_alignments(table, blocks, meta, params, backend, aligned, index)


def write_pair_alignments(table: dict, blocks: dict, meta: dict, params: Params, backend: str, aligned: dict,
                          index: dict) -> None:
    """A genome pair's chains aligned (align.py) and written: the genomes' records read from their
    index (codes.npy, a SeqSet's layout), checked against the HSP table's record tables."""
    from ..align import align_chains, align_chains_cupy, write_alignments
    from .genome import WHOLE, load_bin, read_table

    sides = []
    for side, codes, rows in (("query", index["qcodes"], index["qtable"]), ("reference", index["rcodes"],
                                                                             index["rtable"])):
        seqset, _ = load_bin(codes, read_table(rows), WHOLE)
        if list(seqset.names) != [str(n) for n in meta[side]["names"]]:
            raise ValueError(f"{codes}: the index's records are not those of the HSP table's {side}")
        sides.append(seqset)
    align = align_chains_cupy if backend == "cupy" else align_chains
    al = align(table, blocks, *sides, params)
    log.info("%d alignments, %d one-to-one", al["qstart"].size, int(al["backbone"].sum()))
    write_alignments(al, *sides, aligned, meta)
