"""What does a process's first copy of a large host array to the GPU cost, plain (cupy.asarray) and
through two pinned buffers taken in turn (arrays.to_device's way)? 2.4 GB, a probe set's codes.

    python bench/studies/device_copy.py
"""
import time

import numpy as np

t0 = time.perf_counter()
import cupy as cp  # noqa: E402

from gpu_kernels.arrays import PINNED_COPY, to_device  # noqa: E402

cp.asarray(np.zeros(1 << 20, np.uint8))
cp.cuda.Device().synchronize()
print(f"context {time.perf_counter() - t0:.2f} s", flush=True)
data = np.empty(int(2.4e9), np.uint8)
data[::4096] = 1  # its pages touched, as an encoder's output's are
assert data.nbytes >= PINNED_COPY


def timed(copy):
    start = time.perf_counter()
    out = copy(data)
    cp.cuda.Device().synchronize()
    return time.perf_counter() - start, out


for name, copy in (("pinned buffers", lambda a: to_device(a, cp)), ("plain", cp.asarray)) * 2:
    seconds, out = timed(copy)
    assert bool((out[::4096] == 1).all())
    print(f"{name}: {seconds:.2f} s", flush=True)
    del out
    cp.get_default_memory_pool().free_all_blocks()
