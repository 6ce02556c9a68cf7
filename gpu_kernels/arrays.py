"""Array-module helpers every stage shares: which module owns an array, host/device copies, and
the loader of the raw CUDA kernels.

CuPy is imported only when a device function is first called, so `import gpu_kernels` stays
cheap on a machine without a GPU.

Constants that the Python code and the kernels must agree on are defined here (or in encode.py)
and passed to every `.cu` file as `-D` macros when it is compiled: no number is copied by hand.
"""
from __future__ import annotations

import functools
import os

import numpy as np

from .encode import BORDER, GAP, N_CODE

HERE = os.path.dirname(os.path.abspath(__file__))

BLOCK = 256           # threads a block of the one-thread-per-item kernels (words, groups, seeds, scan)
SCAN_ITEMS = 4        # values a thread of scan.cu scans: a block covers BLOCK * SCAN_ITEMS values
EXTEND_THREADS = 128  # threads a block of extend.cu (4 warps)
PER_LANE = 4          # bases a lane of extend.cu reads per chunk: a chunk is 32 * PER_LANE bases
MEM_LIGHT = 64        # candidate pairs a query word's own thread walks in matches.cu; more, and blocks share them
MEM_CHUNK = 4096      # candidate pairs of such a word one block of matches.cu walks

# extend.cu reads a whole chunk past a record end: the border must be at least that wide.
assert 32 * PER_LANE <= GAP

DEFINES = {"BORDER": BORDER, "N_CODE": N_CODE, "BLOCK": BLOCK, "SCAN_ITEMS": SCAN_ITEMS, "PER_LANE": PER_LANE,
           "MEM_LIGHT": MEM_LIGHT, "MEM_CHUNK": MEM_CHUNK}


def nvcc_options() -> list[str]:
    """The compiler options every kernel file is built with (also used by CI's nvcc check)."""
    return ["-std=c++17"] + [f"-D{name}={value}" for name, value in DEFINES.items()]


def array_module(array):
    """NumPy or CuPy, whichever owns the array."""
    if type(array).__module__.startswith("cupy"):
        return cupy()
    return np


def cupy():
    """The cupy module, imported on first use."""
    import cupy as cp

    return cp


@functools.lru_cache(maxsize=None)
def _module(file: str):
    with open(os.path.join(HERE, file)) as handle:
        return cupy().RawModule(code=handle.read(), options=tuple(nvcc_options()))


def kernel(file: str, name: str):
    """The kernel `name` of gpu_kernels/<file>, compiled once per process."""
    return _module(file).get_function(name)


def every(mask) -> bool:
    """Whether every element of a boolean array is true. On the GPU one kernel of scan.cu rather than
    .all() or .sum(): CuPy builds its reductions from CUB, two kernels of about 2 s of compilation
    each per input type on a fresh machine."""
    if isinstance(mask, np.ndarray):
        return bool(mask.all())
    cp = cupy()
    found = cp.zeros(1, dtype=cp.int32)
    if mask.size:
        mask = cp.ascontiguousarray(mask)
        kernel("scan.cu", "any_false")((blocks(mask.size),), (BLOCK,), (mask, cp.int64(mask.size), found))
    return not int(found.get()[0])


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


def blocks(n: int, threads: int = BLOCK, cap: int = 65535 * 8) -> int:
    """Blocks of a 1-D launch over n items (grid-stride kernels accept the cap)."""
    return min(max(1, (n + threads - 1) // threads), cap)


def to_device(array, xp):
    """A host array as an array of module xp (no copy for NumPy)."""
    return xp.asarray(array)


def to_host(array) -> np.ndarray:
    """An array on the host: device arrays are copied into pinned memory (about twice the bandwidth
    of a pageable copy), host arrays pass through."""
    if isinstance(array, np.ndarray):
        return array
    import cupyx

    out = cupyx.empty_pinned(array.shape, array.dtype)
    array.get(out=out)
    return out
