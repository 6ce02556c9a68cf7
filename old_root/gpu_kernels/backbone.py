"""The one-to-one backbone of chains (README "What a chain is", 5): chosen in two rounds by the
compiled loops of backbone.c, within each record pair on all cores, then across record pairs."""
from __future__ import annotations

import numpy as np

from . import native


def backbone(table: dict, blocks: dict, qlens, rlens, pairs: bool = True, first: list | None = None) -> np.ndarray:
    """The one-to-one chains (int8 1), chosen in two rounds (README "What a chain is", 5): within each
    record pair, then among the first round's chains of every record pair. Each round takes chains in
    chain order and keeps one where more than half of its aligned bases on the query and more than
    half on the reference (its blocks: chain_blocks) are not yet covered by a chain kept in that
    round. Its blocks, not its spans: a chain that bridges a small inversion does not hide the
    inversion's own chain. A record pair is never split between the parts of a pair compared in
    parts (pipeline.py), so the first round is each part's own and the second needs no other chains.
    pairs=False: one round over every chain (align.one_to_one's, over alignments). first: a list given
    the first round's choice (int8 a chain)."""
    qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
    qoff = np.concatenate(([0], np.cumsum(qlens)))
    roff = np.concatenate(([0], np.cumsum(rlens)))
    chains = int(table["chain"].size)
    qrec, rrec = table["qrec"].astype(np.int64), table["rrec"].astype(np.int64)
    chain = np.asarray(blocks["chain"], dtype=np.int64)
    reverse = table["strand"][chain] == 1
    rlen = rlens[rrec[chain]]
    # record coordinates (the reference's forward strand's)
    lo = {"q": np.asarray(blocks["x0"], dtype=np.int64), "r": np.where(reverse, rlen - blocks["ye"], blocks["y0"])}
    hi = {"q": np.asarray(blocks["xe"], dtype=np.int64), "r": np.where(reverse, rlen - blocks["y0"], blocks["ye"])}
    starts = np.zeros(chains + 1, dtype=np.int64)
    np.cumsum(np.bincount(chain, minlength=chains), out=starts[1:])
    cpu = native.module("_cpu")

    def gathered(order) -> tuple:
        """The chains `order`'s block starts and spans, in that order."""
        counts = starts[order + 1] - starts[order]
        at = np.zeros(order.size + 1, dtype=np.int64)
        np.cumsum(counts, out=at[1:])
        rows = np.repeat(starts[order] - at[:-1], counts) + np.arange(int(at[-1]), dtype=np.int64)
        return at, rows

    def greedy(order, identity: bool = False) -> np.ndarray:
        """One round over the chains `order` (in that order, or every chain in chain order), on the
        genomes laid end to end."""
        at, rows = (starts, slice(None)) if identity else gathered(order)
        offset = {"q": qoff[qrec[chain[rows]]], "r": roff[rrec[chain[rows]]]}
        spans = [v[side][rows] + offset[side] for side in ("q", "r") for v in (lo, hi)]
        bits = {side: np.zeros(int(off[-1]) // 64 + 1, dtype=np.uint64) for side, off in (("q", qoff), ("r", roff))}
        keep = np.zeros(order.size, dtype=np.int8)
        cpu.backbone(at, *spans, bits["q"], bits["r"], keep, np.zeros(0, dtype=np.int64))
        return keep

    everyone = np.arange(chains, dtype=np.int64)
    # one record pair: the second round keeps what the first kept
    if not pairs or chains == 0 or (np.all(qrec == qrec[0]) and np.all(rrec == rrec[0])):
        keep = greedy(everyone, identity=True)
        if first is not None:
            first.append(keep)
        return keep
    pair = qrec * (int(rrec.max()) + 1) + rrec
    # record pair by record pair, each in chain order (a stable sort of small keys is a radix sort)
    order = np.argsort(pair.astype(np.int16) if pair.max() < 2**15 else pair, kind="stable")
    pair = pair[order]
    bounds = np.concatenate(([0], np.flatnonzero(pair[1:] != pair[:-1]) + 1, [chains])).astype(np.int64)
    at, rows = gathered(order)
    chosen = np.zeros(chains, dtype=np.int8)
    cpu.backbone_pairs(at, *(np.ascontiguousarray(v[side][rows]) for side in ("q", "r") for v in (lo, hi)), chosen,
                       bounds, int(qlens.max()), int(rlens.max()), native.threads())
    round_one = np.zeros(chains, dtype=bool)
    round_one[order] = chosen == 1
    keep = np.zeros(chains, dtype=np.int8)
    picked = np.flatnonzero(round_one)
    keep[picked] = greedy(picked)
    if first is not None:
        first.append(round_one.astype(np.int8))
    return keep
