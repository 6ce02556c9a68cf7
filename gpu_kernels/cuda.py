"""The CuPy backend: the generic stages on device arrays, raw CUDA kernels for the hot ones.

Kernels live in the .cu files beside this module (each with its launch shape and invariants in
its header) and are compiled once per process by cupy.RawModule.
"""
from __future__ import annotations

import functools
import logging
import os

import cupy as cp
import cupyx
import numpy as np

from .backend import Backend
from .encode import BORDER, ENCODE, N_CODE
from .errors import InputError
from .fasta import bad_character, layout, read_bytes
from .seeds import SeedGroups, seed_group_index
from .seqset import GAP, SeqSet
from .words import sorted_words

log = logging.getLogger(__name__)

HERE = os.path.dirname(os.path.abspath(__file__))
EXTEND_THREADS = 128
SEEDS_PER_WARP = 16
# Device bytes a seed occupies while a tile is processed: group index and its markers (8), the
# diagonal key (8), the radix sort's buffers (16), the filter mask and compaction (9).
GPU_SEED_BYTES = 48


@functools.lru_cache(maxsize=None)
def module(name: str) -> cp.RawModule:
    """The compiled .cu file gpu_kernels/<name>.cu."""
    with open(os.path.join(HERE, f"{name}.cu")) as handle:
        return cp.RawModule(code=handle.read(), options=("-std=c++17",))


def _blocks(n: int, threads: int) -> int:
    return max(1, (n + threads - 1) // threads)


def word_keys(codes: cp.ndarray, k: int):
    """(keys, valid) of every window, one thread per window."""
    n = codes.size - k + 1
    keys = cp.empty(max(n, 0), dtype=cp.uint64)
    valid = cp.empty(max(n, 0), dtype=cp.uint8)
    if n > 0:
        module("words").get_function("word_keys")((_blocks(n, 256),), (256,), (codes, np.int64(n), np.int32(k), keys, valid))
    return keys, valid.view(cp.bool_)


def device_seed_groups(qk: cp.ndarray, rk: cp.ndarray) -> SeedGroups:
    """Seed groups from sorted query and reference keys: one kernel, one compaction."""
    nq = qk.size
    if nq == 0 or rk.size == 0:
        empty = cp.zeros(0, dtype=cp.int64)
        return SeedGroups(empty, empty, empty, empty)
    qcount = cp.empty(nq, dtype=cp.int64)
    rfirst = cp.empty(nq, dtype=cp.int64)
    rcount = cp.empty(nq, dtype=cp.int64)
    blocks = min(_blocks(nq, 256), 65535 * 8)
    module("groups").get_function("group_starts")((blocks,), (256,), (qk, np.int64(nq), rk, np.int64(rk.size),
                                                                       qcount, rfirst, rcount))
    start = cp.flatnonzero(rcount)
    return SeedGroups(start, qcount[start], rfirst[start], rcount[start])


def seed_keys(groups, qp, rp, rtotal: int, width: int):
    """Sorted diagonal keys of every seed of a tile, generated on the device from exact counts."""
    if groups.qcount.size == 0:
        return cp.zeros(0, dtype=cp.uint64)
    group, offsets = seed_group_index(groups)
    keys = cp.empty(group.size, dtype=cp.uint64)
    blocks = min(_blocks(group.size, 256), 65535 * 8)
    module("seeds").get_function("seed_keys")(
        (blocks,), (256,),
        (group, offsets, groups.qfirst, groups.rfirst, groups.rcount, qp, rp, np.int64(group.size),
         np.int64(rtotal), np.uint64(width), keys))
    del group, offsets
    keys.sort()
    return keys


def extend_seeds(qcodes, rcodes, sq, sr, k: int, match: int, xdrop: int, mismatch: int, n_score: int,
                 min_len: int, min_identity: float, bases: cp.ndarray):
    """Extend every seed with one warp per run of seeds; returns only the seeds that were walked."""
    n = sq.size
    qstart = cp.empty(n, dtype=cp.int64)
    qend = cp.empty(n, dtype=cp.int64)
    score = cp.empty(n, dtype=cp.int32)
    ids = cp.empty(n, dtype=cp.int32)
    status = cp.zeros(n, dtype=cp.uint8)
    if n:
        warps = (n + SEEDS_PER_WARP - 1) // SEEDS_PER_WARP
        module("extend").get_function("extend_runs")(
            (_blocks(warps * 32, EXTEND_THREADS),), (EXTEND_THREADS,),
            (qcodes, rcodes, sq, sr, np.int64(n), np.int32(SEEDS_PER_WARP), np.int32(k), np.int32(match),
             np.int32(mismatch), np.int32(n_score), np.int32(xdrop), np.int64(min_len), np.float64(min_identity),
             qstart, qend, score, ids, status, bases))
    walked = status.view(cp.bool_)
    return (sq[walked], sr[walked], qstart[walked], qend[walked], score[walked].astype(cp.int64),
            ids[walked].astype(cp.int64))


def running_max(values: cp.ndarray) -> cp.ndarray:
    """Inclusive running maximum (int64), block scans then carries, recursively over block totals."""
    n = values.size
    out = cp.empty_like(values)
    if n == 0:
        return out
    tile = 1024
    blocks = _blocks(n, tile)
    totals = cp.empty(blocks, dtype=cp.int64)
    scan = module("scan")
    scan.get_function("block_max_scan")((blocks,), (256,), (values, out, totals, np.int64(n)))
    if blocks > 1:
        scanned = running_max(totals)
        scan.get_function("add_carry")((blocks,), (256,), (out, scanned, np.int64(n)))
    return out


WHITESPACE = np.zeros(256, dtype=bool)
WHITESPACE[[9, 10, 13, 32]] = True


def load_fasta(path: str) -> SeqSet:
    """Records of a FASTA file laid end to end on the device: the raw file is uploaded once and
    line breaks, encoding, borders and the record checks are all done there."""
    data = read_bytes(path)
    spans = layout(data, path)
    names = [name for name, _, _ in spans]
    raw = cp.asarray(np.frombuffer(data, dtype=np.uint8))
    starts = cp.asarray(np.array([s for _, s, _ in spans], dtype=np.int64))
    ends = cp.asarray(np.array([e for _, _, e in spans], dtype=np.int64))
    edge = cp.zeros(raw.size + 1, dtype=cp.int32)
    cp.add.at(edge, starts, 1)
    cp.add.at(edge, ends, -1)
    keep = (cp.cumsum(edge[:-1]) > 0) & ~cp.asarray(WHITESPACE)[raw]
    kept = cp.concatenate((cp.zeros(1, dtype=cp.int64), cp.cumsum(keep, dtype=cp.int64)))
    lengths = cp.asnumpy(kept[ends] - kept[starts])
    codes = cp.asarray(ENCODE)[raw[keep]]
    del raw, keep, edge
    ends_of = np.cumsum(lengths)
    acgt = cp.concatenate((cp.zeros(1, dtype=cp.int64), cp.cumsum(codes < N_CODE, dtype=cp.int64)))
    acgt = cp.asnumpy(acgt[cp.asarray(ends_of)] - acgt[cp.asarray(ends_of - lengths)])
    bad = cp.flatnonzero(codes == 255)
    for i, name in enumerate(names):
        if lengths[i] == 0:
            raise InputError("empty record, no sequence", path, name)
    if bad.size:
        first = int(bad[0])
        i = int(np.searchsorted(ends_of, first, side="right"))
        raise bad_character(data[spans[i][1]:spans[i][2]], first - (ends_of[i] - lengths[i]), path, names[i])
    for i, name in enumerate(names):
        if acgt[i] == 0:
            raise InputError("no A, C, G or T in the sequence (all N)", path, name)
    lengths = lengths.astype(np.int64)
    record_starts = GAP + np.concatenate(([0], np.cumsum(lengths + GAP)[:-1])).astype(np.int64)
    total = int(GAP + lengths.sum() + GAP * len(names))
    out = cp.full(total, BORDER, dtype=cp.uint8)
    index = cp.arange(codes.size, dtype=cp.int64)
    record = cp.searchsorted(cp.asarray(ends_of), index, side="right")
    out[index + GAP * (record + 1)] = codes
    return SeqSet(names, lengths, record_starts, out)


class CupyBackend(Backend):
    """Every stage on the current CUDA device (CUDA_VISIBLE_DEVICES decides which)."""

    name = "cupy"
    xp = cp
    oom_errors = (cp.cuda.memory.OutOfMemoryError,)

    def __init__(self):
        self.bases = cp.zeros(1, dtype=cp.uint64)

    def words(self, codes, k: int):
        """Sorted words, keys hashed by a kernel, sorted by CuPy's radix sort."""
        return sorted_words(*word_keys(codes, k))

    def load_fasta(self, path: str) -> SeqSet:
        """A FASTA file encoded on the device from its raw bytes (one upload, no host-side pass)."""
        return load_fasta(path)

    def seed_groups(self, qk, rk) -> SeedGroups:
        """Keys present on both sides and where their words lie."""
        return device_seed_groups(qk, rk)

    def tile_keys(self, groups, qp, rp, rtotal: int, width: int):
        """Sorted diagonal keys of a tile's seeds."""
        return seed_keys(groups, qp, rp, rtotal, width)

    def extend(self, qcodes, rcodes, sq, sr, k: int, tables, params):
        """Walked seeds and their HSP spans."""
        return extend_seeds(qcodes, rcodes, sq, sr, k, params.match, params.xdrop, params.mismatch,
                            params.n_score, params.min_len, params.min_identity, self.bases)

    def counters(self) -> dict:
        """Device-side counts: bases read on each sequence by extension."""
        return {"extend_bases": int(self.bases.get()[0])}

    def to_device(self, array):
        return cp.asarray(array)

    def to_host(self, array):
        """Copy to pinned host memory (about twice the bandwidth of a pageable copy)."""
        if isinstance(array, np.ndarray):
            return array
        out = cupyx.empty_pinned(array.shape, array.dtype)
        array.get(out=out)
        return out

    def synchronize(self) -> None:
        cp.cuda.Device().synchronize()

    def seed_budget(self, tile_bytes: int) -> int:
        """Seeds a tile may hold: tile_bytes, or half the free device memory (pool included) if smaller or 0."""
        pool = cp.get_default_memory_pool()
        free = (cp.cuda.runtime.memGetInfo()[0] + pool.free_bytes()) // 2
        return max(1, min(tile_bytes or free, free) // GPU_SEED_BYTES)

    def release(self) -> None:
        """Return cached blocks to the device (after an out-of-memory error)."""
        cp.get_default_memory_pool().free_all_blocks()
