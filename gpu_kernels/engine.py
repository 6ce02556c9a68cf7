"""One comparison: every query record against every reference record, both strands, tiled.

The orchestrator: it calls the stages in order (load, words, seeds, diagonals, extend, hsps)
through the backend chosen once, and keeps the stage times and counts.
"""
from __future__ import annotations

import logging
import os
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from . import hsps as H
from .backend import NumpyBackend, get_backend
from .diagonals import decode_keys, key_width, keys_fit
from .encode import BORDER
from .errors import InputError
from .fasta import Record, check_lengths, load_fasta, load_pair
from .formats import default_threads
from .result import Result, slice_rows

from .params import Params
from .seeds import KeptSeeds, count_seeds
from .seqset import SeqSet, reverse_complement, seqset_of
from .spaced import seed_pattern, spaced_index, spaced_raw
from .tiles import Tile, grid, split, splittable, tile_words
from .words import drop_frequent

log = logging.getLogger(__name__)


class Stats:
    """Stage times and item counts of one comparison."""

    def __init__(self, backend: NumpyBackend, synced: bool = True):
        self.backend, self.synced = backend, synced
        self.times: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)

    @contextmanager
    def timed(self, stage: str):
        """Add the block's wall time to a stage (device work synchronized at both ends, where synced;
        else the host's time to queue the stage's work)."""
        if self.synced:
            self.backend.synchronize()
        start = time.perf_counter()
        try:
            yield
        finally:
            if self.synced:
                self.backend.synchronize()
            self.times[stage] += time.perf_counter() - start

    def as_dict(self) -> dict:
        """Counts and times (seconds, key suffix _s) as one flat dict."""
        out: dict = {"backend": self.backend.name}
        out.update(self.counts)
        out.update({f"{stage}_s": round(t, 6) for stage, t in self.times.items()})
        return out


def is_path(side) -> bool:
    """Whether a query or reference argument names a file."""
    return isinstance(side, (str, bytes)) or hasattr(side, "__fspath__")


def as_seqsets(query, reference, k: int, soft: bool = False) -> tuple[SeqSet, SeqSet]:
    """SeqSets (on the host) from SeqSets, lists of Records or FASTA paths; two paths are read at once
    (soft: a file's soft-masked bases too, fasta.load_fasta)."""

    def check(seqset: SeqSet, path: str) -> None:
        check_lengths(seqset.names, seqset.lengths, k, path)

    if is_path(query) and is_path(reference):
        return load_pair(str(query), str(reference), check, soft=soft)
    out = []
    for side in (query, reference):
        if is_path(side):
            path = str(side)
            side = load_fasta(path, soft=soft)
            check(side, path)
        if isinstance(side, SeqSet):
            out.append(side)
            continue
        records = list(side)
        if not (records and isinstance(records[0], Record)):
            raise TypeError("query and reference must be SeqSets, Records or FASTA paths")
        out.append(seqset_of(records))
    return out[0], out[1]


def check_width(query: SeqSet, reference: SeqSet, k: int) -> None:
    """Diagonal keys, and the signed sort keys of deduplication built the same way (hsps.lifted), must
    fit in 63 bits."""
    if not keys_fit(query.total, reference.total, k):
        raise InputError(f"the pair is too long for 64-bit diagonal keys ({query.total} x {reference.total} bases);"
                         " compare chromosomes or bins, not whole genomes")


def search_strand(qcodes, words_q, rcodes, rstarts, params: Params, stats: Stats, backend: NumpyBackend,
                  spare: list | None = None, scratch: list | None = None, last: bool = True,
                  seed_codes: tuple | None = None) -> dict:
    """Raw HSPs of the query against one strand of the reference concatenation (on the backend's device).
    spare: a list that holds the host arrays of the strand's words after it, for the other strand's
    (as many words; backend.words' out), or holds them already; scratch: backend.words' scratch, let go
    once the last strand's (last) words are made. seed_codes: spaced seeds' (query, reference strand)
    codes to take windows from (soft-masked bases as borders: seed_windows; None: the codes)."""
    if params.seeding.seed != "exact":
        return search_spaced(qcodes, rcodes, rstarts, params, stats, backend, *(seed_codes or (None, None)))
    k = params.seeding.k
    with stats.timed("words"):
        made = backend.words(rcodes, k, out=spare.pop() if spare else None, scratch=scratch)
        if last and scratch:
            scratch.clear()
        words_r = drop_frequent(*made, rstarts, params.seeding.max_freq)
    stats.counts["words"] += int(words_r[0].size)
    if not backend.seeds_fused:
        return search_tiles(qcodes, words_q, rcodes, words_r, params, stats, backend)
    parts = search_fused(qcodes, words_q, rcodes, words_r, params, stats, backend)
    del words_r  # the reference words are not held while the strand's HSPs are deduplicated (but as spare)
    if spare is not None:
        spare.append(made)
    del made
    with stats.timed("hsps"):
        if not parts:
            return H.HSP.empty(H.HSP.view("raw"), backend.xp)
        raw = H.concat(parts, H.HSP.view("raw"))
        parts.clear()
        return backend.drop_contained(raw)


# Query words a batch of the fused search takes: a batch's kept seeds (a tenth of its seeds in
# repeat-rich genomes) and their HSPs are held at once.
FUSED_BATCH_WORDS = 1 << 21


def search_fused(qcodes, words_q, rcodes, words_r, params: Params, stats: Stats, backend: NumpyBackend) -> list[dict]:
    """Raw HSPs of one strand, a table a batch of query words (not yet deduplicated), seeds filtered
    as they are enumerated (seeds.KeptSeeds, the CPU's way: no tiles, no seed held but the kept ones)."""
    k = params.seeding.k
    rtotal = int(rcodes.size)
    width = key_width(int(qcodes.size), k)
    search = KeptSeeds(qcodes, rcodes, words_q, words_r, k, width)  # no tiles: stats' "tiles" stays 0
    parts = []
    for i0, i1 in search.batches(FUSED_BATCH_WORDS, backend.seed_budget(params.tiling.tile_bytes)):
        with stats.timed("seeds"):
            seeds, keys = search.seeds(i0, i1)
        stats.counts["seeds"] += seeds
        stats.counts["kept_seeds"] += int(keys.size)
        if not keys.size:
            continue
        with stats.timed("diagonals"):
            sq, sr = decode_keys(keys, rtotal, width)
            del keys
        parts.append(extend_seeds(qcodes, rcodes, sq, sr, params, stats, backend))
        del sq, sr
    return parts


def extend_seeds(qcodes, rcodes, sq, sr, params: Params, stats: Stats, backend: NumpyBackend) -> dict:
    """Raw HSPs of kept seeds, the ones long and identical enough (not yet deduplicated)."""
    k = params.seeding.k
    with stats.timed("extend"):
        qstart, qend, score, ids = backend.extend(qcodes, rcodes, sq, sr, k, params.extension)
    stats.counts["extended_seeds"] += int(sq.size)
    with stats.timed("hsps"):
        return backend.passing(qstart, qend, score, ids, sq, sr, params.reporting.min_len,
                               params.extension.min_identity)


# Query windows whose seeds a batch of the spaced search counts at once on the host; a device takes
# DEVICE_BATCHES of them (its counts and their sums stay there)
SPACED_BATCH_WINDOWS = 1 << 22
DEVICE_BATCHES = 8


def search_spaced(qcodes, rcodes, rstarts, params: Params, stats: Stats, backend: NumpyBackend, qseed=None,
                  rseed=None) -> dict:
    """Raw HSPs of one strand from spaced seeds (spaced.py): the reference's keys sorted once, then
    batches of query windows whose seeds fit the seed budget, each seed extended (the shadowed ones
    left out), the HSPs scoring hsp_threshold kept, copies and contained HSPs dropped. qseed, rseed:
    the codes windows are read from (seed_windows; the codes by default); the extension reads the codes."""
    qseed = qcodes if qseed is None else qseed
    rseed = rcodes if rseed is None else rseed
    seeding, ext = params.seeding, params.extension
    care, span = seed_pattern(seeding.seed)
    transitions = bool(seeding.transitions)
    with stats.timed("words"):
        index = spaced_index(*drop_frequent(*backend.spaced_words(rseed, care, span), rstarts, seeding.max_freq),
                             care)
    stats.counts["words"] += int(index[0].size)
    budget = backend.seed_budget(params.tiling.tile_bytes)
    xp, parts, nq = backend.xp, [], int(qcodes.size)
    batch = SPACED_BATCH_WINDOWS * (1 if backend.on_host else DEVICE_BATCHES)
    for b0 in range(0, nq, batch):
        b1 = min(nq, b0 + batch)
        with stats.timed("seeds"):
            ends = xp.cumsum(backend.spaced_counts(qseed, b0, b1, care, span, transitions, index))
        at = 0
        while at < b1 - b0:  # windows [at, stop) of the batch: at least one, their seeds within budget
            base = int(ends[at - 1]) if at else 0
            stop = int(xp.searchsorted(ends, xp.asarray([base + budget], dtype=ends.dtype), side="right")[0])
            stop = min(max(at + 1, stop), b1 - b0)
            offsets = xp.concatenate((xp.zeros(1, dtype=xp.int64), ends[at:stop] - base))
            with stats.timed("seeds"):
                sq, sr = backend.spaced_fill(qseed, b0 + at, b0 + stop, care, span, transitions, index, offsets)
            stats.counts["seeds"] += int(sq.size)
            with stats.timed("extend"):
                hsp = backend.spaced_extend(qcodes, rcodes, (qseed, rseed), sq, sr, care, span, transitions, index,
                                            ext.hsp_xdrop, bool(ext.entropy), ext.hsp_threshold)
                kept = int((hsp[2] >= 0).sum())  # the shadowed seeds' score is -1
            stats.counts["kept_seeds"] += kept
            stats.counts["extended_seeds"] += kept
            with stats.timed("hsps"):
                parts.append(backend.drop_contained(spaced_raw(*hsp, sq, sr, ext.hsp_threshold)))
            del sq, sr, hsp, offsets
            at = stop
        del ends
    with stats.timed("hsps"):
        if not parts:
            return H.HSP.empty(H.HSP.view("raw"), xp)
        return parts[0] if len(parts) == 1 else backend.drop_contained(H.concat(parts, H.HSP.view("raw")))


def search_tiles(qcodes, words_q, rcodes, words_r, params: Params, stats: Stats, backend: NumpyBackend) -> dict:
    """Raw HSPs of one strand from tiles of sorted seed keys (the GPU's way), each tile's seeds
    filtered by their sorted diagonal keys, then extended.

    Tiles are taken from a stack: each is counted exactly from its word lists and cut before any
    seed is generated if its seeds would not fit; a device out-of-memory error halves it too."""
    k = params.seeding.k
    qtotal, rtotal = int(qcodes.size), int(rcodes.size)
    width = key_width(qtotal, k)
    budget = backend.seed_budget(params.tiling.tile_bytes)
    todo = grid(qtotal, rtotal, params.tiling.tile_len)[::-1]
    parts = []
    while todo:
        tile = todo.pop()
        groups = qk = qp = rk = rp = None  # an out-of-memory error may come before any of them is bound
        try:
            with stats.timed("seeds"):
                qk, qp, rk, rp = tile_words(words_q, words_r, tile, k, qtotal, rtotal, backend.words_in)
                groups = backend.seed_groups(qk, rk)
                count = count_seeds(groups)
            if count > budget and splittable(tile, k):
                # as many strips as the count asks for, and a quarter more: seeds are not spread evenly,
                # and a strip still too full is cut again
                todo.extend(reversed(split(tile, -(-5 * count // (4 * budget)))))
                continue
            stats.counts["tiles"] += 1
            if count:
                parts.append(search_tile(qcodes, rcodes, tile, groups, qp, rp, width, params, stats, backend))
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
        if not parts:
            return H.HSP.empty(H.HSP.view("raw"), backend.xp)
        return parts[0] if len(parts) == 1 else backend.drop_contained(H.concat(parts, H.HSP.view("raw")))


def search_tile(qcodes, rcodes, tile: Tile, groups, qp, rp, width: int, params: Params, stats: Stats,
                backend: NumpyBackend) -> dict:
    """Raw HSPs of the seeds one tile owns, filtered and deduplicated within the tile (on the backend)."""
    k = params.seeding.k
    rtotal = int(rcodes.size)
    with stats.timed("seeds"):
        keys = backend.seed_keys(groups, qp, rp, rtotal, width)
    with stats.timed("diagonals"):
        # the margins' seeds belong to other tiles: the seed count is the same whatever the tiling
        owned, sq, sr = backend.kept_seeds(keys, k, tile.q0, tile.r0, rtotal, width)
        del keys
    stats.counts["seeds"] += owned
    stats.counts["kept_seeds"] += int(sq.size)
    raw = extend_seeds(qcodes, rcodes, sq, sr, params, stats, backend)
    with stats.timed("hsps"):
        return backend.drop_contained(raw)


def seed_windows(seqset: SeqSet, backend: NumpyBackend):
    """The codes spaced seeds take windows from where the side's soft-masked bases are known
    (fasta.soft_masked, with soft_mask): those bases as borders, which no window holds; else None."""
    soft = getattr(seqset, "soft", None)
    if soft is None or not soft.any():
        return None
    return backend.to_device(np.where(soft == 1, np.uint8(BORDER), seqset.codes))


class Loaded:
    """A pair read (both SeqSets on the host), its backend made and the device being readied: what
    load gives and compare_loaded takes. synced_times=False: the stages' times are the host's time to
    queue their work, not the device's (a many-genomes pair's turn: a synchronize a stage left the
    host idle while the device ran, and the device idle while the host queued the next stage)."""

    def __init__(self, query: SeqSet, reference: SeqSet, backend: NumpyBackend, ready, sources: dict, start: float,
                 synced_times: bool = True, then=None):
        self.query, self.reference, self.backend, self.ready = query, reference, backend, ready
        self.sources, self.start, self.synced_times = sources, start, synced_times
        self.then = then  # what load's `then` answered

    def wait(self) -> None:
        """The device readied (the warm-up's kernels compiled) before a stage runs on it."""
        if self.ready is not None:
            self.ready.result()
            self.ready = None


def fasta_stamp(path: str) -> str:
    """A FASTA file's size and modification time, as a table's metadata records them (a later reader
    of its sequences refuses a file changed since: workflow.chaining.find_sides)."""
    info = os.stat(path)
    return f"{info.st_size}:{info.st_mtime_ns}"


def fasta_sources(query, reference) -> dict:
    """The files compared (those given as paths), as a table's metadata names them: absolute, so that a
    reader in another folder finds them, with their stamps."""
    sources = {}
    for side, path in (("query", query), ("reference", reference)):
        if is_path(path) and os.path.isfile(path):
            sources[f"{side}_fasta"] = os.path.abspath(str(path))
            sources[f"{side}_fasta_stamp"] = fasta_stamp(str(path))
        elif is_path(path):
            sources[f"{side}_fasta"] = str(path)
    return sources


def load(query, reference, params: Params, backend: str | NumpyBackend = "numpy", then=None) -> Loaded:
    """Both sides read (FASTA paths, lists of fasta.Records or SeqSets) while the backend is made.
    then(query, reference): run on the reading thread once both are read, still beside the backend's
    start; its answer is the Loaded's `then`."""
    start = time.perf_counter()
    sources = fasta_sources(query, reference)

    def read():
        sides = as_seqsets(query, reference, params.seeding.k, params.seeding.soft_mask)
        return sides, None if then is None else then(*sides)

    # The files are read on a thread (without the interpreter's lock) while the backend is made (CuPy
    # imported, about 0.4 s) and the device readied on another (not in stats.timed: its synchronize
    # would make the CUDA context first, on this thread).
    with ThreadPoolExecutor(1, thread_name_prefix="read") as pool:
        reading = pool.submit(read)
        backend = get_backend(backend) if isinstance(backend, str) else backend
        log.debug("backend %s made (%.2f s)", backend.name, time.perf_counter() - start)
        ready = backend.warm_up(params)
        (query, reference), answer = reading.result()
        log.debug("files read (%.2f s)", time.perf_counter() - start)
    return Loaded(query, reference, backend, ready, sources, start, then=answer)


def compare(query, reference, params: Params | None = None, backend: str | NumpyBackend = "numpy",
            loaded=None) -> Result:
    """Compare every query record with every reference record on the strands asked for.

    query and reference: FASTA paths, lists of fasta.Records or SeqSets; backend: a name for
    get_backend (numpy, cupy, auto) or a backend object. loaded: called once the sequences are on the
    device, before the first kernel (a workflow job that shares its device takes its turn there)."""
    params = params or Params()
    return compare_loaded(load(query, reference, params, backend), params, loaded)


def compare_loaded(loaded: Loaded, params: Params, on_device=None) -> Result:
    """compare, once load has read the pair; on_device(): compare's `loaded`."""
    k = params.seeding.k
    query, reference, backend, sources, start = (loaded.query, loaded.reference, loaded.backend, loaded.sources,
                                                  loaded.start)
    stats = Stats(backend, loaded.synced_times)
    check_width(query, reference, k)
    # copied while the kernels are readied (a copy from pageable memory: about 1.2 GB/s on the H100
    # host); the copy waits for the CUDA context the warm-up is making, and makes no kernel
    qcodes = backend.to_device(query.codes)
    rcodes = backend.to_device(reference.codes)
    log.debug("sequences on the device (%.2f s)", time.perf_counter() - start)
    if loaded.ready is not None:
        loaded.wait()
        log.debug("device ready (%.2f s)", time.perf_counter() - start)
    backend.synchronize()
    stats.times["load"] = time.perf_counter() - start
    if on_device is not None:
        on_device()
    log.info("load: query %d records, %d bp; reference %d records, %d bp; backend %s (%.2f s)", len(query.names),
             int(query.lengths.sum()), len(reference.names), int(reference.lengths.sum()), backend.name, stats.times["load"])
    # on the host, the words' sort buffer (and below the forward strand's word arrays) serve the next
    # word set too: memory that size faulted in afresh costs more than the sort's own passes there
    scratch = [] if backend.on_host else None
    if params.seeding.seed == "exact":
        with stats.timed("words"):
            words_q = drop_frequent(*backend.words(qcodes, k, scratch=scratch), query.starts, params.seeding.max_freq)
        stats.counts["words"] += int(words_q[0].size)
        log.info("words: %d query words of k = %d", stats.counts["words"], k)
    else:
        words_q = None  # spaced seeds read each query window's key as they look it up
        log.info("words: spaced seed %s, %s", params.seeding.seed,
                 "a transition held" if params.seeding.transitions else "no transition")
    tables = []
    spare = [] if backend.on_host else None
    qseed, rseed = seed_windows(query, backend), seed_windows(reference, backend)
    for strand, name in ((0, "forward"), (1, "reverse")):
        if params.seeding.strands not in (name, "both"):
            continue
        codes = rcodes if strand == 0 else reverse_complement(rcodes)
        starts = reference.starts if strand == 0 else reference.reverse_starts()[::-1]
        rseed_strand = rseed if strand == 0 or rseed is None else reverse_complement(rseed)
        raw = search_strand(qcodes, words_q, codes, starts, params, stats, backend, spare, scratch,
                            last=strand == 1 or params.seeding.strands == "forward",
                            seed_codes=(qseed, rseed_strand))
        with stats.timed("hsps"):
            tables.append(backend.to_records(raw, strand, query, reference))
        stats.counts[f"hsps_{name}"] = int(raw["qstart"].size)
        del raw
        log.info("%s strand: %d seeds so far, %d kept, %d HSPs; words %.2f s, seeds %.2f s, diagonals %.2f s, "
                 "extend %.2f s", name, stats.counts["seeds"], stats.counts["kept_seeds"],
                 stats.counts[f"hsps_{name}"], stats.times["words"], stats.times["seeds"], stats.times["diagonals"],
                 stats.times["extend"])
    # the query words, the reverse strand and the reused buffers are not held while the table is put in order
    words_q = codes = spare = scratch = qseed = rseed = rseed_strand = None
    # the host buffers a write of this table will copy its pages into, readied while it is put in order
    backend.reserve_pages(min(sum(int(t["qstart"].size) for t in tables), slice_rows(default_threads())))
    with stats.timed("hsps"):
        nq, nr = len(query.names), len(reference.names)
        table = H.concat(tables, H.HSP.stored, backend.xp)
        del tables[:]
        table = H.sort_rows(table, nq, nr)
        stats.counts.update(H.summarize(table, nq, backend))
    stats.times["total"] = time.perf_counter() - start
    log.info("hsps: %d in the canonical order, query coverage %.2f %% (%.2f s); compare %.2f s", stats.counts["hsps"],
             100 * stats.counts["query_covered"] / max(1, int(query.lengths.sum())), stats.times["hsps"], stats.times["total"])
    result = Result(table, query, reference, params, stats.as_dict(), backend, sources)
    result.codes = (qcodes, rcodes)  # on the backend's device: the alignments read them there
    return result
