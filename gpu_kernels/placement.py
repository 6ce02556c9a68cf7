"""The chains' blocks as written (docs/DEFINITIONS.md "What a chain is", 6): each seam between two overlapping
HSPs of a chain placed where their columns score best, each block cut at its drops, each piece's
ends moved past tandem runs; the compiled loops and the kernels are chains.c's and chains.cu's
(chain_seams, chain_pieces), a block a task or a thread."""
from __future__ import annotations

import logging
import time

import numpy as np

from . import native
from .arrays import BLOCK, array_module, cupy, kernel, to_host
from .arrays import count as count_true
from .arrays import blocks as grid  # in functions whose `blocks` are the chains' blocks
from .chains import blocks_of, run_starts, block_positions
from .params import Params
from .seqset import SeqSet, reverse_complement

log = logging.getLogger(__name__)


def refine_blocks(chains: dict, blocks: dict, query: SeqSet, reference: SeqSet, params: Params, threads: int = 0,
                  codes: tuple | None = None) -> tuple[dict, dict]:
    """(the chains table, the blocks) as written (docs/DEFINITIONS.md "What a chain is", 6): each seam between two
    overlapping members of a chain put where their columns score best, each block cut at its drops,
    each piece's ends moved past tandem runs; the table's spans, `aligned` and `identities` are the
    pieces'. The chains and chain_blocks' blocks with their `trim`, on the host; codes: unused (the
    SeqSets' codes are on the host)."""
    cpu = native.module("_cpu")
    threads = threads or native.threads()
    start = time.perf_counter()
    at, where, scores, piece_scores = _refine_args(chains, blocks, query, reference, params)
    n = int(blocks["x0"].size)
    sequences = (query.codes, reference.codes, reference.reverse_codes)
    first, last = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    cpu.chain_seams(*sequences, *at, *where, *scores, first, last, threads)
    plain = np.zeros(n, dtype=np.uint8)
    placed = (*at, where[0], where[2], first, last, where[-1], plain, *piece_scores)
    count = np.empty(n, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    cpu.chain_pieces(*sequences, *placed, count, 0, none, none, none, none, threads)
    if _keep_tandems(blocks["chain"], count, plain):
        cpu.chain_pieces(*sequences, *placed, count, 2, none, none, none, none, threads)
    offsets = np.concatenate(([0], np.cumsum(count)))
    pieces = [np.empty(int(offsets[-1]), dtype=np.int64) for _ in range(4)]
    cpu.chain_pieces(*sequences, *placed, offsets[:-1].copy(), 1, *pieces, threads)
    return _pieces(chains, blocks, *pieces, reference.lengths, start)


def _keep_tandems(chain, count, plain) -> bool:
    """Marks in plain the blocks of every chain whose pieces (count a block) would all be left out
    as tandem runs, so that it keeps them (their count is then made again); whether there are any.
    On the arrays' device."""
    xp = array_module(count)
    if not chain.size:
        return False
    first = run_starts(chain)
    empty = xp.add.reduceat(count, xp.flatnonzero(first)) == 0
    if not count_true(empty):  # scan.cu's count on the device: CuPy's any() is two CUB kernels of 2 s to compile
        return False
    plain[...] = empty[xp.cumsum(first) - 1]
    return True


def refine_blocks_cupy(chains: dict, blocks: dict, query: SeqSet, reference: SeqSet, params: Params,
                       threads: int = 0, codes: tuple | None = None) -> tuple[dict, dict]:
    """refine_blocks on the device (chains.cu, a thread a block): the same table and blocks, on the
    host. codes: both sides' codes on the device (compare's), else copied there."""
    cp = cupy()
    start = time.perf_counter()
    q, rf = (cp.asarray(c) for c in (codes or (query.codes, reference.codes)))
    sequences = (q, rf, reverse_complement(rf))
    on_device = {name: cp.asarray(blocks[name]) for name in ("chain", "x0", "xe", "y0", "ye", "trim", "first")}
    at, where, scores, piece_scores = _refine_args(chains, on_device, query, reference, params)
    n = int(blocks["x0"].size)
    first, last = cp.empty(n, dtype=cp.int64), cp.empty(n, dtype=cp.int64)
    count = cp.zeros(max(n, 1), dtype=cp.int64)[:n]
    none = cp.zeros(1, dtype=cp.int64)
    plain = cp.zeros(max(n, 1), dtype=cp.uint8)[:n]
    placed = (*at, where[0], where[2], first, last, where[-1], plain, cp.int64(n), *piece_scores)
    pieces_kernel = kernel("chains.cu", "chain_pieces")
    if n:
        kernel("chains.cu", "chain_seams")((grid(n),), (BLOCK,), (*sequences, *at, *where, cp.int64(n), *scores,
                                                                  first, last))
        pieces_kernel((grid(n),), (BLOCK,), (*sequences, *placed, count, cp.int32(0), none, none, none, none))
        if _keep_tandems(on_device["chain"], count, plain):
            pieces_kernel((grid(n),), (BLOCK,), (*sequences, *placed, count, cp.int32(2), none, none, none, none))
    offsets = cp.concatenate((cp.zeros(1, dtype=cp.int64), cp.cumsum(count)))
    total = int(offsets[-1])
    pieces = [cp.zeros(max(total, 1), dtype=cp.int64)[:total] for _ in range(4)]
    if total:
        pieces_kernel((grid(n),), (BLOCK,), (*sequences, *placed, offsets[:-1].copy(), cp.int32(1), *pieces))
    return _pieces(chains, blocks, *(to_host(p) for p in pieces), reference.lengths, start)


def _refine_args(chains: dict, blocks: dict, query: SeqSet, reference: SeqSet, params: Params) -> tuple:
    """The arguments of chain_seams and chain_pieces after the codes, on the blocks' device, in four
    groups: where the blocks start in the codes (qpos, rpos); the blocks (x0, xe, y0, trim, seam,
    strand: a seam lies before each block that overlapped the one before it); the seams' scores (the
    HSPs': match, mismatch, n_score); the pieces' (match, block_mismatch, n_score, block_drop,
    block_tandem)."""
    xp = array_module(blocks["x0"])
    qpos, rpos, _, strand = block_positions(chains, blocks, query, reference)
    seam = (~blocks["first"] & (blocks["trim"] > 0)).astype(xp.uint8)
    e, c = params.extension, params.chaining
    return ((qpos, rpos), (blocks["x0"], blocks["xe"], blocks["y0"], blocks["trim"], seam, strand),
            tuple(np.int64(v) for v in (e.match, e.mismatch, e.n_score)),
            tuple(np.int64(v) for v in (e.match, c.block_mismatch, e.n_score, c.block_drop, c.block_tandem)))


def _pieces(chains: dict, blocks: dict, pblock, px0, pxe, pids, rlens, start: float) -> tuple[dict, dict]:
    """(the chains table, the blocks) from refine_blocks' pieces (each one's block, query start and end,
    identities; host arrays), logged with the time since start. Every chain keeps a piece."""
    chain = np.asarray(blocks["chain"])[pblock]
    diagonal = (np.asarray(blocks["x0"]) - np.asarray(blocks["y0"]))[pblock]
    x0, xe = px0, pxe
    y0, ye = x0 - diagonal, xe - diagonal
    placed = blocks_of(chain, x0, xe, y0, ye)
    table = dict(chains)
    if chain.size:
        starts, ends = np.flatnonzero(placed["first"]), np.flatnonzero(placed["last"])
        reverse = np.asarray(chains["strand"]) == 1
        rlen = np.asarray(rlens, dtype=np.int64)[np.asarray(chains["rrec"], dtype=np.int64)]
        table.update(qstart=x0[starts], qend=xe[ends],
                     rstart=np.where(reverse, rlen - ye[ends], y0[starts]),
                     rend=np.where(reverse, rlen - y0[starts], ye[ends]),
                     aligned=np.add.reduceat(xe - x0, starts), identities=np.add.reduceat(pids, starts))
    log.info("chain blocks placed: %d pieces of %d blocks (%.2f s)", chain.size, blocks["x0"].size,
             time.perf_counter() - start)
    return table, placed
