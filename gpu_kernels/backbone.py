"""The one-to-one backbone of chains (docs/DEFINITIONS.md "What a chain is", 5): chosen in two rounds by the
compiled loops of backbone.c, within each record pair on all cores, then across record pairs."""
from __future__ import annotations

import logging
import time

import numpy as np

from . import native
from .arrays import stable_argsort

log = logging.getLogger(__name__)

BATCH = 2048       # chains a helper thread tests at once ahead of the round's taker (backbone.c take_list)
# a round of this many chains, or a record pair of as many and over twice a thread's share, is taken by every
# thread: a whole pair's second round (assemble's, 2.8 M chains on the close 3 Gbp pair), not a compare job's
BIG_PAIR = 1 << 18


def backbone(table: dict, blocks: dict, qlens, rlens, pairs: bool = True, first: list | None = None,
             threads: int = 0, batch: int = BATCH, big: int = BIG_PAIR, min_new: int = 0) -> np.ndarray:
    """The one-to-one chains (int8 1), chosen in two rounds (docs/DEFINITIONS.md "What a chain is", 5): within each
    record pair, then among the first round's chains of every record pair. Each round takes chains in
    chain order and keeps one where more than half of its aligned bases on the query and more than
    half on the reference (its blocks: chain_blocks) are not yet covered by a chain kept in that
    round. Its blocks, not its spans: a chain that bridges a small inversion does not hide the
    inversion's own chain. A record pair is never split between the parts of a pair compared in
    parts (pipeline.py), so the first round is each part's own and the second needs no other chains.
    pairs=False: one round over every chain (align.one_to_one's, over alignments). first: a list given
    the first round's choice (int8 a chain). A round of `big` chains or more is taken in order by one
    thread while the others test those ahead of it against the covers as they are, and the ones they
    find rejected it passes over (covers only grow within a round): the same choices on any number of
    threads (threads: 0, native.threads()); batch and big (backbone.c) are settings for the tests.
    min_new: a chain is kept also where at least this many of its aligned bases on the query and as
    many on the reference are not yet covered (0: the half alone; one_to_one's alignments)."""
    started = time.perf_counter()
    as64 = lambda values: np.ascontiguousarray(values, dtype=np.int64)  # noqa: E731
    chains = int(table["chain"].size)
    qrec, rrec = as64(table["qrec"]), as64(table["rrec"])
    starts, order, bounds, one_round = _groups(np, table, blocks, pairs)
    round_one, keep = np.zeros(chains, dtype=np.int8), np.zeros(chains, dtype=np.int8)
    native.module("_cpu").backbone(
        starts, *(as64(blocks[name]) for name in ("x0", "xe", "y0", "ye")),
        np.ascontiguousarray(table["strand"], dtype=np.int8), qrec, rrec, as64(qlens), as64(rlens), order, bounds,
        round_one, keep, threads or native.threads(), batch, big, min_new)
    if first is not None:
        first.append(keep.copy() if one_round else round_one)
    _log(chains, int(starts[-1]), bounds, round_one, keep, started)
    return keep


def _groups(xp, table: dict, blocks: dict, pairs: bool) -> tuple:
    """(starts: chain c's blocks are [starts[c], starts[c + 1]); order and bounds: the record pairs'
    chains, each in chain order, group g order[bounds[g], bounds[g + 1]); one_round: no first round
    (pairs False, or one record pair: the second keeps what the first kept)), on xp's device."""
    chains = int(table["chain"].size)
    qrec, rrec = (xp.asarray(table[name]).astype(xp.int64) for name in ("qrec", "rrec"))
    starts = xp.zeros(chains + 1, dtype=xp.int64)
    xp.cumsum(xp.bincount(xp.asarray(blocks["chain"]).astype(xp.int64), minlength=chains), out=starts[1:])
    one_round = not pairs or chains == 0 or bool((qrec == qrec[0]).all() and (rrec == rrec[0]).all())
    if one_round:
        return starts, xp.zeros(0, dtype=xp.int64), xp.zeros(1, dtype=xp.int64), True
    # record pair by record pair, each in chain order
    pair = qrec * (int(rrec.max()) + 1) + rrec
    order = stable_argsort(pair)
    pair = pair[order]
    bounds = xp.concatenate((xp.zeros(1, dtype=xp.int64), xp.flatnonzero(pair[1:] != pair[:-1]) + 1,
                             xp.asarray([chains], dtype=xp.int64))).astype(xp.int64)
    return starts, order.astype(xp.int64), bounds, False


def _log(chains: int, n: int, bounds, round_one, keep, started: float) -> None:
    log.debug("backbone: %d chains of %d blocks in %d record pairs, %d in the first round, %d kept (%.2f s)",
              chains, n, max(1, int(bounds.size) - 1), int((round_one != 0).sum()), int((keep != 0).sum()),
              time.perf_counter() - started)


COVER_BYTES = 1 << 30  # the first round's covers on the device at most (a pair of them a warp taking a group)


def backbone_cupy(table: dict, blocks: dict, qlens, rlens, pairs: bool = True, first: list | None = None,
                  threads: int = 0, batch: int = BATCH, big: int = BIG_PAIR, min_new: int = 0):
    """backbone on the device (backbone.cu: a warp a record pair, then one warp over the first round's
    chains), the same choices, of columns on the device (CuPy arrays; int8 1 for a kept chain, and
    `first`'s entry, on the device too). threads, batch and big are the host's settings, unused. Blocks
    outside their records raise ValueError, as on the host."""
    from .arrays import cupy, kernel

    cp = cupy()
    started = time.perf_counter()
    chains = int(table["chain"].size)
    starts, order, bounds, one_round = _groups(cp, table, blocks, pairs)
    as64 = lambda values: cp.ascontiguousarray(cp.asarray(values), dtype=cp.int64)  # noqa: E731
    qlens, rlens = as64(np.asarray(qlens, dtype=np.int64)), as64(np.asarray(rlens, dtype=np.int64))
    qrec, rrec = as64(table["qrec"]), as64(table["rrec"])
    x0, xe, y0, ye = (as64(blocks[name]) for name in ("x0", "xe", "y0", "ye"))
    strand = cp.ascontiguousarray(cp.asarray(table["strand"]), dtype=cp.int8)
    qoff, roff = (cp.concatenate((cp.zeros(1, dtype=cp.int64), cp.cumsum(lens))) for lens in (qlens, rlens))
    chain = as64(blocks["chain"])
    if chains and not bool(((qrec >= 0) & (qrec < qlens.size) & (rrec >= 0) & (rrec < rlens.size)).all()):
        raise ValueError("backbone: blocks outside their records, or groups out of order")
    if x0.size and not bool(((x0 >= 0) & (x0 <= xe) & (xe <= qlens[qrec[chain]]) & (y0 >= 0) & (y0 <= ye)
                             & (ye <= rlens[rrec[chain]])).all()):
        raise ValueError("backbone: blocks outside their records, or groups out of order")
    arguments = (starts, x0, xe, y0, ye, strand, qrec, rrec, rlens, qoff, roff, cp.int64(min_new))
    round_one, keep = cp.zeros(chains, dtype=cp.int8), cp.zeros(chains, dtype=cp.int8)
    groups = int(bounds.size) - 1
    if one_round:
        round_one[:] = 1
    elif groups:
        qwords, rwords = int(qlens.max()) // 64 + 1, int(rlens.max()) // 64 + 1
        warps = max(1, min(groups, 1024, COVER_BYTES // (8 * (qwords + rwords))))
        qcover, rcover = cp.zeros(warps * qwords, dtype=cp.uint64), cp.zeros(warps * rwords, dtype=cp.uint64)
        kernel("backbone.cu", "backbone_first")((warps,), (32,), (*arguments, order, bounds, cp.int64(groups), qcover,
                                                rcover, cp.int64(qwords), cp.int64(rwords),
                                                cp.zeros(1, dtype=cp.uint64), round_one))
        del qcover, rcover
    ids = cp.flatnonzero(round_one).astype(cp.int64)
    if ids.size:
        q = cp.zeros(int(qoff[-1]) // 64 + 1, dtype=cp.uint64)
        r = cp.zeros(int(roff[-1]) // 64 + 1, dtype=cp.uint64)
        kernel("backbone.cu", "backbone_second")((1,), (32,), (*arguments, ids, cp.int64(ids.size), q, r, keep))
    if first is not None:
        first.append(keep.copy() if one_round else round_one)
    _log(chains, int(x0.size), bounds, round_one, keep, started)
    return keep
