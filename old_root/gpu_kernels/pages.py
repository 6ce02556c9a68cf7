"""Parquet data pages of integer columns, DELTA_BINARY_PACKED, one page a row group.

The encoding is the stage after the HSP table: on the GPU every row group of a column is encoded
at once (pages.cu) and only the packed bytes, a few per row, come back to the host; the writer
(formats.HspWriter) compresses the pages on its threads and writes them with their headers.

A page is `page_header(count, first)` followed by the blocks of its group: DELTA_BLOCK deltas a
block (the last one short), each block its minimum delta as a zigzag varint, one bit width a
miniblock, then the miniblocks of MINIBLOCK deltas less the minimum, bit-packed little-endian
(a short last miniblock padded with zero bits). Deltas wrap in the column's physical width: 64
bits for INT64 columns, 32 for INT32 ones (int32 and int8 values), as Parquet's readers undo them.

NumPy: blocks as rows of a matrix, miniblocks packed width by width. CuPy: a thread a block.
"""
from __future__ import annotations

import numpy as np

from .arrays import BLOCK, blocks, cupy, gather, kernel
from .hsps import complete
from .kernels import DELTA_BLOCK, MINIBLOCKS  # pages.cu takes them as -D macros
from .schema import HSP

MINIBLOCK = DELTA_BLOCK // MINIBLOCKS


def table_pages(table: dict, backend, row_group_rows: int, record=HSP, names=None) -> dict:
    """The delta-encoded pages (the backend's delta_pages) of every column of an HSP table's rows (a
    record extending HSP: its own columns too; or of the record's columns named), where the table lives."""
    names = names or record.names
    full = table if all(name in table for name in names) else dict(table, **complete(table))
    return {name: backend.delta_pages(full[name], row_group_rows, record.physical_bits(name)) for name in names}


def varint(n: int) -> bytes:
    """Unsigned LEB128."""
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def page_header(count: int, first: int) -> bytes:
    """The header of a delta page: block size, miniblocks a block, value count, first value (zigzag)."""
    return varint(DELTA_BLOCK) + varint(MINIBLOCKS) + varint(count) + varint(((first << 1) ^ (first >> 63)) & (2**64 - 1))


def group_layout(n: int, group_rows: int) -> tuple[int, int]:
    """(groups, blocks a group) of n values cut into row groups of group_rows."""
    groups = -(-n // group_rows)
    return groups, -(-(min(group_rows, n) - 1) // DELTA_BLOCK)


def _summary(values, group_rows: int, xp):
    """(first, minimum, maximum) of each row group."""
    n = values.size
    full = n // group_rows
    head = values[:full * group_rows].reshape(full, group_rows)
    lows, highs = head.min(axis=1), head.max(axis=1)
    if n > full * group_rows:
        tail = values[full * group_rows:]
        lows, highs = xp.concatenate((lows, tail.min(keepdims=True))), xp.concatenate((highs, tail.max(keepdims=True)))
    return gather(values, xp.arange(0, n, group_rows, dtype=xp.int64)), lows, highs


def _bit_length(top: np.ndarray) -> np.ndarray:
    """Bits needed for each uint64 (0 for 0)."""
    width = np.zeros(top.shape, dtype=np.int64)
    x = top.copy()
    for shift in (32, 16, 8, 4, 2, 1):
        big = x >= np.uint64(1 << shift)
        width += big * shift
        x = np.where(big, x >> np.uint64(shift), x)
    return width + (x > 0)


def _ranges(starts, lengths):
    """The indices of the ranges [start, start + length), one range after another."""
    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(int(ends[-1]) if ends.size else 0)


def _pack(unpacked, widths):
    """Miniblocks (rows of MINIBLOCK uint64) bit-packed at their widths, end to end, as bytes: value t
    of a miniblock of width w fills bits t*w .. t*w + w - 1 of its 32-bit words, little-endian."""
    live = np.flatnonzero(widths > 0)
    w = widths[live].astype(np.uint64)
    words = np.zeros(int(w.sum()) + 2, dtype=np.uint64)  # two spare words for the spill of the last value
    base = np.cumsum(w) - w
    low = np.uint64(0xFFFFFFFF)
    columns = np.ascontiguousarray(unpacked[live].T)  # value t of every live miniblock, contiguous
    for t in range(MINIBLOCK):
        u = columns[t]
        bit = np.uint64(t) * w
        at = (base + bit // np.uint64(32)).astype(np.int64)
        off = bit % np.uint64(32)
        words[at] |= (u << off) & low
        spill = off + w > np.uint64(32)
        words[at[spill] + 1] |= (u[spill] >> (np.uint64(32) - off[spill])) & low
        spill = off + w > np.uint64(64)
        words[at[spill] + 2] |= u[spill] >> (np.uint64(64) - off[spill])
    return words[:-2].astype("<u4").view(np.uint8)


def delta_pages(values, group_rows: int, bits: int = 64):
    """The delta-encoded blocks of every row group of an integer column of physical width bits (64 or 32).

    Returns (data, bounds, firsts, lows, highs): data the blocks of all groups end to end (uint8),
    bounds[g]:bounds[g + 1] group g's bytes, and each group's first, minimum and maximum value."""
    values = np.asarray(values, dtype=np.int64)
    n = values.size
    groups, per_group = group_layout(n, group_rows)
    count = groups * per_group
    # group g's deltas as row g (a group's first value has none), padded to whole blocks; the padding
    # of a group's last block is set to that block's minimum, so it packs to zero bits
    width = per_group * DELTA_BLOCK
    rows = np.empty((groups, width), dtype=np.int64)
    kept = np.minimum(group_rows, n - np.arange(groups) * group_rows) - 1  # deltas a group has
    for g, m in enumerate(kept.tolist()):
        at = g * group_rows
        np.subtract(values[at + 1:at + 1 + m], values[at:at + m], out=rows[g, :m])
        if bits == 32:  # the delta an INT32 reader adds back, in 32-bit arithmetic
            rows[g, :m] = rows[g, :m].astype(np.int32)
        if m < width:
            last = m - (m - 1) % DELTA_BLOCK - 1 if m else 0  # the start of the group's last block
            rows[g, m:] = rows[g, last:m].min() if m else 0
    deltas = rows.reshape(count, DELTA_BLOCK)
    lows = deltas.min(axis=1, initial=np.iinfo(np.int64).max)
    deltas -= lows[:, None]
    unpacked = deltas.view(np.uint64).reshape(count, MINIBLOCKS, MINIBLOCK)
    lo = np.arange(count) % per_group * DELTA_BLOCK if per_group else np.zeros(0, dtype=np.int64)
    hi = np.minimum(lo + DELTA_BLOCK, np.repeat(kept, per_group))
    widths = _bit_length(np.bitwise_or.reduce(unpacked, axis=2))
    zig = ((lows << 1) ^ (lows >> 63)).view(np.uint64)
    zig_len = np.ones(count, dtype=np.int64)
    for t in range(1, 10):
        zig_len += zig >= np.uint64(1 << (7 * t))
    real = np.flatnonzero(hi > lo)
    # three byte streams, then interleaved block by block: varints, widths, miniblock bodies
    varints = np.zeros((real.size, 10), dtype=np.uint8)
    for t in range(10):
        varints[:, t] = ((zig[real] >> np.uint64(7 * t)) & np.uint64(0x7F)).astype(np.uint8) | ((zig_len[real] > t + 1) * 0x80).astype(np.uint8)
    width_bytes = widths[real].astype(np.uint8)
    bodies = _pack(unpacked[real].reshape(-1, MINIBLOCK), widths[real].reshape(-1))
    body_len = 4 * widths[real].sum(axis=1)
    starts = np.stack((np.arange(real.size) * 10, varints.size + np.arange(real.size) * MINIBLOCKS,
                       varints.size + width_bytes.size + np.cumsum(body_len) - body_len), axis=1)
    lengths = np.stack((zig_len[real], np.full(real.size, MINIBLOCKS), body_len), axis=1)
    out = np.concatenate((varints.reshape(-1), width_bytes.reshape(-1), bodies))[_ranges(starts.reshape(-1), lengths.reshape(-1))]
    sizes = np.zeros(count, dtype=np.int64)
    sizes[real] = lengths.sum(axis=1)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    bounds = offsets[np.arange(groups + 1) * per_group]
    return (out, bounds, *_summary(values, group_rows, np))


def delta_pages_cupy(values, group_rows: int, bits: int = 64):
    """delta_pages on the device: a thread a block sizes it (delta_blocks), a scan places it, a
    thread a block packs it (delta_pack). Returns device arrays."""
    cp = cupy()
    values = cp.ascontiguousarray(values, dtype=cp.int64)
    n = values.size
    groups, per_group = group_layout(n, group_rows)
    count = groups * per_group
    mins = cp.empty(count, dtype=cp.int64)
    widths = cp.empty(count, dtype=cp.uint32)
    sizes = cp.empty(count, dtype=cp.int64)
    args = (values, cp.int64(n), cp.int64(group_rows), cp.int64(per_group), cp.int64(count), cp.int32(bits == 32))
    grid = (blocks(count, cap=2**31 - 1),)
    if count:
        kernel("pages.cu", "delta_blocks")(grid, (BLOCK,), args + (mins, widths, sizes))
    offsets = cp.zeros(count + 1, dtype=cp.int64)
    cp.cumsum(sizes, out=offsets[1:])
    out = cp.empty(int(offsets[-1]), dtype=cp.uint8)
    if count:
        kernel("pages.cu", "delta_pack")(grid, (BLOCK,), args + (mins, widths, offsets, out))
    bounds = offsets[cp.arange(groups + 1) * per_group]
    return (out, bounds, *_summary(values, group_rows, cp))
