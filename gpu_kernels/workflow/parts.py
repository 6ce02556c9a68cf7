"""A genome pair's parts on disk: each compare job writes the homology pipeline's part of each of its
bin pairs (pipeline.Part: chains, their blocks, the candidate alignments and their texts) as Parquet
files in its folder; the pair's assemble rule assembles them (pipeline.assemble) into the pair's
chains and the numbers of its alignments, and its alignments rule writes the alignments with the
texts the compare jobs' part_texts jobs made. Nothing is read back from an HSP table to make them."""
from __future__ import annotations

import functools
import json
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..arrays import places
from ..formats.strings import arrow_strings
from ..pipeline import ALIGNED, BLOCKS, PIECES, Part, align_late, assemble, write_chains
from ..params import Params
from ..schema import CHAIN

log = logging.getLogger(__name__)

# a part's tables: file suffix -> (Part's field, its columns)
TABLES = {"chains": ("chains", (*CHAIN.names, "head", "candidate", "tie")), "blocks": ("blocks", BLOCKS),
          "pieces": ("pieces", PIECES), "alignments": ("alignments", ALIGNED),
          "ranks": ("ranks", ("score", "qrec", "rrec", "count"))}


def part_files(prefix: str) -> dict:
    """The files of a part written at prefix (the bin pair's path without its suffix)."""
    return {name: f"{prefix}.{name}.parquet" for name in TABLES}


def write_part(part: Part, prefix: str, text_parts_path: str | None = None) -> None:
    """A part's tables as Parquet files (the alignments' texts as binary columns beside their
    numbers), each written atomically; what the texts are made of (where the part kept it) at
    text_parts_path (default: PREFIX.text_parts.bin), packed (formats.packed)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..formats.files import atomic_path
    from ..formats.packed import save_arrays

    def write(name: str, file: str) -> None:
        field, columns = TABLES[name]
        values = getattr(part, field)
        arrays = {column: pa.array(np.ascontiguousarray(values[column])) for column in columns}
        if name == "alignments":
            for kind, text in part.texts.items():
                arrays[f"text_{kind}"] = arrow_strings(text)
        table = pa.table(arrays)
        # integers delta-packed at zstd's fast level, no dictionaries: a few times faster to write than
        # pyarrow's defaults and smaller (a compare job's part is read once, by its pair's assembly)
        encodings = {f.name: "DELTA_BINARY_PACKED" for f in table.schema if pa.types.is_integer(f.type)}
        with atomic_path(file) as tmp:
            pq.write_table(table, tmp, compression="zstd", compression_level=1, use_dictionary=False,
                           column_encoding=encodings)

    started = time.perf_counter()
    # pyarrow encodes and compresses without the interpreter's lock: the tables and what the texts rule
    # makes the alignments' texts of, side by side
    with ThreadPoolExecutor(5) as pool:
        packed = None if part.text_parts is None else \
            pool.submit(save_arrays, text_parts_path or f"{prefix}.text_parts.bin", part.text_parts)
        for done in [pool.submit(write, name, file) for name, file in part_files(prefix).items()]:
            done.result()
        tables = time.perf_counter() - started
        if packed is not None:
            packed.result()
            sizes = sum(np.asarray(v).nbytes for v in part.text_parts.values())
            log.info("part's tables written in %.2f s, beside them what its texts are made of (%.1f MB) packed, "
                     "%.2f s in all", tables, sizes / 1e6, time.perf_counter() - started)


def write_part_texts(text_parts_path: str, query, qbin: str, reference, rbins: list[str], kinds: tuple, path: str) -> None:
    """The texts (align.text_of's kinds) of a compare job's alignments, from the parts of them it kept
    (text_parts_path, write_part's) and its bins' codes laid out again as the job laid them: string
    tables in one file (formats.strings.save_tables), a string an alignment. A CPU job: the GPU goes on
    to the next compare job meanwhile."""
    from ..align import text_of
    from ..formats.packed import load_arrays
    from ..formats.strings import save_tables
    from .genome import load_bin

    qset, _ = load_bin(query.codes, query.rows, qbin)
    rset, _ = load_bin(reference.codes, reference.rows, rbins)
    al = load_arrays(text_parts_path)
    save_tables(path, {kind: text_of(al, qset, rset, kind) for kind in kinds})
    log.info("%s: texts of %d alignments (%s)", path, al["first"].size, ", ".join(kinds))


def read_part(prefix: str, tables=tuple(TABLES)) -> Part:
    """A part as write_part left it (its tables named in `tables`; the others empty)."""
    import pyarrow.parquet as pq

    fields = {field: {} for field, _ in TABLES.values()}
    texts = {}
    for name, file in part_files(prefix).items():
        if name not in tables:
            continue
        table = pq.read_table(file)
        field, columns = TABLES[name]
        fields[field] = {column: table.column(column).to_numpy() for column in columns}
        if name == "alignments":
            texts = {column[len("text_"):]: table.column(column).combine_chunks()
                     for column in table.column_names if column.startswith("text_")}
    return Part(fields["chains"], fields["blocks"], fields["pieces"], fields["alignments"], texts,
                ranks=fields["ranks"])


def assemble_pair(prefixes: list[str], query, reference, params: Params, paths: dict, meta: dict, texts: tuple,
                  assembled_path: str, all_chains: bool = True, write_all: bool = True,
                  chains_share: float | None = None) -> None:
    """A genome pair's chains and alignments from its parts (read from prefixes, without their texts),
    the chains written where paths say (pipeline.write_chains' kinds), the alignments' numbers, where
    their texts are (`source`) and the late chains' texts (`texts`: align.text_of's kinds) to
    assembled_path, for write_pair_alignments. all_chains: every chain in the chains' outputs, else
    the backbone's; write_all: the chains' outputs hold them all (else the backbone's: under hsps auto,
    where their size estimated before the run is over outputs.auto_share), and with chains_share
    (that share) only where the chains found weigh at most so much too: the estimate's safety net.
    query, reference: the
    genomes (workflow.genome.Genome); the records of backbone
    chains no part aligned are read from their codes (on the host). The alignments' texts are left
    to another job, so that the coverage tables and dotplots, which read the numbers alone, run
    beside it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..formats.files import atomic_path
    from ..formats.strings import save_tables
    from .genome import load_windows
    from .sizing import chains_bytes, fits

    from concurrent.futures import ThreadPoolExecutor

    from .. import native

    # side by side: Parquet's decoding releases the GIL
    with ThreadPoolExecutor(min(8, native.threads())) as pool:
        parts = list(pool.map(read_part, prefixes))
    log.info("%d parts read: %d chains, %d candidate alignments", len(parts),
             sum(int(p.chains["chain"].size) for p in parts), sum(int(p.alignments["chain"].size) for p in parts))

    def late(chains, blocks, chosen):
        """The late chains aligned on windows of the records they lie on (late_windows), read from the
        genomes' codes: each chain its own window of each side, numbered among them here, in the genomes
        again after."""
        windows = late_windows(chains, blocks, chosen, query.lengths, reference.lengths, params)
        sides = [load_windows(genome, *side) for genome, side in zip((query, reference), windows)]
        read = [int((ends - firsts).sum()) for _, firsts, ends in windows]
        whole = [int(genome.lengths[np.unique(records)].sum()) for genome, (records, _, _) in zip((query, reference),
                                                                                                 windows)]
        log.info("late chains placed and aligned on windows of %d query and %d reference bases (their records: "
                 "%d and %d)", *read, *whole)
        local = dict(chains)
        window = places(np.asarray(chains["qrec"]).size, chosen).astype(np.int32)
        local["qrec"], local["rrec"] = window, window  # each chosen chain's own window (the others are not read)
        table, placed, al, made = align_late(*sides, params, texts)(local, blocks, chosen)
        al = dict(al)
        for side, (records, _, _) in zip(("qrec", "rrec"), windows):
            al[side] = records[np.asarray(al[side], dtype=np.int64)].astype(np.int32)
        return table, placed, al, made

    if all_chains and not write_all:
        log.info("the chains' outputs hold the backbone's: every chain would weigh more than outputs.auto_share "
                 "bytes a base of the pair (the estimate printed as the run began)")
    elif all_chains and chains_share is not None:
        counts = [sum(int(p.chains["chain"].size) for p in parts), sum(int(p.blocks["chain"].size) for p in parts)]
        weight = chains_bytes(*counts)
        write_all = fits(weight, int(np.sum(query.lengths) + np.sum(reference.lengths)), chains_share)
        if not write_all:
            log.info("%d chains of %d blocks would take about %.0f MB, over %g bytes a base of the pair, where the "
                     "estimate before the run had them under it: the chains' outputs hold the backbone's "
                     "(outputs.auto_share)", *counts, weight / 1e6, chains_share)
    pair = assemble(parts, query.lengths, reference.lengths, params, late, texts, all_chains, write_all)
    write_chains(pair, (query.names, query.lengths, reference.names, reference.lengths), paths, meta, params)
    numbers = {name: pa.array(np.ascontiguousarray(pair.alignments[name])) for name in ALIGNED}
    numbers["source"] = pa.array(np.asarray(pair.rows, dtype=np.int64))
    os.makedirs(assembled_path, exist_ok=True)
    save_tables(os.path.join(assembled_path, "late_texts.bin"), {kind: pair.late_texts[kind] for kind in texts})
    with atomic_path(os.path.join(assembled_path, "meta.json")) as tmp:  # the alignments' tables say it too
        with open(tmp, "w") as handle:
            json.dump(meta, handle)
    with atomic_path(assembled_alignments(assembled_path)) as tmp:
        pq.write_table(pa.table(numbers), tmp, compression="zstd")


def late_windows(chains: dict, blocks: dict, chosen, qlens, rlens, params: Params) -> tuple:
    """Each chosen chain's window of its query record and of its reference record ((records, firsts,
    ends) a side, in chosen's order): its blocks' span, widened by max_gap and a margin on each side
    and kept within the record. Placement and alignment read a chain's bases within its blocks, and
    its ends' extensions at most max_gap bases past them (ends._end_frames), so the windows hold every
    base they read."""
    chosen = np.asarray(chosen, dtype=np.int64)
    owner = places(np.asarray(chains["qrec"]).size, chosen)[np.asarray(blocks["chain"])]  # a block's chosen chain
    inside = owner >= 0
    owner = owner[inside]
    low, high = np.full((2, chosen.size), np.iinfo(np.int64).max), np.full((2, chosen.size), -1)
    for side, (start, end) in enumerate((("x0", "xe"), ("y0", "ye"))):
        np.minimum.at(low[side], owner, np.asarray(blocks[start])[inside])
        np.maximum.at(high[side], owner, np.asarray(blocks[end])[inside])
    qrec, rrec = (np.asarray(chains[name], dtype=np.int64)[chosen] for name in ("qrec", "rrec"))
    qlen, rlen = np.asarray(qlens, dtype=np.int64)[qrec], np.asarray(rlens, dtype=np.int64)[rrec]
    reverse = np.asarray(chains["strand"])[chosen] == 1
    # the reference blocks lie on the chain's strand: a reverse strand's span, on the forward one
    rlow, rhigh = np.where(reverse, rlen - high[1], low[1]), np.where(reverse, rlen - low[1], high[1])
    margin = params.chaining.max_gap + WINDOW_MARGIN
    return ((qrec, np.maximum(0, low[0] - margin), np.minimum(qlen, high[0] + margin)),
            (rrec, np.maximum(0, rlow - margin), np.minimum(rlen, rhigh + margin)))


WINDOW_MARGIN = 1024  # bases past max_gap on each side of a late chain's window


def assembled_alignments(assembled_path: str) -> str:
    """The Parquet table of an assembled pair's alignments (ALIGNED columns and `source`): what the
    coverage tables and dotplots read of them."""
    return os.path.join(assembled_path, "alignments.parquet")


def write_pair_alignments(assembled_path: str, texts_paths: list, query, reference, paths: dict,
                          sam_seq: bool = True, release: bool = False) -> None:
    """An assembled pair's alignments (assemble_pair's) with their texts, taken from the compare jobs'
    texts (texts_paths, in the parts' order) and the late chains', written where paths say
    (align.write_aligned's kinds), their tables' metadata assemble_pair's. The VCF reads its anchor
    bases from both genomes' memory-mapped codes (a human-sized genome is not copied), as the SAM lines'
    SEQ (sam_seq) the query's; both give the N columns of the cuts where one-to-one alignments meet.
    release: the compare jobs' texts files are removed once every kind the outputs need is taken into
    memory (before the SNP file, the largest, is written: on a human-sized pair they weighed half the
    FASTA beside it); they are this job's alone, temporary, so a failed run makes them again."""
    import pyarrow.parquet as pq

    from ..align import write_aligned
    from ..formats.strings import load_tables, take_strings
    from ..pipeline import texts_of
    from .genome import mapped_genome

    with open(os.path.join(assembled_path, "meta.json")) as handle:
        meta = json.load(handle)
    table = pq.read_table(assembled_alignments(assembled_path))
    al = {name: table.column(name).to_numpy() for name in table.column_names}
    rows = al.pop("source")

    sources = (*texts_paths, os.path.join(assembled_path, "late_texts.bin"))
    needed, taken_kinds = set(texts_of(kind for kind, path in paths.items() if path)), set()

    @functools.lru_cache(maxsize=None)
    def text(kind: str) -> tuple:
        """A kind's texts of the alignments, unpacked from every part and taken in the alignments'
        order when the writer first asks (one kind's packed texts in memory at a time)."""
        with ThreadPoolExecutor(4) as pool:
            tables = list(pool.map(lambda path: load_tables(path, names=[kind])[kind], sources))
        taken = take_strings(tables, rows)
        del tables
        log.info("%s of %d alignments taken from %d parts", kind, rows.size, len(texts_paths))
        taken_kinds.add(kind)
        if release and needed <= taken_kinds:
            freed = 0
            for path in texts_paths:
                try:
                    freed += os.path.getsize(path)
                    os.remove(path)
                except FileNotFoundError:
                    pass
            log.info("the compare jobs' texts removed (%d files, %.2f GB): every kind the outputs need is taken",
                     len(texts_paths), freed / 1e9)
        return taken

    os.makedirs(os.path.dirname(next(p for p in paths.values() if p)) or ".", exist_ok=True)
    # both memory-mapped: the cuts of alignments that meet read their N columns, the VCF its anchor bases
    write_aligned(al, text, (query.names, query.lengths, reference.names, reference.lengths), paths,
                  meta, mapped_genome(reference), mapped_genome(query), sam_seq)
