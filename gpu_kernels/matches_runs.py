"""The exact matches a word index does not find alone (matches.py has the definitions): those inside
runs of N, which every N word would pair with every other (walked from the runs themselves), and
those of records no longer than a word (whole records, found by a hash of the reference's windows)."""
from __future__ import annotations

import logging
import time

import numpy as np

from . import native
from .arrays import BLOCK, array_module, blocks, cupy, kernel, on_host, stable_argsort
from .encode import BORDER, N_CODE
from .seqset import SeqSet

log = logging.getLogger(__name__)


def all_n_key(k: int) -> int:
    """The key of the word of k Ns (3 bits a symbol: the N code in every place)."""
    return sum(N_CODE << (3 * i) for i in range(k))


def n_runs(codes) -> tuple[np.ndarray, np.ndarray]:
    """(starts, lengths) of the runs of N in codes (host or device), on the host."""
    xp = array_module(codes)
    n = (codes == N_CODE).view(xp.int8)
    edges = xp.flatnonzero(n[1:] != n[:-1]) + 1
    edges = np.asarray(edges.get() if xp is not np else edges, dtype=np.int64)
    first, last = (int(x) for x in (codes[0] == N_CODE, codes[-1] == N_CODE)) if codes.size else (0, 0)
    edges = np.concatenate(([0] if first else [], edges, [codes.size] if last else [])).astype(np.int64)
    return edges[0::2], edges[1::2] - edges[0::2]


def _symbols(codes, at: np.ndarray) -> np.ndarray:
    """codes[at] on the host, codes host or device."""
    xp = array_module(codes)
    got = codes[xp.asarray(at)]
    return got.get() if xp is not np else got


def n_run_mems(qcodes, rcodes, k: int, min_match: int):
    """The MEMs whose left-end words are all N on both sides, worked out from the N runs instead of
    from their word pairs (a query N run of a bases and a reference one of b hold about a * b such
    pairs, and two 1 Mbp runs 10^12; they hold at most a + b - 1 MEMs). On each diagonal through
    two runs the N overlap, at least k long, is one candidate: it starts where one run starts (the
    symbols before differ, N and not N) or where both do (then a MEM only if those symbols differ or
    one is a border; if equal the MEM starts further left and the word pairs find it); it ends where
    one run ends, or, where both end together, is walked on while the codes agree. (qstart, rstart,
    length) int64, unordered, on the codes' device: the diagonals where the runs neither start nor
    end together are written in closed form there (a step a MEM, no loop), the two others of each
    pair of runs worked out on the host."""
    xp = array_module(qcodes)
    qa, alen = n_runs(qcodes)
    rb, blen = n_runs(rcodes)
    qa, alen = qa[alen >= k], alen[alen >= k]
    rb, blen = rb[blen >= k], blen[blen >= k]
    if not qa.size or not rb.size:
        return tuple(xp.zeros(0, dtype=xp.int64) for _ in range(3))
    qi, ri = (x.ravel() for x in np.meshgrid(np.arange(qa.size), np.arange(rb.size), indexing="ij"))
    qa, alen, rb, blen = qa[qi], alen[qi], rb[ri], blen[ri]
    # Diagonal t = rstart - qstart: the reference run lies at [rb - t, rb + blen - t) in query coordinates,
    # and the overlap grows by one a diagonal from 0 at t = rb - qa - alen to min(alen, blen), then falls
    # to 0 at t = rb + blen - qa. Where the runs start together (t = rb - qa) or end together
    # (t = rb + blen - qa - alen) the MEM needs the symbols beside them; elsewhere it is the overlap.
    together = (rb - qa, rb + blen - qa - alen)
    low = np.where(np.minimum(alen, blen) >= min_match, rb - qa - alen + min_match, 1)
    high = np.where(np.minimum(alen, blen) >= min_match, rb + blen - qa - min_match, 0)
    count = np.maximum(high - low + 1, 0)
    generic = _overlaps(xp, low, count, qa, alen, rb, blen, together)
    special = _runs_together(qcodes, rcodes, qa, alen, rb, blen, together, k, min_match)
    return tuple(xp.concatenate((g, xp.asarray(x))) for g, x in zip(generic, special))


def _overlaps(xp, low, count, qa, alen, rb, blen, together):
    """n_run_mems' MEMs of the diagonals low .. low + count - 1 of each pair of runs but those in
    `together`: each the runs' overlap, on xp's device. The diagonals are cut into runs that hold
    none of `together`, and a MEM's values come from its run's: t = rstart - qstart counts up one a
    MEM along a run, the reference run's start in query coordinates, rb - t, down."""
    cuts = np.sort(np.stack((low - 1, *together, low + count)), axis=0)  # each pair's diagonals apart from them
    first, last = np.clip(cuts[:-1] + 1, low, low + count), np.clip(cuts[1:], low, low + count)
    pair = np.broadcast_to(np.arange(low.size), first.shape)
    run = (last > first).ravel()
    first, last, pair = (x.ravel()[run] for x in (first, last, pair))
    sizes = last - first
    total = int(sizes.sum())
    if total == 0:
        return tuple(xp.zeros(0, dtype=xp.int64) for _ in range(3))
    offset = np.cumsum(sizes) - sizes  # where each run of diagonals starts among the MEMs
    index = xp.arange(total, dtype=xp.int64)
    if on_host(xp):
        each = lambda x: np.repeat(x, sizes)  # noqa: E731
    else:  # a MEM's run of diagonals: a cumulative sum of the runs' starts
        marks = xp.zeros(total, dtype=xp.int32)
        marks[xp.asarray(offset[1:])] = 1
        which = xp.cumsum(marks, dtype=xp.int32)
        del marks
        each = lambda x: xp.asarray(x)[which]  # noqa: E731
    b0 = each(rb[pair] - first + offset) - index
    start = xp.maximum(each(qa[pair]), b0)
    length = xp.minimum(each(qa[pair] + alen[pair]), b0 + each(blen[pair])) - start
    return start, start + index + each(first - offset), length


def _runs_together(qcodes, rcodes, qa, alen, rb, blen, together, k: int, min_match: int):
    """n_run_mems' MEMs of the diagonals where two runs start or end together (on the host): a start
    together is a MEM's only where the symbols before differ or one is a border; an end together is
    walked on, 64 symbols at a time, while the codes agree."""
    once = together[1] != together[0]  # runs of one length start and end together on one diagonal
    t = np.concatenate((together[0], together[1][once]))
    qa, alen, rb, blen = (np.concatenate((x, x[once])) for x in (qa, alen, rb, blen))
    a0, a1, b0, b1 = qa, qa + alen, rb - t, rb + blen - t
    start, end = np.maximum(a0, b0), np.minimum(a1, b1)
    keep = end - start >= k
    both = np.flatnonzero(keep & (a0 == b0))
    before_q = np.where(a0[both] > 0, _symbols(qcodes, np.maximum(a0[both] - 1, 0)), BORDER)
    before_r = np.where(b0[both] + t[both] > 0, _symbols(rcodes, np.maximum(b0[both] + t[both] - 1, 0)), BORDER)
    keep[both[(before_q == before_r) & (before_q != BORDER)]] = False
    walking = np.flatnonzero(keep & (a1 == b1))
    q = end[walking].copy()
    while walking.size:  # the flanks of two runs agree a few symbols at most: one window nearly always
        span = np.arange(64)
        qs, rs = q[:, None] + span, q[:, None] + t[walking][:, None] + span
        inside = (qs < qcodes.size) & (rs < rcodes.size)
        a = _symbols(qcodes, np.minimum(qs, qcodes.size - 1))
        b = _symbols(rcodes, np.minimum(rs, rcodes.size - 1))
        stop = ~inside | (a != b) | (a == BORDER)
        stops = stop.any(axis=1)
        q = q + np.where(stops, stop.argmax(axis=1), 64)
        end[walking] = q
        walking, q = walking[~stops], q[~stops]
    keep &= end - start >= min_match
    return start[keep], (start + t)[keep], (end - start)[keep]


HASH_BASE = 0x9E3779B97F4A7C15  # matches.c and matches.cu


def whole_index(rcodes, length: int):
    """(keys, positions) of every reference window of `length` codes with no border: its hash (matches.c's
    window_hashes) and where it starts, sorted by hash, positions ascending among equal ones."""
    windows = rcodes.size - length + 1
    if windows <= 0:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    hashes, valid = np.empty(windows, dtype=np.uint64), np.empty(windows, dtype=np.uint8)
    native.cpu().window_hashes(np.ascontiguousarray(rcodes), length, hashes, valid, native.threads())
    pos = np.flatnonzero(valid)
    keys = hashes[pos]
    order = stable_argsort(keys)
    return keys[order], pos[order]


def whole_index_cupy(rcodes, length: int):
    """whole_index on the device (matches.cu's window_hashes: a thread rolls the hash along 64 windows)."""
    cp = cupy()
    windows = rcodes.size - length + 1
    if windows <= 0:
        return cp.zeros(0, dtype=cp.uint64), cp.zeros(0, dtype=cp.int64)
    hashes, valid = cp.empty(windows, dtype=cp.uint64), cp.empty(windows, dtype=cp.uint8)
    kernel("matches.cu", "window_hashes")((blocks((windows + 63) // 64),), (BLOCK,), (
        rcodes, cp.int64(rcodes.size), cp.int64(length), hashes, valid))
    pos = cp.flatnonzero(valid)
    keys = hashes[pos]
    order = stable_argsort(keys)
    return keys[order], pos[order]


def whole_record_matches(qcodes, starts, rcodes, index, length: int, strand: int):
    """(record, rstart) of every reference window equal to a whole query record (the records start at
    `starts` in qcodes and are `length` long; strand 1: their reverse complements), by record, in the
    index's order within one: each record looked up once by its hash in whole_index's keys, each hit
    compared base by base (matches.c's whole_hits). int64 arrays."""
    keys, pos = index
    cpu, threads = native.cpu(), native.threads()
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    qcodes, rcodes = np.ascontiguousarray(qcodes), np.ascontiguousarray(rcodes)
    counts, hashes = np.empty(starts.size, dtype=np.int64), np.empty(starts.size, dtype=np.uint64)
    cpu.whole_hits(qcodes, starts, length, strand, keys, pos, rcodes, counts, hashes, None, threads)
    offsets = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64) if counts.size else counts
    out = np.empty(int(counts.sum()), dtype=np.int64)
    cpu.whole_hits(qcodes, starts, length, strand, keys, pos, rcodes, offsets, hashes, out, threads)
    return np.repeat(np.arange(starts.size, dtype=np.int64), counts), out


def whole_record_matches_cupy(qcodes, starts, rcodes, index, length: int, strand: int):
    """whole_record_matches on the device (matches.cu's whole_hits: a warp a record, its lanes hashing
    and comparing 32 codes at a time); the same rows in the same order, as CuPy arrays."""
    cp = cupy()
    keys, pos = index
    starts = cp.asarray(starts, dtype=cp.int64)
    # powers[j] = B^(length-1-j) mod 2^64 (unsigned products wrap)
    factors = np.full(length, HASH_BASE, dtype=np.uint64)
    factors[0] = 1
    powers = cp.asarray(np.cumprod(factors)[::-1].copy())
    counts = cp.empty(starts.size, dtype=cp.int64)
    hits = kernel("matches.cu", "whole_hits")
    grid = (blocks(starts.size * 32),)
    common = (qcodes, starts, cp.int64(starts.size), cp.int64(length), cp.int32(strand), powers, keys, pos,
              cp.int64(keys.size), rcodes)
    if starts.size:
        hits(grid, (BLOCK,), common + (counts, cp.uint64(0)))  # a null out: count
    ends = cp.cumsum(counts)
    out = cp.empty(int(ends[-1]) if ends.size else 0, dtype=cp.int64)
    if out.size:
        hits(grid, (BLOCK,), common + (ends - counts, out))
    return cp.searchsorted(ends, cp.arange(out.size, dtype=cp.int64), side="right"), out


def log_lap(step: str, since: float, xp=np) -> float:
    """Log a step's seconds at debug level (a device array module's device synchronized first, only
    then); the time now."""
    if log.isEnabledFor(logging.DEBUG):
        if xp is not np:
            xp.cuda.Device().synchronize()
        now = time.perf_counter()
        log.debug("%s (%.2f s)", step, now - since)
    return time.perf_counter()


def blanked_records(query: SeqSet, records: np.ndarray) -> SeqSet:
    """The query with the codes of `records` made borders (they hold no word): a copy, on the codes'
    device (fill_spans: fasta.c, fasta.cu)."""
    starts = np.ascontiguousarray(np.asarray(query.starts, dtype=np.int64)[records])
    lengths = np.ascontiguousarray(np.asarray(query.lengths, dtype=np.int64)[records])
    codes = query.codes.copy()
    if isinstance(codes, np.ndarray):
        native.cpu().fill_spans(codes, starts, lengths, BORDER, native.threads())
    elif starts.size:
        cp = cupy()
        kernel("fasta.cu", "fill_spans")((blocks(starts.size * 32),), (BLOCK,), (
            codes, cp.asarray(starts), cp.asarray(lengths), cp.int64(starts.size), cp.uint8(BORDER)))
    return SeqSet(query.names, query.lengths, query.starts, codes)


def whole_matches(query: SeqSet, records: np.ndarray, reference: SeqSet, rcodes, min_match: int, unique: bool,
                  backend) -> list[dict]:
    """find_matches' tables (a strand each) of the query records `records`, each exactly min_match long:
    every reference window equal to a record (MUMs: where it is the only one on that strand)."""
    start = time.perf_counter()
    xp = backend.xp
    index = backend.whole_index(rcodes, min_match)
    lap = log_lap("reference windows' index", start, xp)
    qcodes = backend.to_device(query.codes)
    starts = np.asarray(query.starts, dtype=np.int64)[records]
    log_lap("query codes where they are matched", lap, xp)
    backend.synchronize()
    log.info("%d query records of %d looked up whole; reference windows: %d (%.2f s)", records.size, min_match,
             index[0].size, time.perf_counter() - start)
    tables = []
    for strand in (0, 1):
        start = time.perf_counter()
        rec, rs = backend.whole_record_matches(qcodes, starts, rcodes, index, min_match, strand)
        lap = log_lap("records looked up", start, xp)
        rec, rs = backend.to_host(rec), backend.to_host(rs)
        log_lap("their hits on the host", lap, xp)
        if unique:  # the record's string occurs once in the reference
            alone = np.bincount(rec, minlength=records.size)[rec] == 1
            rec, rs = rec[alone], rs[alone]
        rrec = reference.record_of(rs)
        tables.append({"qrec": records[rec], "rrec": rrec, "strand": np.full(rs.size, strand),
                       "qstart": np.zeros(rs.size, dtype=np.int64), "rstart": rs - reference.starts[rrec],
                       "length": np.full(rs.size, min_match, dtype=np.int64)})
        log.info("strand %d: %d %s of whole records (%.2f s)", strand, rs.size, "MUMs" if unique else "MEMs",
                 time.perf_counter() - start)
    return tables
