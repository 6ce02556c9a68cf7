"""The homology pipeline: one part of a genome pair (a block of query records x a block of reference
records; a record pair is never split) from words to gapped alignments in memory (`homology`), and
the pair made whole again from its parts (`assemble`): the command line's `align` and the
workflow's jobs both run it.

A part keeps what the pair needs of it, never its HSPs: the chains of the backbone's first round
(chosen within each record pair: docs/DEFINITIONS.md "What a chain is", 5; every chain where every chain's
outputs are asked for) with their blocks, the alignments of its own backbone chains with their texts,
and its count of chains by (score, record pair). The backbone's second round, across record pairs,
is a choice over the whole pair, so `assemble` ranks every part's chains in the pair's chain order
(numbered as the whole pair numbers them, from the parts' counts), chooses the second round over
them, aligns the few backbone chains no part aligned (they lost in their own part to a chain that
another part's chain beats), and chooses the one-to-one alignments over the whole pair. The result equals
the pair compared whole, whatever the parts (tests/test_pipeline.py, tests/test_workflow_pipeline.py)."""
from __future__ import annotations

import gc
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from .align import TEXT_PARTS, align_chains, text_of
from .arrays import concat_columns, places, stable_argsort, take_columns, to_host
from .backbone import backbone
from .chains import blocks_of
from .diagonals import keys_fit
from .encode import GAP
from .errors import InputError
from .one_to_one import one_to_one
from .formats.strings import take_texts
from .params import Params
from .placement import refine_blocks
from .ranks import chain_numbers, part_ranks
from .schema import ALIGNMENT, CHAIN
from .seqset import SeqSet
from .turns import take_turn

log = logging.getLogger(__name__)

# the texts each alignment output is made of (align.text_of's kinds)
OUTPUT_TEXTS = {"paf": ("cigar", "cs"), "table": ("cigar",), "sam": ("cigar",), "delta": ("delta",),
                "snps": ("snps",), "vcf": ("snps",), "liftover": ("cigar",), "maf": ("cigar",), "psl": ("cigar",)}
# an alignment's columns a part keeps (ALIGNMENT's numbers; `chain` the part's own until assembled)
ALIGNED = tuple(name for name in ALIGNMENT.names if name not in ("alignment", "cigar"))
BLOCKS = ("chain", "x0", "xe", "y0", "ye", "trim")
PIECES = ("chain", "x0", "xe", "y0", "ye")


def texts_of(kinds) -> tuple:
    """The text kinds the alignment outputs named (OUTPUT_TEXTS' keys) are made of, in a fixed order
    (the CIGARs always: the one-to-one cuts read them)."""
    wanted = {"cigar"} | {text for kind in kinds for text in OUTPUT_TEXTS.get(kind, ())}
    return tuple(text for text in ("cigar", "cs", "delta", "snps") if text in wanted)


@dataclass
class Part:
    """What a part leaves for its pair, on the host, records numbered as in the whole genomes:
    `chains` (the CHAIN record's columns, placed where the chain's blocks were; `head`: the part's
    row of each chain's first HSP; `candidate`: 1 where its alignments are in `alignments`; `tie`:
    ranks.chain_numbers'); `blocks` (chain_blocks' columns BLOCKS: the backbone is chosen on them);
    `pieces` (the blocks as written, PIECES, of the chains placed); `alignments` (ALIGNED columns,
    `chain` the part's chain); `texts` (kind: a string table, a string an alignment); `stats` (the
    comparison's counts and times); `text_parts` (what the texts are made of, where asked for);
    `ranks` (the part's count of chains, kept or not, by score, qrec and rrec)."""
    chains: dict
    blocks: dict
    pieces: dict
    alignments: dict
    texts: dict
    stats: dict = field(default_factory=dict)
    text_parts: dict | None = None
    ranks: dict | None = None


def homology(query: SeqSet, reference: SeqSet, params: Params, backend, texts: tuple = (),
             qindex=None, rindex=None, pieces: bool = True, result=None, text_parts: bool = False,
             device_done=None) -> Part:
    """One part through the pipeline: compared (engine.compare, unless `result` holds the comparison),
    chained, its candidate chains placed and aligned and their texts made (`texts`: align.text_of's
    kinds). qindex, rindex: each local record's number in the whole genome (default: the same).
    pieces: every chain's blocks placed and kept (the outputs of every chain need them), else the
    candidates' alone (a chain's blocks and alignments are its own). text_parts: the alignments keep
    what their texts are made of (align.TEXT_PARTS, for text_of on this part's SeqSets later).
    device_done(result): called once the part's device work is done, before its host stages (a
    workflow job writes its HSP table there and hands the device on)."""
    from .engine import compare

    if result is None:
        result = compare(query, reference, params, backend=backend)
    result.chain(placed=False)
    table, members = result.chained
    blocks = {name: np.asarray(to_host(members[name]), dtype=np.int64) for name in BLOCKS}
    first = np.asarray(to_host(members["first"]), dtype=bool)
    chains = {name: np.asarray(to_host(table[name])) for name in CHAIN.names}
    chains["head"] = np.asarray(to_host(members["rows"]), dtype=np.int64)[first]
    chains["candidate"] = (np.ones(first.sum(), dtype=np.int8) if params.aligning.secondary
                           else chains["backbone"].astype(np.int8))
    first_only = not pieces and not params.aligning.secondary
    first_round = np.asarray(to_host(members["first_round"])) == 1 if first_only else None
    if pieces:
        take_turn()  # handed on for the backbone's first round (chains.host_stage), where the job shares its device
        chains.update({name: np.asarray(to_host(v)) for name, v in result.chain().items() if name in CHAIN.names})
        placed, al = result.chained[1], result.align()
    else:
        del table, members  # the device's chains, dropped with the result's (Result.drop_device)
        chosen = np.flatnonzero(chains["candidate"])
        # the device handed on as soon as the candidates' pieces are found and their ends extended: the
        # part's host stages run while the next job takes it
        placed_table, placed, al = place_and_align(
            chains, blocks, chosen, query, reference, params, backend, result.codes,
            device_done=None if device_done is None else lambda: device_done(result))
        for name in ("qstart", "qend", "rstart", "rend", "aligned", "identities"):
            chains[name][chosen] = placed_table[name]
    clock = time.perf_counter()  # the part's host steps after its alignments, logged
    kept = {name: np.asarray(to_host(placed[name]), dtype=np.int64) for name in PIECES}
    if pieces and device_done is not None:
        device_done(result)
    made = {kind: text_of(al, query, reference, kind) for kind in texts}
    alignments = {name: np.asarray(al[name]) for name in ALIGNED}
    for columns in (chains, alignments):
        for side, index in (("qrec", qindex), ("rrec", rindex)):
            columns[side] = columns[side] if index is None else np.asarray(index, dtype=np.int32)[columns[side]]
    chains["tie"], ranks = part_ranks(chains)
    ranked = time.perf_counter()
    if first_only:
        # the backbone's first round (within each record pair, whole in a part) holds every chain the
        # pair's backbone can take (the second round, across record pairs, is the assembly's): the
        # others, most of them repeat hits, are left here
        chains, blocks, kept, alignments = _first_round(chains, blocks, kept, alignments, first_round)
    part = Part(chains, blocks, kept, alignments, made, dict(result.stats), ranks=ranks)
    if text_parts:
        part.text_parts = {name: np.asarray(al[name]) for name in (*TEXT_PARTS, "qrec", "rrec")}  # records: the part's
    log.info("part's chains: ranked %.2f s, first round's cut %.2f s", ranked - clock, time.perf_counter() - ranked)
    return part


def _first_round(chains: dict, blocks: dict, pieces: dict, alignments: dict, keep) -> tuple:
    """A part's tables cut to the chains `keep` marks (the candidates among them), renumbered."""
    stored = np.flatnonzero(keep | (chains["candidate"] == 1))
    number = places(keep.size, stored)

    def cut(table: dict) -> dict:
        rows = number[table["chain"]] >= 0
        out = {name: column[rows] for name, column in table.items()}
        out["chain"] = number[out["chain"]]
        return out

    chains = {name: column[stored] for name, column in chains.items()}
    chains["chain"] = np.arange(stored.size, dtype=np.int64)
    return chains, cut(blocks), cut(pieces), cut(alignments)


def place_and_align(chains: dict, blocks: dict, chosen, query: SeqSet, reference: SeqSet, params: Params,
                    backend=None, codes=None, device_done=None) -> tuple:
    """Some chains of a table (rows `chosen`, each once) placed (refine_blocks) and aligned, whatever their backbone:
    (their CHAIN rows as placed, numbered from 0; their blocks as written, `chain` the table's number; their
    alignments, `chain` the table's number). device_done: align_chains', with the placed blocks on the host first."""
    refine = backend.refine_blocks if backend is not None else refine_blocks
    align = backend.align_chains if backend is not None else align_chains
    sub = {name: np.asarray(chains[name])[chosen] for name in CHAIN.names}
    sub["chain"] = np.arange(chosen.size, dtype=np.int64)
    sub["backbone"] = np.ones(chosen.size, dtype=np.int8)  # aligned whatever the backbone
    local = places(np.asarray(chains["score"]).size, chosen)  # a chain's row among the chosen
    inside = local[blocks["chain"]] >= 0
    mine = blocks_of(local[blocks["chain"][inside]], *(blocks[name][inside] for name in ("x0", "xe", "y0", "ye")))
    mine["trim"] = blocks["trim"][inside]
    take_turn()  # the host's work above done outside the device's turn (turns.host_stage)
    table, placed = refine(sub, mine, query, reference, params, codes=codes)
    on_host = {}

    def done() -> None:
        on_host.update({name: np.asarray(to_host(v)) for name, v in placed.items()})
        placed.clear()
        if device_done is not None:
            device_done()

    al = align(table, placed, query, reference, params, codes=codes, device_done=done)
    al["chain"] = chosen[np.asarray(al["chain"])]
    placed = on_host  # align calls done() on both backends
    placed["chain"] = chosen[placed["chain"]]
    return table, placed, al


@dataclass
class Pair:
    """A genome pair made whole: its chains (CHAIN columns in chain order, `backbone` chosen over the
    pair), their blocks as written, the alignments (ALIGNED columns, `chain` the pair's, `backbone`
    the one-to-one ones) and their texts. Where the parts came without their texts (the workflow's
    texts are made beside the GPU and read by another job), `texts` is empty and `rows` says where
    each alignment's texts are among the parts' laid end to end, then `late_texts` (formats.strings.take_texts)."""
    chains: dict
    pieces: dict
    alignments: dict
    texts: dict
    rows: np.ndarray | None = None
    late_texts: dict | None = None


@dataclass
class PairChains:
    """The parts' chains of a genome pair in its order (score descending, then the head HSP in the
    canonical order), `chain` their row, `backbone` chosen over the pair on their blocks; `number` each
    one's number in the pair (counting the chains the parts left out, as the pair compared whole does)."""
    chains: dict
    blocks: dict
    number: np.ndarray
    rank_of: np.ndarray  # a part's chain (its row among the parts' laid end to end) -> its row here
    base: np.ndarray  # where each part's chains start among the parts' laid end to end
    threads: int = 0  # the columns' gathers (arrays.take_columns, concat_columns)

    def ranked(self, tables: list[dict], columns, keep=None) -> tuple[dict, np.ndarray]:
        """The parts' rows of other tables in the pair's chain order (a chain's rows in order), and the
        order; keep (a bool a chain of the pair): only the rows of those chains (the order is then theirs)."""
        if keep is not None:
            masks = [keep[self.rank_of[self.base[n] + np.asarray(t["chain"])]] for n, t in enumerate(tables)]
            tables = [{name: np.asarray(t[name])[mask] for name in columns} for t, mask in zip(tables, masks)]
        got = concat_columns(tables, columns, self.threads)
        owner = np.repeat(np.arange(len(tables)), [int(t["chain"].size) for t in tables])
        got["chain"] = self.rank_of[self.base[owner] + got["chain"]]
        moved = stable_argsort(got["chain"])
        return take_columns(got, moved, self.threads), moved


def pair_chains(parts: list[Part], qlens, rlens, params: Params, all_chains: bool = True, marks=None,
                threads: int = 0) -> PairChains:
    """The pair's chains and their backbone from its parts (in any order): assemble's first steps, and what
    the dotplots order the query by (workflow.gather). marks: a list each step's (name, time) is added to;
    threads: the columns' gathers' (0: native.threads())."""
    qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
    marks = [] if marks is None else marks
    sizes = [int(p.chains["chain"].size) for p in parts]
    base = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    chains = concat_columns([p.chains for p in parts], (*CHAIN.names, "head", "candidate", "tie"), threads)
    number = chain_numbers(parts, chains)
    rank_of = np.empty(int(base[-1]), dtype=np.int64)
    order = stable_argsort(number)
    rank_of[order] = np.arange(order.size, dtype=np.int64)
    chains = take_columns(chains, order, threads)
    chains["chain"] = np.arange(order.size, dtype=np.int64)
    marks.append(("numbers", time.perf_counter()))
    out = PairChains(chains, {}, number[order], rank_of, base, threads)
    out.blocks, _ = out.ranked([p.blocks for p in parts], BLOCKS)
    marks.append(("blocks", time.perf_counter()))
    # parts that kept their first round's chains alone: that round, run again on them, keeps them all,
    # so the second round alone is left
    first_only = not all_chains and not params.aligning.secondary
    chains["backbone"] = backbone(chains, out.blocks, qlens, rlens, pairs=not first_only)
    marks.append(("backbone", time.perf_counter()))
    return out


def assemble(parts: list[Part], qlens, rlens, params: Params, late=None, texts: tuple = (),
             all_chains: bool = True, write_all: bool | None = None) -> Pair:
    """The pair's chains, backbone (pair_chains) and alignments from its parts (in any order). late(chains,
    blocks, chosen): place_and_align's result and the texts of its alignments for the chosen rows of
    the pair's chains (backbone chains no part aligned; `blocks` as chain_blocks gives them), needed
    only where there are any. all_chains: the pair's chains are every chain (each part placed every
    chain's blocks), else the backbone's (with `secondary`, the chains no part aligned are placed
    here too). write_all False: the pair's table and blocks keep the backbone's chains alone, though
    the parts hold every chain (sizing.fits: every chain would weigh too much)."""
    start = time.perf_counter()
    qlens, rlens, marks = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64), []
    found = pair_chains(parts, qlens, rlens, params, all_chains, marks)
    chains, blocks, number, ranked = found.chains, found.blocks, found.number, found.ranked
    order = chains["chain"]
    wanted = np.ones(order.size, dtype=bool) if params.aligning.secondary else chains["backbone"] == 1
    missing = np.flatnonzero(wanted & (chains["candidate"] == 0))
    al, index = ranked([p.alignments for p in parts], ALIGNED)  # the texts follow `index`
    late_texts = {kind: (b"", np.zeros(1, dtype=np.int64)) for kind in texts}
    written = chains["chain"] if all_chains and write_all is not False else np.flatnonzero(chains["backbone"] == 1)
    row_of = places(order.size, written)
    # the pieces of the chains written alone (a whole genome's parts hold tens of millions)
    placed, _ = ranked([p.pieces for p in parts], PIECES, None if written.size == order.size else row_of >= 0)
    keep = np.flatnonzero(wanted[al["chain"]])
    rows = index[keep]
    if missing.size:
        log.info("%d backbone chains no part aligned: aligned here", missing.size)
        table, extra_pieces, extra, extra_texts = late(chains, blocks, missing)
        marks.append(("late chains", time.perf_counter()))
        for name in ("qstart", "qend", "rstart", "rend", "aligned", "identities"):
            chains[name][missing] = table[name]
        extra = {name: np.asarray(extra[name]) for name in ALIGNED}
        n = int(index.size)
        al = {name: np.concatenate((al[name][keep], extra[name])) for name in ALIGNED}
        rows = np.concatenate((rows, n + np.arange(extra["chain"].size)))
        moved = stable_argsort(al["chain"])  # chain order; a chain's pieces stay in their order
        al, rows = {name: column[moved] for name, column in al.items()}, rows[moved]
        late_texts = {kind: extra_texts[kind] for kind in texts}
        new = np.ones(order.size, dtype=bool)
        new[placed["chain"]] = False  # every chain's blocks may be placed already (all_chains)
        fresh = new[np.asarray(extra_pieces["chain"])]
        placed = {name: np.concatenate((placed[name], np.asarray(extra_pieces[name])[fresh])) for name in PIECES}
        moved = stable_argsort(placed["chain"])
        placed = {name: column[moved] for name, column in placed.items()}
    else:
        al = {name: column[keep] for name, column in al.items()}
    marks.append(("alignments kept", time.perf_counter()))
    carried = all(kind in p.texts for p in parts for kind in texts)
    made = take_texts({kind: [p.texts[kind] for p in parts] + [late_texts[kind]] for kind in texts}, rows) \
        if carried else {}
    marks.append(("texts", time.perf_counter()))
    al["backbone"] = one_to_one(al, qlens, rlens, chains["backbone"][al["chain"]] == 1)
    written_rows = row_of[placed["chain"]] >= 0
    placed = {name: column[written_rows] for name, column in placed.items()}
    # the blocks name their chain's row of the table written (the chain formats read it so), the
    # table and the alignments the pair's chain numbers
    pieces = blocks_of(row_of[placed["chain"]], placed["x0"], placed["xe"], placed["y0"], placed["ye"])
    al["chain"] = number[al["chain"]]
    chains["chain"] = number
    marks.append(("the rest", time.perf_counter()))
    steps = ", ".join(f"{name} {at - before:.2f} s" for (name, at), (_, before) in zip(marks, [("", start)] + marks))
    log.info("pair assembled from %d parts: %d chains (%d in the backbone), %d alignments (%d one-to-one), "
             "%.2f s (%s)", len(parts), order.size, int(chains["backbone"].sum()), al["chain"].size,
             int(al["backbone"].sum()), time.perf_counter() - start, steps)
    return Pair({name: chains[name][written] for name in CHAIN.names}, pieces, al, made,
                None if carried else rows, None if carried else late_texts)


def align_late(query: SeqSet, reference: SeqSet, params: Params, texts: tuple, backend=None):
    """assemble's `late`: chains placed and aligned on both whole genomes (place_and_align, on the
    host or the backend's twins), with their alignments' texts."""

    def late(chains: dict, blocks: dict, chosen):
        table, placed, al = place_and_align(chains, blocks, chosen, query, reference, params, backend)
        return table, placed, al, {kind: text_of(al, query, reference, kind) for kind in texts}

    return late


def record_blocks(lengths, most: int) -> list[np.ndarray]:
    """Records in file order grouped into blocks of at most `most` bases (a longer record alone)."""
    out, size = [], 0
    for index, length in enumerate(np.asarray(lengths, dtype=np.int64)):
        if out and size > 0 and size + int(length) <= most:
            out[-1].append(index)
            size += int(length)
        else:
            out.append([index])
            size = int(length)
    return [np.asarray(b, dtype=np.int64) for b in out]


def fits_whole(query: SeqSet, reference: SeqSet, params: Params) -> bool:
    """Whether a pair is compared as one part (fits_bases of both sides' codes)."""
    return fits_bases(query.total, reference.total, params)


def fits_bases(query: int, reference: int, params: Params) -> bool:
    """Whether sides of these many codes are compared as one part: both within tiling.part_bases, and
    their diagonal keys within 63 bits."""
    most = params.tiling.part_bases
    return query <= most and reference <= most and keys_fit(query, reference, params.seeding.k)


def part_pairs(query: SeqSet, reference: SeqSet, params: Params) -> list[tuple]:
    """(query records, reference records) of each part of a pair, in order; a part past 64-bit
    diagonal keys (two records of billions of bases) is refused in one line."""
    k, most = params.seeding.k, params.tiling.part_bases
    out = []
    for qb in record_blocks(query.lengths, most):
        for rb in record_blocks(reference.lengths, most):
            qt, rt = int(query.lengths[qb].sum()), int(reference.lengths[rb].sum())
            if not keys_fit(qt + GAP * (qb.size + 1), rt + GAP * (rb.size + 1), k):  # as make_seqset lays them
                raise InputError(f"records {query.names[qb[0]]} ({qt} bases) and {reference.names[rb[0]]} ({rt} "
                                 "bases) are too long to compare as one part (64-bit diagonal keys)")
            out.append((qb, rb))
    return out


def align_parts(query: SeqSet, reference: SeqSet, params: Params, backend, texts: tuple, pieces: bool) -> Pair:
    """A pair too large to compare whole, part by part (part_pairs), then assembled; pieces: the chains'
    outputs are asked for (every chain placed, every chain in the pair's chains)."""
    pairs = part_pairs(query, reference, params)
    parts = []
    for number, (qb, rb) in enumerate(pairs, 1):
        q, r = query.subset(qb), reference.subset(rb)
        parts.append(homology(q, r, params, backend, texts, qb, rb, pieces))
        # the part's device arrays (some in reference cycles) and the pool's cached blocks freed before
        # the next part sizes its tiles: left held, they made the second of two 0.9 Gbp parts run out
        gc.collect()
        backend.release()
        log.info("part %d of %d: %d x %d records, %d alignments", number, len(pairs), qb.size, rb.size,
                 parts[-1].alignments["chain"].size)
    return assemble(parts, query.lengths, reference.lengths, params,
                    align_late(query, reference, params, texts, backend), texts, all_chains=pieces)


def write_pair(pair: Pair, records: tuple, paths: dict, meta: dict, params: Params, reference=None,
               query=None, sam_seq: bool = True, variants_if=None) -> dict:
    """An assembled pair's outputs where paths say: the alignments' kinds (align.write_aligned's) and
    the chains' (write_chains); reference, query, sam_seq, variants_if: align.write_aligned's. Returns
    the alignments as written."""
    from .align import write_aligned

    write_chains(pair, records, paths, meta, params)
    return write_aligned(pair.alignments, pair.texts.__getitem__, records, paths, meta, reference, query, sam_seq,
                         variants_if)


def write_chains(pair: Pair, records: tuple, paths: dict, meta: dict, params: Params) -> None:
    """An assembled pair's chains where paths say (chains_paf, chain_file, chains_table)."""
    from .formats import HspWriter, write_chain_text

    def write(kind: str) -> None:
        if kind != "chains_table":
            return write_chain_text(kind, paths[kind], pair.chains, pair.pieces, *records)
        extra = {key: value for key, value in meta.items() if key not in ("query", "reference", "params")}
        with HspWriter(paths[kind], *records, params, extra, record=CHAIN) as writer:
            writer.write(pair.chains)

    with ThreadPoolExecutor(1 if "-" in paths.values() else 3) as pool:  # side by side, but to standard output
        list(pool.map(write, [kind for kind in ("chains_paf", "chain_file", "chains_table") if paths.get(kind)]))
