"""A genome pair's parts on disk: each compare job writes the homology pipeline's part of each of its
bin pairs (pipeline.Part: chains, their blocks, the candidate alignments and their texts) as Parquet
files in its folder, and the pair's alignments rule assembles them (pipeline.assemble) into the
pair's chains and alignments. Nothing is read back from an HSP table to make them."""
from __future__ import annotations

import logging
import os

import numpy as np

from ..formats.strings import arrow_strings
from ..pipeline import ALIGNED, BLOCKS, PIECES, Part, align_late, assemble, write_pair
from ..params import Params
from ..schema import CHAIN

log = logging.getLogger(__name__)

# a part's tables: file suffix -> (Part's field, its columns)
TABLES = {"chains": ("chains", (*CHAIN.names, "head", "candidate")), "blocks": ("blocks", BLOCKS),
          "pieces": ("pieces", PIECES), "alignments": ("alignments", ALIGNED)}


def part_files(prefix: str) -> dict:
    """The files of a part written at prefix (the bin pair's path without its suffix)."""
    return {name: f"{prefix}.{name}.parquet" for name in TABLES}


def write_part(part: Part, prefix: str) -> None:
    """A part's tables as Parquet files (the alignments' texts as binary columns beside their
    numbers), each written atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..formats.files import atomic_path

    for name, file in part_files(prefix).items():
        field, columns = TABLES[name]
        values = getattr(part, field)
        arrays = {column: pa.array(np.ascontiguousarray(values[column])) for column in columns}
        if name == "alignments":
            for kind, text in part.texts.items():
                arrays[f"text_{kind}"] = arrow_strings(text)
        with atomic_path(file) as tmp:
            pq.write_table(pa.table(arrays), tmp, compression="zstd")


def read_part(prefix: str) -> Part:
    """A part as write_part left it."""
    import pyarrow.parquet as pq

    fields = {}
    texts = {}
    for name, file in part_files(prefix).items():
        table = pq.read_table(file)
        field, columns = TABLES[name]
        fields[field] = {column: table.column(column).to_numpy() for column in columns}
        if name == "alignments":
            texts = {column[len("text_"):]: table.column(column).combine_chunks()
                     for column in table.column_names if column.startswith("text_")}
    return Part(fields["chains"], fields["blocks"], fields["pieces"], fields["alignments"], texts)


def assemble_pair(prefixes: list[str], query, reference, params: Params, paths: dict, meta: dict,
                  backend: str = "numpy") -> None:
    """A genome pair's chains and alignments from its parts (read from prefixes), written where paths
    say (pipeline.write_pair's kinds). query, reference: the genomes (workflow.genome.Genome); their
    codes are read only where a backbone chain was aligned by no part."""
    from ..pipeline import texts_of
    from .genome import WHOLE, load_bin

    texts = texts_of(kind for kind, path in paths.items() if path)
    parts = [read_part(prefix) for prefix in prefixes]
    log.info("%d parts read: %d chains, %d candidate alignments", len(parts),
             sum(int(p.chains["chain"].size) for p in parts), sum(int(p.alignments["chain"].size) for p in parts))

    def late(chains, blocks):
        sides = [load_bin(g.codes, g.rows, WHOLE)[0] for g in (query, reference)]
        engine = None
        if backend == "cupy":
            from ..backend import get_backend

            engine = get_backend("cupy")
        return align_late(*sides, params, texts, engine)(chains, blocks)

    pair = assemble(parts, query.lengths, reference.lengths, params, late, texts)
    os.makedirs(os.path.dirname(next(p for p in paths.values() if p)) or ".", exist_ok=True)
    write_pair(pair, (query.names, query.lengths, reference.names, reference.lengths), paths, meta, params)
