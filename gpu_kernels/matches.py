"""Exact-match modes: maximal exact matches (MEMs) and maximal unique matches (MUMs), as MUMmer defines them.

Definitions, the ones `mummer -maxmatch -b -c` and `mummer -mum -b -c` use:
- A match is a query substring equal to a reference substring, upper and lower case alike; any
  non-ACGT letter counts as N, and N matches N (MUMmer without -n). A MEM is a match of length
  >= L that cannot be extended left or right (record ends stop it).
- Reverse matches are matches of the reverse complement of each query record.
- A MUM is a MEM whose string occurs exactly once in the reference (all records) and exactly once
  in its query record (on that strand).

Algorithm: words of k = min(L, 21) symbols, 3 bits a symbol; the reference's words are built once
for both query strands. Only left-maximal pairs of equal words (the symbols before the two words
differ, or a record starts) are walked to the right, once, and no pair is stored: each MEM is found
exactly once, at its left end. CPU: matches.c, threads taking parts of the query words, every pair
visited. CuPy: matches.cu, the reference words of a key ordered by the symbol before them, so a
query word skips the pairs that extend left unread; its own thread walks the rest, or blocks share
them where there are many. Occurrences are counted from the MEM set itself: a match string occurs
in the reference once for every MEM that contains its query interval, and in the query once for
every MEM (of that query record and strand) that contains its reference interval. A reference whose
words do not fit the device is matched a tile of whole records at a time (reference_tiles), the
tiles' MEMs put in the order one pass gives, MUMs then picked over all of them.
"""
from __future__ import annotations

import logging
import time

import numpy as np

from . import native
from .arrays import (BLOCK, MEM_CHUNK, MEM_LIGHT, array_module, blocks, count, cupy, gather, kernel, running_max,
                     stable_argsort)
from .encode import BORDER
from .hsps import in_order, order_by
from .seeds import PARTS_PER_THREAD, key_batches
from .seqset import SeqSet, record_slice, reverse_complement
from .words import MAX_K, compiled_words
from .matches_runs import blanked_records, log_lap, all_n_key, n_run_mems, whole_matches
from .mums import short_mums, unique_mask, word_floor
from .match_batches import MATCH_ROWS, MatchSpill, TooManyMatches, bounded_batches, run_end

QUERY_BATCH = 32_000_000  # query bases matched at once (whole records)
MEM_BATCH_WORDS = 1 << 22  # query words whose pairs the CPU enumerates at once

log = logging.getLogger(__name__)


def match_words(codes, k: int):
    """(keys, positions) of the words of k symbols (3 bits each: N a fifth symbol) with no border
    inside, sorted by key, positions in order within a key (words.c)."""
    return compiled_words(codes, k, 3)


def _position_words_cupy(codes, k: int):
    """match_words' words on the device (matches.cu's match_keys), in position order."""
    cp = cupy()
    n = max(0, codes.size - k + 1)
    keys = cp.empty(n, dtype=cp.uint64)
    valid = cp.empty(n, dtype=cp.bool_)
    if n:
        kernel("matches.cu", "match_keys")((blocks(n),), (BLOCK,), (codes, cp.int64(n), cp.int32(k), keys, valid))
    pos = cp.flatnonzero(valid)
    return keys[pos], pos


def match_words_cupy(codes, k: int):
    """match_words on the device (CuPy's stable radix sort); positions int64."""
    keys, pos = _position_words_cupy(codes, k)
    order = stable_argsort(keys)
    return keys[order], pos[order]


def match_k(min_match: int) -> int:
    """The word length of the exact-match modes."""
    return min(min_match, MAX_K)


def reference_words(rcodes, min_match: int):
    """The reference's match words, once for both query strands: all of them, sorted (matches.c)."""
    return match_words(rcodes, match_k(min_match))


def reference_words_cupy(rcodes, min_match: int):
    """reference_words on the device, with the symbol before each word (BORDER where a record starts):
    (keys, symbols before, positions), ordered by key, then by that symbol (CuPy's stable radix sorts),
    so that matches.cu skips the words of one key whose pairs extend to the left in one run."""
    cp = cupy()
    keys, pos = _position_words_cupy(rcodes, match_k(min_match))
    before = rcodes[cp.maximum(pos - 1, 0)]
    before[pos == 0] = BORDER
    order = cp.argsort(before, kind="stable")
    order = order[cp.argsort(keys[order], kind="stable")]
    return keys[order], before[order], pos[order]


def strand_mems(qcodes, rcodes, rwords, min_match: int, limit: int | None = None):
    """MEMs (qstart, rstart, length) between two code arrays, unique rows, sorted by (qstart, rstart).

    Every pair of equal words is visited on all cores and only left-maximal ones are walked (matches.c),
    query words a batch at a time; nothing but the MEMs is held. Past `limit` MEMs it stops and
    raises TooManyMatches with their number estimated from the words walked so far."""
    k = match_k(min_match)
    qkeys, qpos = match_words(qcodes, k)
    allowed = qkeys != np.uint64(all_n_key(k))  # the all-N words' MEMs come from the N runs (n_run_mems)
    if not allowed.all():
        qkeys, qpos = qkeys[allowed], qpos[allowed]
    del allowed
    rkeys, rpos = rwords
    size = max(qpos.dtype.itemsize, rpos.dtype.itemsize)
    qpos, rpos = (p.astype(f"i{size}", copy=False) for p in (qpos, rpos))
    qcodes, rcodes = np.ascontiguousarray(qcodes), np.ascontiguousarray(rcodes)
    cpu, threads = native.cpu(), native.threads()
    unused = np.zeros(0, dtype=np.uint8)  # mem_starts reads no word-start flags
    runs = n_run_mems(qcodes, rcodes, k, min_match)
    parts, held = [], runs[0].size
    for i0, i1 in key_batches(qkeys, MEM_BATCH_WORDS):
        _, _, mems = cpu.mem_starts(qcodes, rcodes, unused, unused, qkeys, qpos, rkeys, rpos, size, i0, i1, k, min_match,
                                    PARTS_PER_THREAD * threads, threads)
        parts.append(np.frombuffer(mems, dtype=np.int64).reshape(-1, 3))
        held += parts[-1].shape[0]
        if limit is not None and held > limit:
            raise TooManyMatches(held * qkeys.size // max(i1, 1))
    mems = np.concatenate(parts) if parts else np.zeros((0, 3), dtype=np.int64)
    qs, rs, length = (np.concatenate((mems[:, c], runs[c])) for c in range(3))
    order = _order2(qs, rs)
    return qs[order], rs[order], length[order]


def strand_mems_cupy(qcodes, rcodes, rwords, min_match: int, limit: int | None = None):
    """strand_mems on the device: a query word's left-maximal pairs (reference words from
    reference_words_cupy) walked by its own thread, or by blocks sharing them where there are many
    (matches.cu); a MEM takes its slot from a counter, in one pass unless more MEMs are found than
    the first guess of room. Past `limit` the count of the first pass, exact, is raised
    (TooManyMatches) before any room is made for them."""
    cp = cupy()
    k = match_k(min_match)
    lap = time.perf_counter()
    qk, qp = match_words_cupy(qcodes, k)
    allowed = qk != cp.uint64(all_n_key(k))  # the all-N words' MEMs come from the N runs (n_run_mems)
    qk, qp = qk[allowed], qp[allowed]
    del allowed
    lap = log_lap("query words sorted", lap, cp)
    runs = n_run_mems(qcodes, rcodes, k, min_match)
    lap = log_lap(f"{runs[0].size} MEMs of N runs", lap, cp)
    rk, rbefore, rp = rwords
    empty = cp.zeros(0, dtype=cp.int64)
    if qk.size == 0 or rk.size == 0:
        order = _order2(runs[0], runs[1])
        return tuple(x[order] for x in runs)
    start = time.perf_counter()
    light, heavy_walk = kernel("matches.cu", "mem_light"), kernel("matches.cu", "mem_heavy")
    found = cp.zeros(1, dtype=cp.uint64)
    heavy = cp.empty(qk.size, dtype=cp.int64)
    capacity = first_room()
    common = (qcodes, cp.int64(qcodes.size), rcodes, cp.int64(rcodes.size), qk, qp)
    reference = (rk, rbefore, rp, cp.int64(rk.size), cp.int32(k), cp.int64(min_match))
    passes = 0
    while True:
        passes += 1
        qs, rs, length = (cp.empty(capacity, dtype=cp.int64) for _ in range(3))
        found[0] = 0
        out = (cp.int64(capacity), found, qs, rs, length)
        light((blocks(qk.size),), (BLOCK,), common + (cp.int64(qk.size),) + reference + out + (heavy,))
        if passes == 1:
            words = cp.flatnonzero(heavy)
            chunks = (heavy[words] + MEM_CHUNK - 1) // MEM_CHUNK
            item_word = cp.repeat(words, chunks)
            ends = cp.cumsum(chunks)
            item_first = (cp.arange(item_word.size, dtype=cp.int64) - cp.repeat(ends - chunks, chunks)) * MEM_CHUNK
            del words, chunks, ends
        if item_word.size:
            heavy_walk((int(item_word.size),), (BLOCK,), common + reference + out + (item_word, item_first))
        total = int(found[0])
        if limit is not None and total + runs[0].size > limit:
            raise TooManyMatches(total + runs[0].size)
        if total <= capacity:
            break
        del qs, rs, length
        capacity = total
    walked = time.perf_counter()
    log.info("%d query words, %d with more than %d candidates (%d blocks)", qk.size, count(heavy > 0), MEM_LIGHT,
             item_word.size)
    qs, rs, length = (cp.concatenate((x[:total], run)) for x, run in zip((qs, rs, length), runs))
    del qk, qp, heavy, item_word, item_first
    order = _order2(qs, rs)
    qs, rs, length = qs[order], rs[order], length[order]
    cp.cuda.Device().synchronize()
    log.info("%d MEMs: pairs walked in %.2f s (%d pass%s), ordered in %.2f s", total, walked - start, passes,
             "es" if passes > 1 else "", time.perf_counter() - walked)
    return qs, rs, length


def first_room() -> int:
    """MEMs strand_mems_cupy makes room for before it knows how many there are: an eighth of the
    free device memory (24 bytes a MEM)."""
    return max(1 << 16, cupy().cuda.Device().mem_info[0] // 8 // 24)


def _order2(first, second):
    """Indices ordering rows by (first, second) with two stable sorts (NumPy's lexsort, also on CuPy)."""
    order = stable_argsort(second)
    return order[stable_argsort(first[order])]


def skip_unmatchable(query: SeqSet, min_match: int) -> SeqSet:
    """A read or probe set's records that can hold no match, skipped (counted in the log, never an
    error, as mummer takes them): those shorter than min_match, and those with no A, C, G or T (an
    all-N probe would otherwise match every N run of the reference). They stay in the output's
    headers with no matches; their codes become borders."""
    if np.asarray(query.starts).size == 0:
        return query
    short = np.asarray(query.lengths) < min_match
    empty = ~query.has_acgt
    skip = np.flatnonzero(short | empty)
    if not skip.size:
        return query
    log.info("%d query records skipped: %d shorter than %d, %d with no A, C, G or T", skip.size,
             int(short.sum()), min_match, int((empty & ~short).sum()))
    return blanked_records(query, skip)


def whole_records(query: SeqSet, min_match: int) -> np.ndarray:
    """The query records exactly min_match long and not skipped (skip_unmatchable): each one matches
    whole or not at all (record ends stop a match), so it is looked up whole (whole_record_matches)."""
    lengths = np.asarray(query.lengths)
    starts = np.asarray(query.starts, dtype=np.int64)
    whole = np.flatnonzero(lengths == min_match)
    if not whole.size:
        return whole
    first = query.codes[starts[whole]] if isinstance(query.codes, np.ndarray) else \
        gather(query.codes, cupy().asarray(starts[whole])).get()
    return whole[first != BORDER]


def find_matches(query: SeqSet, reference: SeqSet, min_match: int, unique: bool, backend,
                 batch_bases: int = 0, tile_bases: int = 0, match_rows: int = 0) -> dict:
    """MEMs (or MUMs) of every query record against the reference set, forward and reverse.

    Returns columns qrec, rrec, strand, qstart (0-based on the query strand searched: the reverse
    complement of the record for strand 1), rstart (0-based, forward reference), length, ordered by
    query record, strand, qstart and rstart (_in_order). Records exactly min_match long (a probe
    set's) are looked up whole; the others' matches are found from their words, a batch of records at
    a time, against the reference's words built once. A reference whose words do not fit at once
    (more than tile_bases, by default backend.match_tile_bases()) is split into tiles of whole records
    (reference_tiles), each matched so in turn; MUMs are then the MEMs of all tiles unique over all of
    them, as one pass finds them.
    """
    return _columns([found for found, _, _ in iter_matches(query, reference, min_match, unique, backend, batch_bases,
                                                           tile_bases, match_rows)])


def iter_matches(query: SeqSet, reference: SeqSet, min_match: int, unique: bool, backend,
                 batch_bases: int = 0, tile_bases: int = 0, match_rows: int = 0):
    """find_matches a batch of query records at a time: (the matches of records first .. end - 1, in
    find_matches' order, first, end) in turn, where no query record is looked up whole (a read set's
    case); else one item of every record. A batch holds at most batch_bases (QUERY_BATCH) bases and
    match_rows (match_batches.MATCH_ROWS) matches, or one record: a caller that writes each batch as
    it comes holds a batch's matches, never the run's (long reads against a genome of many close
    repeat copies find more MEMs than memory holds). A reference matched a tile at a time gives each
    query record's matches once all tiles are matched, the tiles' batches waiting on disk
    (match_batches.MatchSpill). MUMs shorter than mums.word_floor are counted L-mer by L-mer
    (mums.short_mums) beside the longer ones, found from words of that floor, and the run's MUMs come
    as one item."""
    batch_bases, match_rows = batch_bases or QUERY_BATCH, match_rows or MATCH_ROWS
    floor = word_floor(query, reference, min_match) if unique else min_match
    if floor > min_match:
        found = [table for table, _, _ in iter_matches(query, reference, floor, True, backend, batch_bases, tile_bases,
                                                       match_rows)]
        found.append(short_mums(skip_unmatchable(query, min_match), reference, min_match, floor))
        yield _in_order(_columns(found)), 0, len(query.names)
        return
    query = skip_unmatchable(query, min_match)
    tiles = reference_tiles(reference, tile_bases or backend.match_tile_bases())
    if len(tiles) == 1:
        found = _matches(query, reference, min_match, unique, backend, batch_bases, match_rows)
        if not whole_records(query, min_match).size:  # batches of records in order: each written as it comes
            yield from found  # batch_matches' tables are in order
        else:
            yield _in_order(_columns([table for table, _, _ in found])), 0, len(query.names)
        return
    longest = int(max(np.max(query.lengths, initial=0), np.max(reference.lengths, initial=0)))
    spill = MatchSpill(len(query.names), longest, len(reference.names))
    try:
        for number, (first, last) in enumerate(tiles):
            log.info("reference tile %d of %d: records %d to %d, %d bases", number + 1, len(tiles), first + 1, last,
                     int(np.asarray(reference.lengths)[first:last].sum()))
            for found, low, high in _matches(query, record_slice(reference, first, last), min_match, False, backend,
                                             batch_bases, match_rows):
                found["rrec"] += first
                spill.add(_in_order(found), low, high)
        log.info("%d matches of %d tiles held in %s (%.1f MB)", int(spill.counts.sum()), len(tiles), spill.folder,
                 spill.bytes / 1e6)
        for matches, low, high in spill.chunks(match_rows):
            matches = _in_order(matches)
            if unique:
                rs = matches["rstart"] + np.asarray(reference.starts)[matches["rrec"]]
                keep = unique_mask(matches["qrec"] * 2 + matches["strand"], matches["qstart"], rs, matches["length"])
                matches = {name: column[keep] for name, column in matches.items()}
            yield matches, low, high
    finally:
        spill.close()


def record_runs(lengths, bases: int) -> list[tuple[int, int]]:
    """Consecutive records in runs of at most `bases` (a longer record alone): (first, end) each."""
    ends = np.cumsum(np.asarray(lengths, dtype=np.int64))
    runs, first = [], 0
    while first < ends.size:
        runs.append((first, run_end(ends, first, bases)))
        first = runs[-1][1]
    return runs or [(0, 0)]


def reference_tiles(reference: SeqSet, bases: int) -> list[tuple[int, int]]:
    """The reference's records in tiles of at most `bases` (record_runs). A MEM never crosses a record's
    end, so each tile's MEMs are found apart from the others'."""
    return record_runs(reference.lengths, bases)


def _matches(query: SeqSet, reference: SeqSet, min_match: int, unique: bool, backend, batch_bases: int,
             match_rows: int):
    """find_matches' tables of one reference, or one reference tile, in turn: (table, first, end) each,
    the query records first .. end - 1 its rows may be of (whole records' tables a strand each, of
    every record; then a batch's)."""
    rcodes = backend.to_device(reference.codes)
    whole = whole_records(query, min_match)
    if whole.size:
        for found in whole_matches(query, whole, reference, rcodes, min_match, unique, backend):
            yield found, 0, len(query.names)
    if whole.size < len(query.names):
        if whole.size:  # the rest's words are looked up as usual; the whole records' become borders
            query = blanked_records(query, whole)
        rwords = _reference_words(rcodes, min_match, backend)
        yield from bounded_batches(
            query, lambda batch, limit: batch_matches(batch, reference, rcodes, rwords, min_match, unique, backend, limit),
            batch_bases, match_rows)


def _reference_words(rcodes, min_match: int, backend):
    """The reference's words on the backend, timed in the log."""
    start = time.perf_counter()
    rwords = backend.reference_words(rcodes, min_match)
    backend.synchronize()
    log.info("reference words: %d (%.2f s)", rwords[0].size, time.perf_counter() - start)
    return rwords


def _columns(parts: list) -> dict:
    """The tables as one copy of each column, however many batches, strands and tiles."""
    if not parts:
        return {name: np.zeros(0, dtype=np.int64) for name in ("qrec", "rrec", "strand", "qstart", "rstart", "length")}
    if len(parts) == 1:
        return parts[0]
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def _in_order(matches: dict) -> dict:
    """The matches ordered as the MUMmer text lists them (query record, strand, qstart, rstart), ties in
    the reference's order (a stable sort where they are not so already: one query record's MEMs
    against one reference record are). Reference tiles come in the reference's order and each is in
    order inside, so a tiled run and one pass give the same rows in the same order."""
    columns = [matches[name] for name in ("qrec", "strand", "qstart", "rstart")]
    spans = [int(c.max()) + 1 if c.size else 1 for c in columns]
    if in_order(columns, spans):
        return matches
    order = order_by(columns, spans)
    return {name: column[order] for name, column in matches.items()}


def batch_matches(query: SeqSet, reference: SeqSet, rcodes, rwords, min_match: int, unique: bool,
                  backend, limit: int | None = None) -> dict:
    """find_matches for one batch of query records, one table of both strands (rcodes and rwords: the
    reference's codes and words on the backend): the query records and, for MUMs, uniqueness are worked
    out where the MEMs are (on the GPU, only MUMs come back), and the two strands' columns joined there
    before they come to the host once, in find_matches' order (_in_order, there too). More than `limit`
    MEMs of both strands: TooManyMatches."""
    xp = backend.xp
    qcodes = backend.to_device(query.codes)
    rstarts = xp.asarray(reference.starts)
    strands = []
    for strand in (0, 1):
        start = time.perf_counter()
        codes = qcodes if strand == 0 else reverse_complement(qcodes)
        held = sum(int(s["qstart"].size) for s in strands)  # MUMs past the first strand count as MEMs would
        try:
            qs, rs, length = backend.strand_mems(codes, rcodes, rwords, min_match,
                                                 None if limit is None else max(limit - held, 0))
        except TooManyMatches as over:
            raise TooManyMatches(held + over.rows * (2 - strand)) from None
        del codes
        lap = log_lap("MEMs found", start, xp)
        # record starts on this strand, ascending (the reverse strand holds the last record first)
        starts = xp.asarray(query.starts if strand == 0 else query.reverse_starts()[::-1].copy())
        qrec = xp.searchsorted(starts, qs, side="right") - 1
        if unique:
            keep = unique_mask(qrec, qs, rs, length)
            qrec, qs, rs, length = qrec[keep], qs[keep], rs[keep], length[keep]
            del keep
        qs = qs - starts[qrec]
        if strand == 1:
            qrec = len(query.names) - 1 - qrec
        rrec = xp.searchsorted(rstarts, rs, side="right") - 1  # reference.record_of, where the MEMs are
        rs = rs - rstarts[rrec]
        strands.append({"qrec": qrec, "rrec": rrec, "strand": xp.full(qs.size, strand, dtype=xp.int64), "qstart": qs,
                        "rstart": rs, "length": length})
        log_lap("their records" + (" and uniqueness" if unique else ""), lap, xp)
        log.info("strand %d: %d %s (%.2f s)", strand, qs.size, "MUMs" if unique else "MEMs", time.perf_counter() - start)
    start = time.perf_counter()
    table = _in_order({name: xp.concatenate([s[name] for s in strands]) for name in strands[0]})
    table = {name: backend.to_host(column) for name, column in table.items()}
    log.info("%d %s of both strands ordered and on the host (%.2f s)", table["qstart"].size,
             "MUMs" if unique else "MEMs", time.perf_counter() - start)
    return table


def matches_to_hsps(matches: dict, query: SeqSet) -> dict:
    """Matches as HSP columns (query coordinates on the forward strand), for PAF, plots and coverage."""
    qstart = matches["qstart"].copy()
    reverse = matches["strand"] == 1
    qstart[reverse] = query.lengths[matches["qrec"][reverse]] - matches["qstart"][reverse] - matches["length"][reverse]
    length = matches["length"]
    return {"qrec": matches["qrec"], "rrec": matches["rrec"], "qstart": qstart, "qend": qstart + length,
            "rstart": matches["rstart"], "rend": matches["rstart"] + length, "strand": matches["strand"],
            "score": length, "identities": length, "length": length}


def hsps_to_matches(hsps: dict, query_lengths) -> dict:
    """The inverse of matches_to_hsps: reverse matches back to query-strand coordinates."""
    qstart = hsps["qstart"].copy()
    reverse = hsps["strand"] == 1
    qstart[reverse] = np.asarray(query_lengths)[hsps["qrec"][reverse]] - hsps["qend"][reverse]
    return {"qrec": hsps["qrec"], "rrec": hsps["rrec"], "strand": hsps["strand"], "qstart": qstart,
            "rstart": hsps["rstart"], "length": hsps["length"]}
