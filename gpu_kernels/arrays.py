"""Array-module helpers every stage shares: which module owns an array, host/device copies, and
the loader of the raw CUDA kernels.

CuPy is imported only when a device function is first called, so `import gpu_kernels` stays
cheap on a machine without a GPU.

Constants that the Python code and the kernels must agree on are defined in kernels.py (which also
builds the `.cu` files ahead of time) and passed to every `.cu` file as `-D` macros.
"""
from __future__ import annotations

import functools
import logging
import threading
import time

import numpy as np

from .kernels import (BLOCK, EXTEND_THREADS, MEM_CHUNK, MEM_LIGHT, PER_LANE, SCAN_ITEMS, SELECT_ITEMS, WARP,
                      nvcc_options, prebuilt, source)

__all__ = ["BLOCK", "EXTEND_THREADS", "MEM_CHUNK", "MEM_LIGHT", "PER_LANE", "SCAN_ITEMS", "SELECT_ITEMS", "WARP",
           "nvcc_options"]
log = logging.getLogger(__name__)


def array_module(array):
    """NumPy or CuPy, whichever owns the array."""
    if type(array).__module__.startswith("cupy"):
        return cupy()
    return np


def on_host(xp) -> bool:
    """Whether an array module (array_module's answer) computes on the host: the one place outside
    the backends that asks (a stage's compiled CPU loop or its device path)."""
    return xp is np


def cupy():
    """The cupy module, imported on first use."""
    import cupy as cp

    return cp


def twin(array, numpy_fn, cupy_fn):
    """numpy_fn where the array is NumPy's, cupy_fn where it lives on a device: the one place a
    function that takes either kind of array picks a stage's twin (the backend picks the rest)."""
    return numpy_fn if isinstance(array, np.ndarray) else cupy_fn


@functools.lru_cache(maxsize=None)
def _compiled(file: str):
    """gpu_kernels/<file> compiled by NVRTC through CuPy (kept in CuPy's kernel cache on disk)."""
    return cupy().RawModule(code=source(file), options=tuple(nvcc_options()))


@functools.lru_cache(maxsize=None)
def _prebuilt(file: str):
    """The fatbin built at install for the file's current source (kernels.py), or None."""
    path = prebuilt(file)
    return cupy().RawModule(path=path) if path else None


_UNLOADABLE: set[str] = set()


def kernel(file: str, name: str):
    """The kernel `name` of gpu_kernels/<file>: from the fatbin built at install, else compiled once."""
    module = None if file in _UNLOADABLE else _prebuilt(file)
    if module is not None:
        try:
            return module.get_function(name)
        except Exception as error:  # a driver older than the nvcc that built it, or no code for this GPU
            log.info("prebuilt kernels of %s not loaded (%s): compiling the source", file, error)
            _UNLOADABLE.add(file)
    return _compiled(file).get_function(name)


def every(mask) -> bool:
    """Whether every element of a boolean array is true. On the GPU one kernel of scan.cu rather than
    .all() or .sum(): CuPy builds its reductions from CUB, two kernels of about 2 s of compilation
    each per input type on a fresh machine."""
    if isinstance(mask, np.ndarray):
        return bool(mask.all())
    return not _found("any_false", mask)


def count(mask) -> int:
    """How many elements of a boolean array are true (on the GPU by scan.cu, for the reason every gives)."""
    if isinstance(mask, np.ndarray):
        return int(np.count_nonzero(mask))
    cp = cupy()
    total = cp.zeros(1, dtype=cp.uint64)
    if mask.size:
        mask = cp.ascontiguousarray(mask)
        kernel("scan.cu", "count_true")((blocks(mask.size),), (BLOCK,), (mask, cp.int64(mask.size), total))
    return int(total.get()[0])


def _found(name: str, values) -> bool:
    """Whether scan.cu's kernel `name` (values, n, found) finds what it looks for in a device array."""
    cp = cupy()
    found = cp.zeros(1, dtype=cp.int32)
    if values.size:
        values = cp.ascontiguousarray(values)
        kernel("scan.cu", name)((blocks(values.size),), (BLOCK,), (values, cp.int64(values.size), found))
    return bool(int(found.get()[0]))


def has_ties(values) -> bool:
    """Whether two neighbours of an int64 array are equal (on the GPU by scan.cu: CuPy's comparison
    and reduction kernels would be compiled for each size class on a fresh machine)."""
    if isinstance(values, np.ndarray):
        return bool((values[1:] == values[:-1]).any())
    return _found("any_tie", values)


def is_sorted(values) -> bool:
    """Whether an int64 array is in ascending order (on the GPU by scan.cu)."""
    if isinstance(values, np.ndarray):
        return bool((values[1:] >= values[:-1]).all())
    return not _found("any_descent", values)


def sum_difference(high, low) -> int:
    """The sum of high - low over two int64 arrays of one size, the differences never negative (on the GPU by scan.cu)."""
    if isinstance(high, np.ndarray):
        return int((high - low).sum())
    cp = cupy()
    total = cp.zeros(1, dtype=cp.uint64)
    if high.size:
        high, low = cp.ascontiguousarray(high), cp.ascontiguousarray(low)
        kernel("scan.cu", "sum_difference")((blocks(high.size),), (BLOCK,), (high, low, cp.int64(high.size), total))
    return int(total.get()[0])


def gather(values, order):
    """values[order] on the arrays' device. On the GPU int64 indices into values of 1, 4 or 8 bytes are
    gathered by select.cu (CuPy's take is compiled for each dtype, and again for arrays past 2 GB);
    other indices and boolean masks are CuPy's indexing."""
    if isinstance(values, np.ndarray) or values.dtype.itemsize not in (1, 4, 8) or order.dtype != np.int64:
        return values[order]
    cp = cupy()
    values, order = cp.ascontiguousarray(values), cp.ascontiguousarray(order)
    out = cp.empty(order.size, dtype=values.dtype)
    if order.size:
        kernel("select.cu", f"gather{values.dtype.itemsize}")((blocks(order.size),), (BLOCK,),
                                                             (values, order, cp.int64(order.size), out))
    return out


def stable_argsort(keys):
    """Indices that sort an integer array, ties in index order, on the array's device. On the host a
    compiled radix sort over the keys' range (cpu.c, on all cores): NumPy's stable sort of 64-bit
    integers is a merge sort, about 10x slower. On the GPU, CuPy's (a radix sort)."""
    xp = array_module(keys)
    if xp is not np:
        return xp.argsort(keys, kind="stable")
    if keys.size < 4096:
        return np.argsort(keys, kind="stable").astype(np.int64, copy=False)
    from . import native

    order = np.arange(keys.size, dtype=np.int64)
    low = keys.min()
    span = int(keys.max()) - int(low)
    # the difference from the least key, wrapped to 64 bits, is exact as an unsigned number
    shifted = keys - low if keys.dtype == np.uint64 else (keys.astype(np.int64) - np.int64(low)).view(np.uint64)
    native.cpu().sort_pairs(shifted, order, span.bit_length(), native.threads())
    return order


def select(test: str, write: str, n: int, test_args: tuple, write_args: tuple, outputs: list) -> list:
    """Rows kept by select.cu's `test` kernel, in order: counted a block at a time, the block counts
    turned into offsets, then `write` writes the kept rows into fresh arrays of the dtypes in outputs.
    test_args and write_args are the kernels' leading arguments (before counts and offsets)."""
    cp = cupy()
    tiles = -(-n // (BLOCK * SELECT_ITEMS))
    counts = cp.zeros(tiles + 1, dtype=cp.int64)
    if tiles:
        kernel("select.cu", test)((tiles,), (BLOCK,), test_args + (counts,))
        kernel("select.cu", "place")((1,), (BLOCK,), (counts, cp.int64(tiles)))
    kept = int(counts[tiles].get())
    out = [cp.empty(kept, dtype=dtype) for dtype in outputs]
    if kept:
        kernel("select.cu", write)((tiles,), (BLOCK,), write_args + (counts, *out))
    return out


def concatenate(parts: list):
    """Arrays of one dtype end to end, on their device. On the GPU by copies of device memory, no
    kernel: CuPy's concatenate compiles a copy kernel for each dtype on a fresh machine."""
    if isinstance(parts[0], np.ndarray) or len({p.dtype for p in parts}) > 1:
        return array_module(parts[0]).concatenate(parts)
    cp = cupy()
    out = cp.empty(sum(int(p.size) for p in parts), dtype=parts[0].dtype)
    at, stream = 0, cp.cuda.get_current_stream()
    for part in parts:
        part = cp.ascontiguousarray(part)
        if part.size:
            (out.data + at).copy_from_device_async(part.data, part.nbytes, stream)
        at += part.nbytes
    return out


def exclusive_sum(counts):
    """Where each item's share starts and, last, the total (int64, one longer than counts)."""
    xp = array_module(counts)
    at = xp.zeros(counts.size + 1, dtype=xp.int64)
    xp.cumsum(counts, out=at[1:])
    return at


def places(size: int, rows) -> np.ndarray:
    """Each of `size` host items' place among `rows` (distinct indices, in their order), -1 where it is
    not one of them."""
    out = np.full(size, -1, dtype=np.int64)
    out[rows] = np.arange(len(rows), dtype=np.int64)
    return out


def launch_parts(ends: np.ndarray, limit: int):
    """Slices of items whose sizes' running totals are ends (host, ascending), each at most limit in all
    or a single item: the launches of a kernel whose scratch is sized so."""
    lo = 0
    while lo < ends.size:
        base = int(ends[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, base + limit, side="right")))
        yield slice(lo, hi)
        lo = hi


def blocks(n: int, threads: int = BLOCK, cap: int = 65535 * 8) -> int:
    """Blocks of a 1-D launch over n items (grid-stride kernels accept the cap)."""
    return min(max(1, (n + threads - 1) // threads), cap)


def settle(xp=None) -> None:
    """Wait for the work queued on the current stream (CuPy; nothing on NumPy) without holding the
    interpreter's lock. CuPy holds it while a value read back (int() of a device scalar, flatnonzero's
    count) waits for the kernels before it: chaining on its own stream beside the HSP table's write
    stalled the writer's thread for each long kernel (0.5 s for the links), so the chain stage settles
    before such reads."""
    if xp is np:
        return
    stream = cupy().cuda.get_current_stream()
    while not stream.done:
        time.sleep(0.0002)


PINNED_COPY = 1 << 28  # host arrays of this size or more go to the device through pinned buffers
PINNED_CHUNK = 1 << 26


def to_device(array, xp):
    """A host array as an array of module xp (no copy for NumPy). A large one goes through two pinned
    buffers kept for the process (staging), taken in turn: a chunk copied into one on all cores while
    the other goes to the device. A process's first plain copy of a probe set's 2.4 GB of codes took
    2.35 s on an H100 host, through fresh pinned buffers filled by one core 0.37 s
    (bench/studies/device_copy.py)."""
    if xp is np or not isinstance(array, np.ndarray) or array.nbytes < PINNED_COPY:
        return xp.asarray(array)
    from . import native

    source = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    out = xp.empty(source.size, dtype=np.uint8)
    copy, threads = native.cpu().copy_bytes, native.threads()
    with _staging_lock:
        buffers = staging()
        for i, at in enumerate(range(0, source.size, PINNED_CHUNK)):
            buffer, stream = buffers[i % 2]
            stream.synchronize()  # its buffer's last copy is done
            size = min(PINNED_CHUNK, source.size - at)
            copy(buffer[:size], source[at:at + size], threads)
            out[at:at + size].set(buffer[:size], stream=stream)
        for _, stream in buffers:
            stream.synchronize()
    return out.view(array.dtype).reshape(array.shape)


STAGED_COPY = 1 << 22  # device arrays of this size or more come to the host through two reused pinned buffers
_staging: list = []  # those two buffers and their streams, made on first use and kept
_staging_lock = threading.Lock()


def empty_pinned(shape, dtype) -> np.ndarray:
    """A NumPy array in fresh page-locked memory (cupyx.empty_pinned's, without importing cupyx: that
    imports its sparse linear algebra and SciPy's, 0.18 s of a command line's start)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    memory = cupy().cuda.alloc_pinned_memory(max(1, count * dtype.itemsize))
    return np.frombuffer(memory, dtype, count).reshape(shape)


def staging() -> list:
    """The two (pinned buffer, stream) pairs of to_device and to_host, made on first use (pinning costs
    about 0.7 s a GB: 0.09 s for these) and kept for the process."""
    if not _staging:
        xp = cupy()
        _staging.extend((np.frombuffer(xp.cuda.alloc_pinned_memory(PINNED_CHUNK), np.uint8, PINNED_CHUNK),
                         xp.cuda.Stream(non_blocking=True)) for _ in range(2))
    return _staging


def to_host(array) -> np.ndarray:
    """An array on the host: device arrays are copied into pinned memory (about twice the bandwidth
    of a pageable copy), host arrays pass through. A large one goes through two pinned buffers kept
    for the process, taken in turn (a chunk comes off the device into one while the other's is copied
    out), as pinning fresh memory costs about 0.7 s a GB: 0.38 s for a strand's five MEM columns of
    75 MB each, where the copy itself takes a few hundredths of a second. One thread at a time."""
    if isinstance(array, np.ndarray):
        return array
    if array.nbytes < STAGED_COPY:
        out = empty_pinned(array.shape, array.dtype)
        array.get(out=out)
        return out
    with _staging_lock:
        return _staged_to_host(array)


def columns_to_host(columns: dict) -> dict:
    """to_host of a table's columns in one copy: their bytes laid end to end on the device (each at a
    multiple of 8), then one array on the host viewed column by column. A table of many small columns
    (the chains table's) paid a fresh pinned buffer and a wait for each."""
    device = {name: column for name, column in columns.items() if not isinstance(column, np.ndarray)}
    if not device:
        return dict(columns)
    xp = cupy()
    at, places = 0, {}
    for name, column in device.items():
        places[name] = at
        at += -(-column.nbytes // 8) * 8
    flat = xp.empty(max(1, at), dtype=xp.uint8)
    for name, column in device.items():
        flat[places[name]:places[name] + column.nbytes] = xp.ascontiguousarray(column).reshape(-1).view(xp.uint8)
    host = to_host(flat)
    return {name: host[places[name]:places[name] + column.nbytes].view(column.dtype).reshape(column.shape)
            if name in device else column for name, column in columns.items()}


def _staged_to_host(array) -> np.ndarray:
    xp = cupy()
    staging()
    source = xp.ascontiguousarray(array).reshape(-1).view(xp.uint8)
    xp.cuda.get_current_stream().synchronize()  # the streams below do not wait for the one that made it
    out = np.empty(array.shape, dtype=array.dtype)
    target = out.reshape(-1).view(np.uint8)
    held = [None, None]  # the span of target each buffer holds, copied out before the buffer is reused

    def drain(slot: int) -> None:
        if held[slot] is not None:
            buffer, stream = _staging[slot]
            stream.synchronize()
            lo, hi = held[slot]
            target[lo:hi] = buffer[:hi - lo]
            held[slot] = None

    for i, at in enumerate(range(0, source.size, PINNED_CHUNK)):
        slot = i % 2
        drain(slot)
        buffer, stream = _staging[slot]
        size = min(PINNED_CHUNK, source.size - at)
        source[at:at + size].get(out=buffer[:size], stream=stream, blocking=False)
        held[slot] = (at, at + size)
    drain(0)
    drain(1)
    return out


def running_max(values):
    """Inclusive running maximum of a 1-D int64 array (NumPy or CuPy: scan.cu on the device)."""
    return twin(values, np.maximum.accumulate, running_max_cupy)(values)


def running_max_cupy(values):
    """running_max on the device: block scans, then carries, recursively over the block totals (scan.cu)."""
    cp = cupy()
    n = values.size
    out = cp.empty_like(values)
    if n == 0:
        return out
    tile = BLOCK * SCAN_ITEMS
    count = blocks(n, tile, cap=2**31 - 1)
    totals = cp.empty(count, dtype=cp.int64)
    kernel("scan.cu", "block_max_scan")((count,), (BLOCK,), (values, out, totals, cp.int64(n)))
    if count > 1:
        kernel("scan.cu", "add_carry")((count,), (BLOCK,), (out, running_max_cupy(totals), cp.int64(n)))
    return out


def _side_by_side(make, names, threads: int = 0) -> dict:
    """{name: make(name)} made on threads (NumPy's take and concatenate release the interpreter's lock;
    a whole pair's 2.8 M chains and their blocks are tens of columns; threads 0: native.threads())."""
    from concurrent.futures import ThreadPoolExecutor

    from . import native

    names = list(names)
    with ThreadPoolExecutor(max(1, min(len(names), threads or native.threads()))) as pool:
        return dict(zip(names, pool.map(make, names)))


def take_columns(columns: dict, index, threads: int = 0) -> dict:
    """Host columns, each at index, gathered side by side."""
    return _side_by_side(lambda name: columns[name][index], columns, threads)


def concat_columns(tables: list, names, threads: int = 0) -> dict:
    """The named host columns of several tables (dicts), each concatenated, side by side."""
    return _side_by_side(lambda name: np.concatenate([np.asarray(t[name]) for t in tables]), names, threads)


def _numbered(order: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Each row's group number, given the rows' sorted order and where a sorted row starts a new group."""
    group = np.empty(order.size, dtype=np.int64)
    group[order] = np.cumsum(new) - 1
    return group


def unique_groups(keys: np.ndarray) -> np.ndarray:
    """Each host int64 key's number among the distinct keys in ascending order (np.unique's inverse),
    by the compiled radix sort (stable_argsort), not NumPy's comparison sort."""
    order = stable_argsort(keys)
    ordered = keys[order]
    new = np.ones(order.size, dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    return _numbered(order, new)


def row_groups(rows) -> np.ndarray:
    """Each row's number among the distinct rows of an int64 matrix in lexicographic order
    (np.unique(rows, axis=0)'s inverse): one int64 key a row where the columns' spans fit in 62 bits
    (a sort of single keys, not of rows compared byte by byte), else a lexsort."""
    if not rows.shape[0]:
        return np.zeros(0, dtype=np.int64)
    low, high = rows.min(axis=0), rows.max(axis=0)
    spans = [int(h) - int(lo) + 1 for lo, h in zip(low, high)]
    if np.prod([float(s) for s in spans]) < 2.0 ** 62:
        key = np.zeros(rows.shape[0], dtype=np.int64)
        for column, (lo, span) in enumerate(zip(low, spans)):
            key *= span
            key += rows[:, column] - lo
        return unique_groups(key)
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    new = np.ones(order.size, dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    return _numbered(order, new)
