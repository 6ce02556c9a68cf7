"""The chains' text formats: PAF (a row a chain, its HSPs as M blocks joined by I and D gaps in
cg:Z, tp:A:P for the backbone and tp:A:S for the rest) and UCSC chain (liftOver, CrossMap,
pyliftover read it). Both list a chain's blocks along the reference's forward strand: a reverse
chain's blocks in reverse, its query on the reverse strand. Every piece of text is printed by
format.c a column at a time; a chain's variable parts (its CIGAR, its chain file lines) become
string tables indexed by row, never a Python call a chain.
"""
from __future__ import annotations

import numpy as np

from .. import native
from .files import write_pieces
from .rows import STRANDS, format_rows, name_table

def reference_order(blocks: dict, reverse: np.ndarray) -> dict:
    """The blocks along the reference's forward strand (reverse chains' blocks reversed): `at` (block
    indices), `size`, the gaps to the next block of the chain on the reference (`dt`) and the query
    (`dq`), and `first`, `last` (a chain's ends in this order). reverse: per block, its chain's strand."""
    n = blocks["chain"].size
    # blocks come chain by chain (chains ascending), so a reverse chain's run is only turned around:
    # the block at k of the run [s, e) is the one at s + e - 1 - k; each chain keeps its place, so the
    # blocks' chain, first and last hold for this order too
    position = np.arange(n, dtype=np.int64)
    bounds = np.append(np.flatnonzero(blocks["first"]), n)
    at = np.where(reverse, np.repeat(bounds[:-1] + bounds[1:] - 1, np.diff(bounds)) - position, position)
    # a forward block is followed by the next in chain order, so its gaps are its own; a reverse one by
    # the one before it, so its gaps are that block's (none after a chain's first block)
    source = np.where(reverse, np.maximum(at - 1, 0), at)
    none = reverse & blocks["first"][at]
    gx, gy = (np.where(none, 0, blocks[gap][source]) for gap in ("dx", "dy"))
    return {"at": at, "size": (blocks["xe"] - blocks["x0"])[at], "dt": gy, "dq": gx, "first": blocks["first"],
            "last": blocks["last"], "chain": blocks["chain"]}


def table_of_lines(text) -> tuple:
    """A string table of newline-ended lines printed at once, entry 0 the empty string."""
    data = np.frombuffer(text, dtype=np.uint8)
    offsets = np.concatenate(([0, 0], np.flatnonzero(data == ord("\n")) + 1)).astype(np.int64)
    return data.tobytes(), offsets


def cigars(order: dict, chains: int) -> tuple:
    """Each chain's CIGAR (M blocks, then I and D for the gaps on the query and the reference) as a
    string table, chain c at entry c (every chain has a block)."""
    n = order["size"].size
    out = np.empty(63 * n, dtype=np.uint8)
    offsets = np.zeros(chains + 1, dtype=np.int64)
    written = native.module("_format").cigars(out, *(np.ascontiguousarray(order[name], dtype=np.int64)
                                                      for name in ("size", "dq", "dt")),
                                              np.ascontiguousarray(order["last"], dtype=np.uint8), offsets[1:])
    return memoryview(out)[:written], offsets


def chains_paf_text(table: dict, order: dict, qnames, qlens, rnames, rlens) -> memoryview:
    """PAF rows of chains: spans, matches (the HSPs' identities, overlaps trimmed), block length (aligned
    bases and gap bases), mapq 255, NM:i (mismatches and gap bases), AS:i and s1:i the chain score,
    cm:i its HSPs, tp:A P or S, cg:Z its CIGAR."""
    chains = int(table["chain"].size)
    if chains == 0:
        return memoryview(b"")
    gaps = np.zeros(chains, dtype=np.int64)  # each chain's gap bases: its blocks' run of order summed
    if order["chain"].size:
        starts = np.flatnonzero(order["first"])
        gaps[order["chain"][starts]] = np.add.reduceat(order["dt"] + order["dq"], starts)
    block = table["aligned"] + gaps
    qrec, rrec = table["qrec"].astype(np.int64), table["rrec"].astype(np.int64)
    columns = [("n", qrec, name_table(qnames)), ("i", np.asarray(qlens, dtype=np.int64)[qrec]),
               ("i", table["qstart"]), ("i", table["qend"]), ("n", table["strand"], name_table(STRANDS)),
               ("n", rrec, name_table(rnames)), ("i", np.asarray(rlens, dtype=np.int64)[rrec]),
               ("i", table["rstart"]), ("i", table["rend"]), ("i", table["identities"]), ("i", block), "255",
               ["NM:i:", ("i", block - table["identities"])], ["AS:i:", ("i", table["score"])],
               ["s1:i:", ("i", table["score"])], ["cm:i:", ("i", table["hsps"])],
               ["tp:A:", ("n", 1 - table["backbone"].astype(np.int64), name_table(("P", "S")))],
               ["cg:Z:", ("n", np.arange(chains, dtype=np.int64), cigars(order, chains))]]
    fields = []
    for column in columns:
        fields += column if isinstance(column, list) else [column]
        fields.append("\t")
    fields[-1] = "\n"
    return format_rows(chains, tuple(fields))


def ucsc_chain_text(table: dict, order: dict, qnames, qlens, rnames, rlens) -> memoryview:
    """UCSC chain format, the reference as target (t) and the query as query (q): a header a chain
    (score, both records with their sizes, strands and spans, the chain's number + 1 as its id), a
    line a block (its size, then the gaps to the next block on t and q; the last block its size
    alone) and an empty line after each chain. On a reverse chain the query's span counts on the
    query's reverse strand, as the format asks."""
    chains = int(table["chain"].size)
    if chains == 0:
        return memoryview(b"")
    qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
    qrec, rrec = table["qrec"].astype(np.int64), table["rrec"].astype(np.int64)
    reverse = table["strand"] == 1
    qlen = qlens[qrec]
    qs = np.where(reverse, qlen - table["qend"], table["qstart"])
    qe = np.where(reverse, qlen - table["qstart"], table["qend"])
    headers = table_of_lines(format_rows(chains, (
        "chain ", ("i", table["score"]), " ", ("n", rrec, name_table(rnames)), " ", ("i", rlens[rrec]), " + ",
        ("i", table["rstart"]), " ", ("i", table["rend"]), " ", ("n", qrec, name_table(qnames)), " ", ("i", qlen),
        " ", ("n", table["strand"], name_table(STRANDS)), " ", ("i", qs), " ", ("i", qe), " ",
        ("i", table["chain"] + 1), "\n")))
    n = order["size"].size
    gaps = table_of_lines(format_rows(n, ("\t", ("i", order["dt"]), "\t", ("i", order["dq"]), "\n")))
    # a block's tail: its gaps, or (the chain's last block) the empty line that ends the chain
    tails = (gaps[0] + b"\n\n", np.append(gaps[1], len(gaps[0]) + 2))
    tail = np.where(order["last"], n + 1, np.arange(1, n + 1))
    head = np.where(order["first"], order["chain"] + 1, 0)
    return format_rows(n, (("n", head, headers), ("i", order["size"]), ("n", tail, tails)))


CHAIN_TEXTS = {"chains_paf": chains_paf_text, "chain_file": ucsc_chain_text}


def write_chain_text(kind: str, path: str, table: dict, blocks: dict, qnames, qlens, rnames, rlens) -> int:
    """A chains text format (CHAIN_TEXTS: chains_paf, chain_file) written atomically, or to standard
    output ("-"); returns the chains written."""
    order = reference_order(blocks, table["strand"][blocks["chain"]] == 1)
    text = CHAIN_TEXTS[kind](table, order, qnames, qlens, rnames, rlens)
    return write_pieces(path, b"", iter([(int(table["chain"].size), text)]), "chains")


def alignment_chains(al: dict, cigars: tuple) -> tuple:
    """(table, order) of the one-to-one alignments as chains for ucsc_chain_text: a chain an alignment,
    a block a run of aligned columns (= and X), the I and D between two blocks their gaps on the query
    (dq) and on the reference (dt), read from the CIGARs in two compiled passes (format.c
    cigar_blocks: counted, then written). A CIGAR runs along the reference's forward strand, so a
    reverse alignment's blocks are already in the format's order."""
    kept = np.asarray(al["backbone"]).astype(bool)
    keep = np.flatnonzero(kept)
    data, offsets = cigars
    args = (np.frombuffer(data, dtype=np.uint8), np.ascontiguousarray(offsets, dtype=np.int64), kept.view(np.uint8))
    compiled = native.module("_format")
    n = compiled.cigar_blocks(*args, None, None, None, None)
    order = {name: np.empty(n, dtype=np.int64) for name in ("size", "dt", "dq", "chain")}
    compiled.cigar_blocks(*args, order["size"], order["dt"], order["dq"], order["chain"])
    chain = order["chain"]
    order["first"] = np.concatenate(([True], chain[1:] != chain[:-1])) if n else np.zeros(0, dtype=bool)
    order["last"] = np.concatenate((chain[1:] != chain[:-1], [True])) if n else np.zeros(0, dtype=bool)
    table = {name: np.asarray(al[name])[keep] for name in ("qrec", "rrec", "qstart", "qend", "rstart", "rend",
                                                           "strand", "score")}
    table["chain"] = np.arange(keep.size, dtype=np.int64)
    return once_on_the_reference(table, order)


def within_chain(step: np.ndarray, order: dict) -> np.ndarray:
    """Each block's offset from its chain's first block: step (a block's size and the gap after it)
    summed over the blocks before it in its chain."""
    before = np.cumsum(step) - step
    return before - before[np.flatnonzero(order["first"])][order["chain"]]


def once_on_the_reference(table: dict, order: dict) -> tuple:
    """The chains with each reference base in one chain at most, as liftOver's chain files are: one-to-
    one alignments may overlap at their ends (each end is extended on its own; up to kilobases where
    the flanks are distant), and a base in two chains is lifted twice (liftOver: "Duplicated in new"). Along each
    reference record, a chain keeps what lies past every chain starting before it (the longer first
    where two start together): its first blocks are cut or dropped, a chain left with none is dropped.
    The query side is not trimmed: two reference bases may still lift to one query base."""
    m = int(table["chain"].size)
    if m == 0:
        return table, order
    rrec, rstart, rend = (np.asarray(table[name], dtype=np.int64) for name in ("rrec", "rstart", "rend"))
    by = np.lexsort((-rend, rstart, rrec))
    # the furthest end of the chains before each along its record: a running maximum restarted at each
    # record by an offset that puts every record above the one before
    lift = rrec[by] * (int(rend.max()) + 1)
    reach = np.maximum.accumulate(rend[by] + lift) - lift
    before = np.concatenate(([-1], reach[:-1]))
    before[np.concatenate(([True], rrec[by][1:] != rrec[by][:-1]))] = -1
    start = np.empty(m, dtype=np.int64)
    start[by] = np.maximum(rstart[by], before)
    if not (start > rstart).any():
        return table, order
    chain = order["chain"]
    size = order["size"]
    at_r = rstart[chain] + within_chain(size + order["dt"], order)
    at_q = within_chain(size + order["dq"], order)  # on the query's strand, from the chain's query head
    cut = np.clip(start[chain] - at_r, 0, None)
    kept = at_r + size > start[chain]
    order = {name: np.asarray(order[name])[kept] for name in ("size", "dt", "dq", "chain")}
    cut, at_r, at_q = cut[kept], at_r[kept], at_q[kept]
    order["size"] = order["size"] - cut
    chain = order["chain"]
    heads = np.concatenate(([True], chain[1:] != chain[:-1]))
    survivors = chain[heads]
    moved_q = np.zeros(m, dtype=np.int64)
    moved_q[survivors] = (at_q + cut)[heads]
    new_rstart = rstart.copy()
    new_rstart[survivors] = (at_r + cut)[heads]
    reverse = np.asarray(table["strand"]) == 1
    table = dict(table, rstart=new_rstart,
                 qstart=np.where(reverse, table["qstart"], np.asarray(table["qstart"], dtype=np.int64) + moved_q),
                 qend=np.where(reverse, np.asarray(table["qend"], dtype=np.int64) - moved_q, table["qend"]))
    table = {name: np.asarray(values)[survivors] for name, values in table.items()}
    table["chain"] = np.arange(survivors.size, dtype=np.int64)
    renumber = np.full(m, -1, dtype=np.int64)
    renumber[survivors] = table["chain"]
    order["chain"] = renumber[chain]
    order["first"] = heads
    order["last"] = np.concatenate((chain[1:] != chain[:-1], [True]))
    return table, order


def write_alignment_chains(path: str, al: dict, cigars: tuple, qnames, qlens, rnames, rlens) -> int:
    """The one-to-one alignments as UCSC chains (alignment_chains: liftOver, CrossMap), written atomically;
    returns the chains written."""
    table, order = alignment_chains(al, cigars)
    text = ucsc_chain_text(table, order, qnames, qlens, rnames, rlens)
    return write_pieces(path, b"", iter([(int(table["chain"].size), text)]), "chains")
