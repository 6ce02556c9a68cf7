"""Posterior decoding of the gaps between anchors (posterior.h, run by posterior.c on the host and by
posterior.cu on the device; tests/oracle_posterior.py the oracle), the gapped stage's second pass where
`gamma` is set (the distant preset's): a pair HMM's rates fitted to the pair's first fills, then each
gap's gamma-centroid columns in place of its best-scoring ones. Both twins decode with the same code on
the same first fills under the same rates, so their columns stay the same.
"""
from __future__ import annotations

import logging

import numpy as np

from . import native
from .arrays import BLOCK, WARP, array_module, blocks as grid, cupy, exclusive_sum, kernel, launch_parts, to_host
from .params import Params
from .schema import UNKNOWN

log = logging.getLogger(__name__)


def band_widths(dx, dy, band: int):
    """The width of each gap's band (scoring.h's band_of: diagonals no cell lies on left out)."""
    xp = array_module(dx)
    lo = xp.maximum(xp.minimum(dy - dx, 0) - band, -dx)
    hi = xp.minimum(xp.maximum(dy - dx, 0) + band, dy)
    return hi - lo + 1


def fitted_rates(alen, gcols, gcounts, gat, ops) -> dict:
    """The pair HMM's rates from the first fills (and the anchors, all matches): substitutions among
    aligned pairs, gap runs opened a side a pair, and the chance a gap goes on (its mean length). Pairs
    holding an N (gcounts' last column) are left out: their bases are unknown."""
    unknown = int(gcounts[:, UNKNOWN].sum())
    aligned = int(alen.sum()) + int(gcounts[:, 0].sum() + gcounts[:, 1].sum()) - unknown
    room = np.diff(gat)  # a gap's bytes of ops; its columns are the first gcols of them
    # a byte a position (not the eight of an index): +1 where a gap's columns start, -1 where they stop
    marks = np.zeros(int(gat[-1]) + 1, dtype=np.int8)
    np.add.at(marks, gat[:-1], 1)
    np.add.at(marks, gat[:-1] + gcols, -1)
    used = np.cumsum(marks[:-1], dtype=np.int8).astype(bool)
    first = np.zeros(int(gat[-1]), dtype=bool)  # a gap's first column: a run starts there whatever ends the gap before
    first[gat[:-1][room > 0]] = True
    runs = bases = 0
    for op in (2, 3):
        gap = used & (ops[:int(gat[-1])] == op)
        bases += int(gap.sum())
        runs += int((gap & (first | ~np.concatenate(([False], gap[:-1])))).sum())
    sigma = (int(gcounts[:, 1].sum()) - unknown) / max(aligned, 1)
    return {"sigma": min(max(sigma, 1e-4), 0.7), "delta": min(max(runs / 2 / max(aligned, 1), 1e-6), 0.25),
            "epsilon": min(max(1 - runs / max(bases, 1), 1e-3), 0.95)}


def posterior_pass(q, rf, rr, gq, gr, dx, dy, gat, strand, alen, gscore, gcols, gcounts, ops, params: Params,
                   threads: int = 0) -> dict:
    """The gaps' columns, scores and counts made again in place (host arrays) by posterior decoding
    (posterior.c) under the rates fitted to their first fills. q, rf, rr: the codes of the query and of
    the reference's strands; gq, gr, dx, dy: each gap's start on them and its bases; gat: where each
    gap's columns go in ops; strand: the gap's reference strand. Returns the rates."""
    a = params.aligning
    rates = _rates(alen, gcols, gcounts, gat, ops, a.gamma)
    native.module("_cpu").align_posterior(q, rf, rr, gq, gr, dx, dy, gat[:-1].copy(), strand, rates["sigma"],
                                          rates["delta"], rates["epsilon"], float(a.gamma), a.align_match,
                                          a.align_mismatch, a.gap_open, a.gap_extend, a.band, gscore, gcols, gcounts,
                                          ops, threads or native.threads())
    return rates


# doubles and direction bytes the gaps of one align_posterior launch hold (a gap larger alone is one launch)
POSTERIOR_BYTES = 1 << 30


def posterior_pass_cupy(q, rf, rr, gq, gr, dx, dy, gat, strand, alen, gscore, gcols, gcounts, ops, params: Params,
                        threads: int = 0) -> dict:
    """posterior_pass on the device (posterior.cu) on device arrays: the same columns. The rates are
    fitted on the host (the first fills' ops come over for it); the gaps are decoded a warp each,
    largest first, in launches of at most POSTERIOR_BYTES of scratch. threads: unused."""
    cp = cupy()
    a = params.aligning
    rates = _rates(*(to_host(v) for v in (alen, gcols, gcounts, gat, ops)), a.gamma)
    n = int(dx.size)
    width = band_widths(dx, dy, a.band)
    doubles, cells = (3 * (dx + 1) + 8) * width + dx + 1, (dx + 1) * width  # posterior.cu's scratch; dir bytes
    order = cp.argsort(-cells)  # the largest started first
    sq, sr, sdx, sdy, sat, sstrand = gq[order], gr[order], dx[order], dy[order], gat[:-1][order], strand[order]
    doubles, cells = doubles[order], cells[order]
    ends = cp.cumsum(8 * doubles + cells).get()
    score, cols, counts = gscore[order], gcols[order], gcounts[order]  # a gap too wide to decode keeps its fill's
    decode = kernel("posterior.cu", "align_posterior")
    for part in launch_parts(ends, POSTERIOR_BYTES):
        scratch_at, dir_at = exclusive_sum(doubles[part]), exclusive_sum(cells[part])
        scratch = cp.empty(int(scratch_at[-1]), dtype=cp.float64)
        dirs = cp.empty(int(dir_at[-1]), dtype=cp.uint8)
        size = part.stop - part.start
        decode((grid(WARP * size),), (BLOCK,), (  # a warp a gap
            q, rf, rr, sq[part], sr[part], sdx[part], sdy[part], sat[part], scratch_at, dir_at, sstrand[part],
            cp.int64(size), cp.float64(rates["sigma"]), cp.float64(rates["delta"]), cp.float64(rates["epsilon"]),
            cp.float64(a.gamma), cp.int32(a.align_match), cp.int32(a.align_mismatch), cp.int32(a.gap_open),
            cp.int32(a.gap_extend), cp.int64(a.band), score[part], cols[part], counts[part], ops, scratch, dirs))
        del scratch, dirs
    gscore[order], gcols[order], gcounts[order] = score, cols, counts
    return rates


def _rates(alen, gcols, gcounts, gat, ops, gamma) -> dict:
    """fitted_rates (host arrays), logged."""
    rates = fitted_rates(alen, gcols, gcounts, gat, ops)
    # the fit sees the comparison it is run in: where a pair is compared in parts (align's --part-bases, the
    # workflow's bins), each part is fitted to its own fills, so the decoded columns may differ from the
    # whole pair's (docs/COMMANDS.md, --gamma)
    log.info("posterior fills: substitutions %.4f, gap opens %.5f a side a pair, extension %.3f, gamma %g; fitted "
             "to the first fills of %d gaps of this comparison (of this part alone where the pair is compared in "
             "parts: --part-bases, the workflow's bins)", rates["sigma"], rates["delta"], rates["epsilon"], gamma,
             max(0, int(np.asarray(gat).size) - 1))
    return rates
