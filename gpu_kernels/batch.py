"""Several query genomes against one reference in one compare: their records laid end to end as one
query set, the HSPs found in one pass (engine.compare_loaded) and split back by genome. An HSP is a
record pair's (its words, seeds, diagonals and extension never cross a record's borders, and word
frequencies are counted per record), so each genome's HSPs are those of its pair compared alone: a
many-genomes row on a device pays a pass's launches once for several small pairs, not once a pair.
"""
from __future__ import annotations

import numpy as np

from . import hsps as H
from .engine import Loaded, compare_loaded
from .pipeline import fits_bases
from .result import Result
from .seqset import SeqSet, make_seqset


def batches(pairs: list[tuple], total, most: int) -> list[list[int]]:
    """The pairs' indices in runs of one reference (pair[1]) whose queries' bases (total(name)) sum
    to most or less, in order; a pair's query over most alone makes a run of its own."""
    runs, bases = [], 0
    for at, (query, reference) in enumerate(pairs):
        size = total(query)
        if runs and pairs[runs[-1][-1]][1] == reference and bases + size <= most:
            runs[-1].append(at)
            bases += size
        else:
            runs.append([at])
            bases = size
    return runs


def joined(queries: list[SeqSet]) -> tuple[SeqSet, np.ndarray]:
    """The queries' records end to end as one SeqSet, and each query's first record in it (and the
    count after the last)."""
    codes = [np.asarray(q.codes) for q in queries]
    names = [f"{i}:{name}" for i, q in enumerate(queries) for name in q.names]
    arrays = [c[s:s + n] for q, c in zip(queries, codes) for s, n in zip(q.starts.tolist(), q.lengths.tolist())]
    first = np.concatenate(([0], np.cumsum([len(q.names) for q in queries]))).astype(np.int64)
    return make_seqset(names, arrays), first


def fits_together(queries: list[SeqSet], reference: SeqSet, params) -> bool:
    """Whether the queries joined fit one compare with the reference, as pipeline.fits_whole says of
    a pair (their codes' sum: a little over the joined set's)."""
    return fits_bases(sum(q.total for q in queries), reference.total, params)


def compare_queries(queries: list[SeqSet], reference: SeqSet, backend, ready, params, start: float) -> list[Result]:
    """Each query's Result against the reference, found in one compare and handed to the host
    (Result.hand_to_host), as compare_loaded and hand_to_host would give it alone but for its stats:
    the HSPs' counts of its own, and the pass's seed and word counts left out (they are the pass's)."""
    query, first = joined(queries)
    whole = compare_loaded(Loaded(query, reference, backend, ready, {}, start, synced_times=False), params)
    whole.hand_to_host()
    table, host = whole.table, whole.backend
    bounds = np.searchsorted(table["qrec"], first, side="left")
    out = []
    for i, q in enumerate(queries):
        part = {name: column[bounds[i]:bounds[i + 1]] for name, column in table.items()}
        part["qrec"] = (part["qrec"] - first[i]).astype(table["qrec"].dtype)
        reverse = int(np.count_nonzero(part["strand"]))
        stats = {"backend": whole.stats["backend"], **H.summarize(part, len(q.names), host),
                 "hsps_forward": int(part["strand"].size) - reverse, "hsps_reverse": reverse}
        out.append(Result(part, q, reference, params, stats, host))
    return out
