"""What does a process's first copy of a large host array to the GPU cost, plain (cupy.asarray) and
through two pinned buffers taken in turn (arrays.to_device's way)? 2.4 GB, a probe set's codes.

    python bench/studies/device_copy.py
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bytes", type=float, default=2.4e9, help="size of the array copied")
    args = parser.parse_args()
    start = time.perf_counter()
    import cupy as cp

    from gpu_kernels.arrays import PINNED_COPY, to_device

    cp.asarray(np.zeros(1 << 20, np.uint8))
    cp.cuda.Device().synchronize()
    print(f"context {time.perf_counter() - start:.2f} s", flush=True)
    data = np.empty(int(args.bytes), np.uint8)
    data[::4096] = 1  # its pages touched, as an encoder's output's are
    print(f"{data.nbytes:,} bytes; to_device takes pinned buffers from {PINNED_COPY:,}")
    for name, copy in (("pinned buffers", lambda a: to_device(a, cp)), ("plain", cp.asarray)) * 2:
        start = time.perf_counter()
        out = copy(data)
        cp.cuda.Device().synchronize()
        seconds = time.perf_counter() - start
        assert bool((out[::4096] == 1).all())
        print(f"{name}: {seconds:.2f} s", flush=True)
        del out
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
