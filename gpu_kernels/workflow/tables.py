"""A genome pair's coverage tables: per chromosome pair, per chromosome of each genome, per genome."""
from __future__ import annotations

import numpy as np

from ..backend import get_backend
from ..coverage import STRANDS, table_coverage
from ..formats import write_tsv
from ..schema import HSP
from .genome import Genome


def coverage_tables(hsps_path: str, query: Genome, reference: Genome, pairs_path: str, query_path: str,
                    reference_path: str, genomes_path: str, backend: str = "numpy", threads: int = 2) -> None:
    """Coverage of both genomes (unions of intervals on the backend's device), forward, reverse and
    both strands: per chromosome pair with HSPs (each side), per query chromosome, per reference
    chromosome, and per genome. threads: the table's reading threads (on the CuPy backend)."""
    import pandas as pd

    nq, nr = len(query.names), len(reference.names)
    engine = get_backend(backend)
    # a batch of row groups at a time: memory holds a batch and the covered segments, not the table
    longest = max(int(query.lengths.max(initial=0)), int(reference.lengths.max(initial=0)))
    chunks = engine.table_batches(hsps_path, HSP.view("coverage"), engine.batch_rows, longest < 2**31, threads)
    coverage = table_coverage(chunks, nq, nr, engine.xp)
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
