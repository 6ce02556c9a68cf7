"""One comparison: every query record against every reference record, both strands, tiled."""
from __future__ import annotations

import logging
import time
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field


from . import hsps as H
from .coverage import union_length
from .backend import Backend, get_backend
from .diagonals import decode_keys, filter_keys, key_width
from .extend import pair_tables
from .fasta import Record, check_lengths
from .errors import InputError
from .params import Params
from .encode import reverse_complement
from .seqset import SeqSet, seqset_of
from .seeds import count_seeds
from .tiles import Tile, grid, split, splittable, tile_words
from .words import drop_frequent

log = logging.getLogger(__name__)


@dataclass
class Result:
    """The HSP table of a comparison, the record tables of both sides, and the job's stats."""

    hsps: dict
    query: SeqSet
    reference: SeqSet
    params: Params
    stats: dict = field(default_factory=dict)

    def coverage(self) -> float:
        """Fraction of query bases inside at least one HSP (either strand)."""
        h = self.hsps
        covered = union_length(h["qrec"], h["qstart"], h["qend"], self.query.lengths.size)
        return int(covered.sum()) / max(1, int(self.query.lengths.sum()))


class Stats:
    """Stage times and item counts of one comparison."""

    def __init__(self, backend: Backend):
        self.backend = backend
        self.times: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)

    @contextmanager
    def timed(self, stage: str):
        """Add the block's wall time to a stage (device work synchronized at both ends)."""
        self.backend.synchronize()
        start = time.perf_counter()
        try:
            yield
        finally:
            self.backend.synchronize()
            self.times[stage] += time.perf_counter() - start

    def as_dict(self) -> dict:
        """Counts and times (seconds, key suffix _s) as one flat dict."""
        out: dict = {"backend": self.backend.name}
        out.update(self.counts)
        out.update({f"{stage}_s": round(t, 6) for stage, t in self.times.items()})
        return out


def as_seqset(side, k: int, backend: Backend) -> SeqSet:
    """A SeqSet from a SeqSet, a list of Records or a FASTA path (read by the backend)."""
    if isinstance(side, SeqSet):
        return side
    if isinstance(side, (str, bytes)) or hasattr(side, "__fspath__"):
        path = str(side)
        seqset = backend.load_fasta(path)
        check_lengths(seqset.names, seqset.lengths, k, path)
        return seqset
    records = list(side)
    if records and isinstance(records[0], Record):
        return seqset_of(records)
    raise TypeError("query and reference must be SeqSets, Records or FASTA paths")


def check_width(query: SeqSet, reference: SeqSet, k: int) -> None:
    """Diagonal keys must fit in 64 bits."""
    if (query.total + reference.total + 1) * key_width(query.total, k) >= 1 << 64:
        raise InputError(f"the pair is too long for 64-bit diagonal keys ({query.total} x {reference.total} bases);"
                         " compare chromosomes or bins, not whole genomes")


def search_strand(qcodes, words_q, rcodes, rstarts, params: Params, stats: Stats, backend: Backend) -> dict:
    """Raw HSPs of the query against one strand of the reference concatenation (host arrays).

    Tiles are taken from a stack: each is counted exactly from its word lists and halved before
    any seed is generated if its seeds would not fit; a device out-of-memory error halves it too.
    """
    k = params.k
    qtotal, rtotal = int(qcodes.size), int(rcodes.size)
    width = key_width(qtotal, k)
    tables = pair_tables(params.match, params.mismatch, params.n_score)
    with stats.timed("words"):
        words_r = drop_frequent(*backend.words(rcodes, k), rstarts, params.max_freq)
    stats.counts["words"] += int(words_r[0].size)
    budget = backend.seed_budget(params.tile_bytes)
    todo = grid(qtotal, rtotal, params.tile_len)[::-1]
    parts = []
    while todo:
        tile = todo.pop()
        try:
            with stats.timed("seeds"):
                qk, qp, rk, rp = tile_words(words_q, words_r, tile, k, qtotal, rtotal)
                groups = backend.seed_groups(qk, rk)
                count = count_seeds(groups)
            if count > budget and splittable(tile, k):
                todo.extend(reversed(split(tile)))
                continue
            stats.counts["tiles"] += 1
            if count:
                parts.append(search_tile(qcodes, rcodes, tile, groups, qp, rp, width, tables, params, stats, backend))
        except backend.oom_errors:
            del groups, qk, qp, rk, rp
            backend.release()
            if not splittable(tile, k):
                raise
            log.warning("out of memory in tile %s: split in two", tile)
            stats.counts["retries"] += 1
            todo.extend(reversed(split(tile)))
        if stats.counts["tiles"] % 16 == 0 and todo:
            log.info("%d tiles done, %d to go", stats.counts["tiles"], len(todo))
    with stats.timed("hsps"):
        raw = parts[0] if len(parts) == 1 else H.drop_contained(H.concat(parts, H.RAW))
        raw = {name: backend.to_host(column) for name, column in raw.items()}
    return raw


def search_tile(qcodes, rcodes, tile: Tile, groups, qp, rp, width: int, tables, params: Params, stats: Stats,
                backend: Backend) -> dict:
    """Raw HSPs of the seeds one tile owns, filtered and deduplicated within the tile (on the backend)."""
    k = params.k
    rtotal = int(rcodes.size)
    with stats.timed("seeds"):
        keys = backend.tile_keys(groups, qp, rp, rtotal, width)
    stats.counts["seeds"] += int(keys.size)
    with stats.timed("diagonals"):
        keys = filter_keys(keys, k)
        sq, sr = decode_keys(keys, rtotal, width)
        del keys
        owned = (sq >= tile.q0) & (sr >= tile.r0)
        sq, sr = sq[owned], sr[owned]
    stats.counts["kept_seeds"] += int(sq.size)
    with stats.timed("extend"):
        sq, sr, qstart, qend, score, ids = backend.extend(qcodes, rcodes, sq, sr, k, tables, params)
        raw = {"qstart": qstart, "qend": qend, "rstart": sr - (sq - qstart), "rend": sr + (qend - sq),
               "score": score, "identities": ids}
    stats.counts["extended_seeds"] += int(sq.size)
    with stats.timed("hsps"):
        raw = H.take(raw, H.passes(raw, params.min_len, params.min_identity))
        return H.drop_contained(raw)


def compare(query, reference, params: Params | None = None, backend: str = "numpy") -> Result:
    """Compare every query record with every reference record on the strands asked for."""
    params = params or Params()
    engine = get_backend(backend)
    stats = Stats(engine)
    start = time.perf_counter()
    with stats.timed("load"):
        query = as_seqset(query, params.k, engine)
        reference = as_seqset(reference, params.k, engine)
        check_width(query, reference, params.k)
        qcodes = engine.to_device(query.codes)
        rcodes = engine.to_device(reference.codes)
    with stats.timed("words"):
        words_q = drop_frequent(*engine.words(qcodes, params.k), query.starts, params.max_freq)
    stats.counts["words"] += int(words_q[0].size)
    tables = []
    for strand, name in ((0, "forward"), (1, "reverse")):
        if params.strands not in (name, "both"):
            continue
        codes = rcodes if strand == 0 else reverse_complement(rcodes)
        starts = reference.starts if strand == 0 else reference.reverse_starts()[::-1]
        raw = search_strand(qcodes, words_q, codes, starts, params, stats, engine)
        tables.append(H.to_records(raw, strand, query, reference))
        stats.counts[f"hsps_{name}"] = int(raw["qstart"].size)
    hsps = H.concat(tables)  # ordered by strand, then diagonal, qstart and -qend: the same on every backend
    stats.counts["hsps"] = int(hsps["qstart"].size)
    stats.counts.update(engine.counters())
    stats.times["total"] = time.perf_counter() - start
    return Result(hsps, query, reference, params, stats.as_dict())
