"""Diagonal keys and the seed filter.

A seed (q, r) gets the key d * width + q with d = q - r + rtotal, so sorting keys orders seeds by
diagonal, then by query position. width > qtotal + 2k makes a difference of 1..2k-1 between
neighbouring keys possible only on one diagonal.

kept_seeds (a GPU tile's filter, ownership and decoding in one step) has a CuPy twin in select.cu.
"""
from __future__ import annotations

from .arrays import array_module, cupy, select


def key_width(qtotal: int, k: int) -> int:
    """The multiplier of the diagonal in a key."""
    return qtotal + 2 * k


def keys_fit(qtotal: int, rtotal: int, k: int) -> bool:
    """Whether a pair of code arrays this long fits 63-bit diagonal keys (and the deduplication's
    signed sort keys built the same way: hsps.lifted)."""
    return (qtotal + rtotal + 1) * key_width(qtotal, k) < 1 << 63


def unshadowed(keys, k: int):
    """Mask of the sorted keys' seeds that no other seed on their diagonal starts 1 to 2k-1 bases before."""
    xp = array_module(keys)
    keep = xp.ones(keys.size, dtype=bool)
    if keys.size > 1:
        keep[1:] = (keys[1:] - keys[:-1]) >= xp.uint64(2 * k)
    return keep


def filter_keys(keys, k: int):
    """Keep a seed unless another seed on its diagonal starts 1 to 2k-1 bases before it."""
    return keys[unshadowed(keys, k)]


def decode_keys(keys, rtotal: int, width: int):
    """Keys back to (query positions, reference positions), int64."""
    xp = array_module(keys)
    sq = (keys % xp.uint64(width)).astype(xp.int64)
    diag = (keys // xp.uint64(width)).astype(xp.int64)
    return sq, sq - diag + rtotal


def kept_seeds(keys, k: int, q0: int, r0: int, rtotal: int, width: int):
    """(seeds owned, query positions, reference positions) of the seeds a tile keeps from its sorted
    keys: those it owns (query position >= q0, reference position >= r0) that filter_keys keeps (a
    seed of the look-back margins may shadow an owned one)."""
    keep = unshadowed(keys, k)
    sq, sr = decode_keys(keys, rtotal, width)
    owned = (sq >= q0) & (sr >= r0)
    keep &= owned
    return int(owned.sum()), sq[keep], sr[keep]


def kept_seeds_cupy(keys, k: int, q0: int, r0: int, rtotal: int, width: int):
    """kept_seeds on the device: tested, decoded and written in order by select.cu, so that no key
    array is copied and no CuPy kernel runs."""
    cp = cupy()
    owned = cp.zeros(1, dtype=cp.uint64)
    test = (keys, cp.int64(keys.size), cp.uint64(width), cp.int64(rtotal), cp.int64(q0), cp.int64(r0),
            cp.uint64(2 * k))
    sq, sr = select("seeds_count", "seeds_write", int(keys.size), test + (owned,), test, [cp.int64, cp.int64])
    return int(owned.get()[0]), sq, sr
