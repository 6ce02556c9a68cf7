"""The one-to-one backbone of chains (docs/DEFINITIONS.md "What a chain is", 5): chosen in two rounds by the
compiled loops of backbone.c, within each record pair on all cores, then across record pairs."""
from __future__ import annotations

import logging
import time

import numpy as np

from . import native

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
    chain = as64(blocks["chain"])
    starts = np.zeros(chains + 1, dtype=np.int64)
    np.cumsum(np.bincount(chain, minlength=chains), out=starts[1:])
    one_round = not pairs or chains == 0 or (np.all(qrec == qrec[0]) and np.all(rrec == rrec[0]))
    if one_round:  # one record pair: the second round keeps what the first kept
        order, bounds = np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    else:  # record pair by record pair, each in chain order (a stable sort of small keys is a radix sort)
        pair = qrec * (int(rrec.max()) + 1) + rrec
        order = np.argsort(pair.astype(np.int16) if pair.max() < 2**15 else pair, kind="stable")
        pair = pair[order]
        bounds = np.concatenate(([0], np.flatnonzero(pair[1:] != pair[:-1]) + 1, [chains])).astype(np.int64)
    round_one, keep = np.zeros(chains, dtype=np.int8), np.zeros(chains, dtype=np.int8)
    native.module("_cpu").backbone(
        starts, *(as64(blocks[name]) for name in ("x0", "xe", "y0", "ye")),
        np.ascontiguousarray(table["strand"], dtype=np.int8), qrec, rrec, as64(qlens), as64(rlens), order, bounds,
        round_one, keep, threads or native.threads(), batch, big, min_new)
    if first is not None:
        first.append(keep.copy() if one_round else round_one)
    log.debug("backbone: %d chains of %d blocks in %d record pairs, %d in the first round, %d kept (%.2f s)",
              chains, chain.size, max(1, bounds.size - 1), int(np.count_nonzero(round_one)),
              int(np.count_nonzero(keep)), time.perf_counter() - started)
    return keep
