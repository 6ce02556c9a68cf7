"""Posterior decoding of the gaps between anchors (posterior.c; tests/oracle_posterior.py the oracle),
the gapped stage's second pass where `gamma` is set (the distant preset's): a pair HMM's rates fitted
to the pair's first fills, then each gap's gamma-centroid columns in place of its best-scoring ones.
Both backends run it on the host on the same first fills, so their columns stay the same (no device
twin yet: align_chains_cupy copies the gaps over and back).
"""
from __future__ import annotations

import logging

import numpy as np

from . import native
from .params import Params

log = logging.getLogger(__name__)


def fitted_rates(alen, gcols, gcounts, gat, ops) -> dict:
    """The pair HMM's rates from the first fills (and the anchors, all matches): substitutions among
    aligned pairs, gap runs opened a side a pair, and the chance a gap goes on (its mean length)."""
    aligned = int(alen.sum()) + int(gcounts[:, 0].sum() + gcounts[:, 1].sum())
    room = np.diff(gat)  # a gap's bytes of ops; its columns are the first gcols of them
    used = np.arange(int(gat[-1])) - np.repeat(gat[:-1], room) < np.repeat(gcols, room)
    runs = bases = 0
    for op in (2, 3):
        gap = used & (ops[:int(gat[-1])] == op)
        bases += int(gap.sum())
        runs += int((gap & ~np.concatenate(([False], gap[:-1]))).sum())
    sigma = int(gcounts[:, 1].sum()) / max(aligned, 1)
    return {"sigma": min(max(sigma, 1e-4), 0.7), "delta": min(max(runs / 2 / max(aligned, 1), 1e-6), 0.25),
            "epsilon": min(max(1 - runs / max(bases, 1), 1e-3), 0.95)}


def posterior_pass(q, rf, rr, gq, gr, dx, dy, gat, strand, alen, gscore, gcols, gcounts, ops, params: Params,
                   threads: int = 0) -> dict:
    """The gaps' columns, scores and counts made again in place (host arrays) by posterior decoding
    (posterior.c) under the rates fitted to their first fills; both backends run it on the host, on
    the same first fills, so their columns stay the same. Returns the rates."""
    a = params.aligning
    rates = fitted_rates(alen, gcols, gcounts, gat, ops)
    log.info("posterior fills: substitutions %.4f, gap opens %.5f a side a pair, extension %.3f, gamma %g",
             rates["sigma"], rates["delta"], rates["epsilon"], a.gamma)
    native.module("_cpu").align_posterior(q, rf, rr, gq, gr, dx, dy, gat[:-1].copy(), strand, rates["sigma"],
                                          rates["delta"], rates["epsilon"], float(a.gamma), a.align_match,
                                          a.align_mismatch, a.gap_open, a.gap_extend, a.band, gscore, gcols, gcounts,
                                          ops, threads or native.threads())
    return rates
