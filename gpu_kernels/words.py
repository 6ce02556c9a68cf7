"""Words: every k-mer made only of A, C, G, T, packed 2 bits a base into a uint64, sorted by key.

CPU: keys rolled a base at a time and a stable radix sort, compiled, on all cores (words.c,
cpu.c). CuPy: one thread a window (words.cu), the valid windows kept in order (select.cu), CuPy's
radix sort. word_keys (k shifted NumPy passes) is the plain twin of word_keys_cupy that the GPU
tests compare with.
"""
from __future__ import annotations

import mmap

import numpy as np

from . import native
from .arrays import BLOCK, array_module, blocks, concatenate, cupy, every, gather, kernel, on_host, select

MAX_K = 21  # the longest word of 3 bits a symbol (compiled_words' exact-match words) in a uint64


def _valid(codes, k: int):
    """Whether each window start 0..n-k is made only of ACGT."""
    xp = array_module(codes)
    if codes.size < k:
        return xp.zeros(0, dtype=bool)
    bad = xp.concatenate((xp.zeros(1, dtype=xp.int64), xp.cumsum(codes > 3, dtype=xp.int64)))
    return (bad[k:] - bad[:-k]) == 0


def word_keys(codes, k: int):
    """(keys, valid) for every window start 0..n-k: the packed k-mer and whether it is all ACGT."""
    xp = array_module(codes)
    n = codes.size - k + 1
    if n <= 0:
        return xp.zeros(0, dtype=xp.uint64), xp.zeros(0, dtype=bool)
    valid = _valid(codes, k)
    keys = xp.zeros(n, dtype=xp.uint64)
    if every(~valid):  # a run of N or borders: no key to pack
        return keys, valid
    base = (codes & 3).astype(xp.uint64)
    for j in range(k):
        keys <<= xp.uint64(2)
        keys |= base[j:j + n]
    return keys, valid


def word_keys_cupy(codes, k: int):
    """word_keys on the device: one thread a window, the block's codes staged in shared memory."""
    cp = cupy()
    n = codes.size - k + 1
    keys = cp.empty(max(n, 0), dtype=cp.uint64)
    valid = cp.empty(max(n, 0), dtype=cp.uint8)
    if n > 0:
        kernel("words.cu", "word_keys")((blocks(n, cap=2**31 - 1),), (BLOCK,), (codes, cp.int64(n), cp.int32(k), keys, valid))
    return keys, valid.view(cp.bool_)


# Windows one pass of word_keys_cupy covers: the words stage holds a chunk of every window's key
# and the valid ones, never a key for every window (a record of 2^31 bases, mostly N, keeps few words).
CHUNK_CUPY = 1 << 27


def anonymous(n: int, dtype) -> np.ndarray:
    """A host array of n items in anonymous memory of its own. NumPy asks the kernel for huge pages
    for its large arrays; where the kernel then compacts memory to fault each one in (its default
    for such requests), the words' arrays, written once front to back and sorted, cost more system
    time than their TLB saves (about 0.6 CPU s of 9 on the 20 Mbp pair: docs/BACKENDS.md, CPU)."""
    size = np.dtype(dtype).itemsize
    return np.frombuffer(mmap.mmap(-1, max(n, 1) * size, flags=mmap.MAP_PRIVATE), dtype=dtype)[:n]


def words(codes, k: int, out: tuple | None = None, scratch: list | None = None):
    """Sorted words of a code array: (keys uint64, positions), ties in position order. Positions are
    int32 where the codes are shorter than 2^31 (the seeds stage widens each seed's to int64).

    Only the words are ever held (no key for every window), plus the sort's second buffer. out:
    (keys, positions) arrays to write the words into where they are as long and of those types (the
    forward strand's, for the reverse strand's words: as many), so that no fresh memory is faulted in.
    scratch: a list that keeps the sort's second buffer from one call to the next (made or grown
    here), for the same reason. Both in anonymous memory (anonymous)."""
    return compiled_words(codes, k, 2, out, scratch)


def compiled_words(codes, k: int, bits: int, out: tuple | None = None, scratch: list | None = None):
    """words by words.c: 2 bits a symbol (ACGT windows) or 3 (windows without a border, N a fifth
    symbol: the exact-match modes' words, matches.py); out and scratch as words'."""
    cpu, threads = native.cpu(), native.threads()
    codes = np.ascontiguousarray(codes)
    n = cpu.count_words(codes, k, bits)
    dtype = np.int32 if codes.size < 2**31 else np.int64
    if out is not None and out[0].size == n and out[0].dtype == np.uint64 and out[1].dtype == dtype:
        keys, pos = out
    else:
        keys, pos = anonymous(n, np.uint64), anonymous(n, dtype)
    if n:
        cpu.word_keys(codes, k, bits, keys, pos, threads)
        if scratch is None:
            cpu.sort_pairs(keys, pos, bits * k, threads)
        else:
            need = n * (keys.itemsize + pos.itemsize)
            if not scratch or scratch[0].size < need:
                scratch[:] = [anonymous(need, np.uint8)]
            cpu.sort_pairs(keys, pos, bits * k, threads, scratch[0])
    return keys, pos


def words_cupy(codes, k: int, out: tuple | None = None, scratch: list | None = None):
    """words on the device (word keys from words.cu, a chunk of windows at a time); positions always
    int64, as seeds.cu reads them. Chunks are joined and sorted into fresh arrays: device memory has
    room, and sorting in place would add kernels to compile on a fresh machine (out, scratch: unused).
    The positions are not held while the keys are sorted (each chunk's valid windows are, a byte a
    window): a 0.94 Gbp bin's positions are 7.5 GB, and the sort's buffers peak there."""
    cp = cupy()
    n = codes.size - k + 1
    keys, valids = [], []
    for at in range(0, max(n, 1), CHUNK_CUPY):
        part, valid = word_keys_cupy(codes[at:at + CHUNK_CUPY + k - 1], k)
        # the valid windows' keys, in order (select.cu)
        size = int(part.size)
        kept = select("words_count", "words_write", size, (valid, cp.int64(size)),
                      (valid, cp.int64(size), part, cp.int64(at)), [cp.uint64, cp.int64])
        keys.append(kept[0])
        valids.append((at, valid))
        del part, kept
    keys = keys[0] if len(keys) == 1 else concatenate(keys)
    order = cp.argsort(keys, kind="stable")
    keys = gather(keys, order)
    # each valid window's position, in window order: what words_write wrote beside its key
    pos = []
    while valids:
        at, valid = valids.pop(0)
        pos.append(cp.flatnonzero(valid))
        if at:
            pos[-1] += at
        del valid
    pos = pos[0] if len(pos) == 1 else concatenate(pos)
    return keys, gather(pos, order)


def words_in(keys, pos, lo: int, hi: int, total: int):
    """The words whose position lies in [lo, hi), still sorted (all of them, uncopied, when [lo, hi)
    spans 0..total). Counted, then copied, by compiled code on all cores (words.c)."""
    if lo <= 0 and hi >= total:
        return keys, pos
    cpu, threads = native.cpu(), native.threads()
    size = pos.dtype.itemsize
    n = cpu.words_in(keys, pos, size, lo, hi, None, None, threads)
    out = np.empty(n, dtype=keys.dtype), np.empty(n, dtype=pos.dtype)
    cpu.words_in(keys, pos, size, lo, hi, *out, threads)
    return out


def words_in_cupy(keys, pos, lo: int, hi: int, total: int):
    """words_in on the device: selected in order by select.cu (positions int64, as words_cupy gives them)."""
    if lo <= 0 and hi >= total:
        return keys, pos
    cp = cupy()
    n = int(pos.size)
    pos = cp.ascontiguousarray(pos, dtype=cp.int64)
    window = (pos, cp.int64(n), cp.int64(lo), cp.int64(hi))
    out_keys, out_pos = select("window_count", "window_write", n, window, window + (keys,), [cp.uint64, cp.int64])
    return out_keys, out_pos


def drop_frequent(keys, pos, starts, max_freq: int):
    """Fast mode: drop words whose key occurs more than max_freq times in their own record.

    starts are the sorted record start offsets of the array the positions index. Counting per
    record, over the whole record, keeps the seed set independent of tiling and of binning. On the
    host the words kept are moved down in place by words.c (keys and pos are the words just made),
    and the first of them returned (NumPy's steps made about 1 GB of temporaries for 20 M words, 2 s
    of page faults on a 2-core machine). On the device a byte a word marks the kept ones (words.cu
    frequent_keep), which select.cu then takes: CuPy's steps held about 32 bytes of temporaries a
    word, 30 GB for a 0.94 Gbp reference bin, which an 80 GB card running three compare jobs lacked.
    """
    xp = array_module(keys)
    if not max_freq or keys.size == 0:
        return keys, pos
    if on_host(xp):
        keys, pos = np.require(keys, requirements=("C", "W")), np.require(pos, requirements=("C", "W"))
        kept = native.cpu().drop_frequent(keys, pos, pos.dtype.itemsize, np.ascontiguousarray(starts, dtype=np.int64),
                                          max_freq)
        return keys[:kept], pos[:kept]
    cp = xp
    n = int(keys.size)
    keys, pos64 = cp.ascontiguousarray(keys, dtype=cp.uint64), cp.ascontiguousarray(pos, dtype=cp.int64)
    starts = cp.ascontiguousarray(cp.asarray(starts), dtype=cp.int64)
    keep = cp.zeros(n, dtype=cp.uint8)
    kernel("words.cu", "frequent_keep")((blocks(n),), (BLOCK,), (keys, pos64, cp.int64(n), starts,
                                                                   cp.int64(starts.size), cp.int64(max_freq), keep))
    kept_keys, kept_pos = select("words_count", "keep_write", n, (keep, cp.int64(n)), (keep, cp.int64(n), keys, pos64),
                                 [cp.uint64, cp.int64])
    return kept_keys, kept_pos.astype(pos.dtype, copy=False)
