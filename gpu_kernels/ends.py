"""The ends of alignments (docs/DEFINITIONS.md, "What an alignment is", 6): each alignment's pieces
extended outwards with an X-drop, up to max_gap bases, the records' ends and, where its chain was cut,
the next piece's anchors. The host's (align.c's align_extend, on threads) and the device's twin
(align.cu's align_extend, a thread an end) give the same columns; tests/oracle_align.extend is the
oracle. align.finish joins what they add to the alignments."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import native
from .arrays import BLOCK, array_module, blocks as grid, cupy, exclusive_sum, kernel, launch_parts, to_host
from .params import Params
from .schema import COUNT_KINDS, UNKNOWN
from .seqset import SeqSet

# per alignment, what its ends' extensions add: bases on the query and the reference at its start
# and at its end, and where each extension's columns lie in the extensions' ops (outwards from the end)
EXTENSION = ("dq_start", "dr_start", "dq_end", "dr_end", "at_start", "cols_start", "at_end", "cols_end")


def _end_frames(found: dict, achain, ax, ay, alen, qoff, qlen, roff, rlen, strand, max_gap: int) -> tuple:
    """Where each piece's two ends are extended from (its start's n rows, then its end's): the base next
    to the end on each side, the step outwards, the most bases on each side (a chain's own ends up to
    the records' ends, the ends where it was cut (a long indel, a fill or a drop under zdrop) up to the
    next piece's anchors, at most max_gap), each end's strand and where its columns go."""
    first, last = found["first"], found["last"]
    n = int(first.size)
    xs, ys = ax[first], ay[first]
    xe, ye = ax[last] + alen[last], ay[last] + alen[last]
    before = np.zeros(n, dtype=bool)  # a piece of the chain comes before it
    before[1:] = achain[first[1:]] == achain[last[:-1]]
    after = np.zeros(n, dtype=bool)
    after[:-1] = before[1:]
    lq = np.concatenate((xs - qoff, qoff + qlen - xe))
    lr = np.concatenate((ys - roff, roff + rlen - ye))
    lq[:n][before], lr[:n][before] = (xs - np.roll(xe, 1))[before], (ys - np.roll(ye, 1))[before]
    lq[n:][after], lr[n:][after] = (np.roll(xs, -1) - xe)[after], (np.roll(ys, -1) - ye)[after]
    lq, lr = np.clip(lq, 0, max_gap), np.clip(lr, 0, max_gap)
    qpos = np.concatenate((xs - 1, xe))
    rpos = np.concatenate((ys - 1, ye))
    step = np.repeat(np.array([-1, 1], dtype=np.int8), n)
    return qpos, rpos, step, lq, lr, np.ascontiguousarray(np.concatenate((strand, strand))), exclusive_sum(lq + lr)


def _packed(ops, at, cols) -> tuple:
    """Each end's columns (cols of them, written at `at` in ops) laid end to end: (the ops, where each
    end's start), on ops' device. An end may take max_gap bases a side and most take a few hundred
    columns: unpacked, a compare job's ends weighed a GB, most of it zeros, handed to its texts' job."""
    xp = array_module(ops)
    packed_at = exclusive_sum(cols)
    k = xp.arange(int(packed_at[-1]), dtype=xp.int64)
    owner = xp.searchsorted(packed_at[1:], k, side="right")
    return ops[at[owner] + k - packed_at[owner]], packed_at


def _extended(n: int, at, score, dq, dr, counts) -> tuple:
    """extend_ends' answer, on the host, but the ops packed (_packed): from the ends' scores,
    extents and columns by kind (the start's n, then the end's), and where their ops went (at)."""
    ext = np.zeros((n, len(EXTENSION)), dtype=np.int64)
    cols = counts[:, :UNKNOWN].sum(axis=1)
    ext[:, 0], ext[:, 1], ext[:, 4], ext[:, 5] = dq[:n], dr[:n], at[:n], cols[:n]
    ext[:, 2], ext[:, 3], ext[:, 6], ext[:, 7] = dq[n:], dr[n:], at[n:-1], cols[n:]
    both = np.column_stack((score, counts))
    return ext, both[:n] + both[n:]


def extend_ends(found: dict, achain, ax, ay, alen, qoff, qlen, roff, rlen, strand, query: SeqSet,
                reference: SeqSet, params: Params, threads: int = 0, codes: tuple | None = None) -> tuple:
    """The X-drop extensions of each alignment at its start and its end (align.c's align_extend; the
    device's twin extend_ends_cupy), up to max_gap bases, the records' ends and, where the chain was cut,
    the next piece's anchors: (the extension columns (n, 8) as EXTENSION names them, their ops; the
    score and columns by kind they add). codes: (query, reference, its reverse complement), default the
    SeqSets'."""
    a = params.aligning
    n = int(found["first"].size)
    if n == 0 or not a.end_xdrop:  # added: score, then the columns by kind (COUNT_KINDS)
        return (np.zeros((n, len(EXTENSION)), dtype=np.int64), np.zeros(0, dtype=np.uint8),
                np.zeros((n, 1 + COUNT_KINDS), dtype=np.int64))
    qpos, rpos, step, lq, lr, strands, at = _end_frames(found, achain, ax, ay, alen, qoff, qlen, roff, rlen, strand,
                                                        params.chaining.max_gap)
    ops = np.zeros(int(at[-1]), dtype=np.uint8)
    score, dq, dr = (np.empty(2 * n, dtype=np.int64) for _ in range(3))
    counts = np.empty((2 * n, COUNT_KINDS), dtype=np.int64)
    codes = codes or (query.codes, reference.codes, reference.reverse_codes)
    native.module("_cpu").align_extend(
        *codes, qpos, rpos, step, lq, lr, strands, at[:-1].copy(),
        a.align_match, a.align_mismatch, a.gap_open, a.gap_extend, a.band, a.end_xdrop, score, dq, dr, counts, ops,
        threads or native.threads())
    ops, at = _packed(ops, at, counts[:, :UNKNOWN].sum(axis=1))
    ext, added = _extended(n, at, score, dq, dr, counts)
    return ext, ops, added


# scratch a launch of the device's extensions may hold: the threads' rows, and the direction bytes of
# the second pass (an end larger than this alone is one launch)
EXTEND_BYTES = 1 << 28


def extend_ends_cupy(found: dict, achain, ax, ay, alen, qoff, qlen, roff, rlen, strand, query: SeqSet,
                     reference: SeqSet, params: Params, threads: int = 0, codes: tuple | None = None) -> tuple:
    """extend_ends on the device (align.cu's align_extend, a thread an end; threads unused): the same
    answer, on the host, from the same host arrays; codes on the device where given (else copied there).
    A first pass finds each end's best cell, a second computes its rows again up to it, keeping their
    direction bytes (so the bytes held are the rows kept, not max_gap's)."""
    cp = cupy()
    a = params.aligning
    n = int(found["first"].size)
    if n == 0 or not a.end_xdrop:
        return extend_ends(found, achain, ax, ay, alen, qoff, qlen, roff, rlen, strand, query, reference, params)
    frames = _end_frames(found, achain, ax, ay, alen, qoff, qlen, roff, rlen, strand, params.chaining.max_gap)
    qpos, rpos, step, lq, lr, strands, at = (cp.asarray(v) for v in frames)
    ends, w = 2 * n, 2 * a.band + 1
    score, dq, dr = (cp.zeros(ends, dtype=cp.int64) for _ in range(3))
    counts = cp.zeros((ends, COUNT_KINDS), dtype=cp.int64)
    extend = kernel("align.cu", "align_extend")
    threads = max(1, min(ends, EXTEND_BYTES // (8 * w)))  # two rows of w ints a thread
    blocks = (threads + BLOCK - 1) // BLOCK
    rows = cp.empty(blocks * BLOCK * 2 * w, dtype=cp.int32)
    none, no_ops = cp.zeros(1, dtype=cp.int64), cp.zeros(1, dtype=cp.uint8)
    q, rf, rr = codes or (cp.asarray(c) for c in (query.codes, reference.codes, reference.reverse_codes))

    def launch(first: int, size: int, pass_: int, ops_at, ops, dir_at, dirs) -> None:
        extend((min(blocks, grid(size)),), (BLOCK,), (
            q, rf, rr, qpos, rpos, step, lq, lr, strands, ops_at, cp.int64(first), cp.int64(size),
            cp.int32(a.align_match), cp.int32(a.align_mismatch), cp.int32(a.gap_open), cp.int32(a.gap_extend),
            cp.int64(a.band), cp.int32(a.end_xdrop), cp.int32(pass_), score, dq, dr, counts, ops, dir_at, dirs, rows))

    for first in range(0, ends, threads):
        launch(first, min(threads, ends - first), 0, at, no_ops, none, no_ops)
    bound = exclusive_sum(dq + dr)  # a path to the best cell (dq, dr) takes at most dq + dr columns
    ops = cp.zeros(max(int(bound[-1]), 1), dtype=cp.uint8)
    cells = ((dq + 1) * w).get()
    for part in launch_parts(np.cumsum(cells), EXTEND_BYTES):
        dir_at = exclusive_sum(cp.asarray(cells[part]))
        dirs = cp.empty(max(int(dir_at[-1]), 1), dtype=cp.uint8)
        for first in range(part.start, part.stop, threads):
            size = min(threads, part.stop - first)
            launch(first, size, 1, bound, ops, dir_at[first - part.start:], dirs)
        del dirs
    ops, packed_at = _packed(ops, bound, counts[:, :UNKNOWN].sum(axis=1))
    ext, added = _extended(n, *(to_host(v) for v in (packed_at, score, dq, dr, counts)))
    return ext, to_host(ops), added


class EndArguments(NamedTuple):
    """extend_ends' arguments before the SeqSets (on the host), in its order: the pieces, their anchors,
    and each piece's records' offsets and lengths in the codes of its strand, and its strand."""
    found: dict
    achain: np.ndarray
    ax: np.ndarray
    ay: np.ndarray
    alen: np.ndarray
    qoff: np.ndarray
    qlen: np.ndarray
    roff: np.ndarray
    rlen: np.ndarray
    strand: np.ndarray


def end_arguments(found: dict, chains: dict, achain, astrand, ax, ay, alen, query: SeqSet,
                  reference: SeqSet) -> EndArguments:
    """extend_ends' arguments for the pieces `found` of chains (align.pieces'), from their anchors."""
    chain = achain[found["first"]]
    qrec, rrec = chains["qrec"][chain].astype(np.int64), chains["rrec"][chain].astype(np.int64)
    strand = astrand[found["first"]]
    qoff = query.starts[qrec]
    roff = np.where(strand == 1, reference.reverse_starts()[rrec], reference.starts[rrec])
    return EndArguments(found, achain, ax, ay, alen, qoff, query.lengths[qrec], roff, reference.lengths[rrec], strand)
