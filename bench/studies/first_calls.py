"""What the first call of each kind of device operation costs in a fresh process (kernel loading,
library set-up), against its second call on the same arrays.

    python bench/first_calls.py [--size 10000000]

The operations are those the CuPy backend's stages use; the CuPy kernel cache should be warm (run a
compare first), so what is left is loading, not compiling. Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000_000)
    args = parser.parse_args()
    t0 = time.perf_counter()
    import numpy as np
    t1 = time.perf_counter()
    import cupy as cp
    t2 = time.perf_counter()
    cp.cuda.runtime.free(cp.cuda.runtime.malloc(1))  # the context
    t3 = time.perf_counter()
    print(f"import numpy {t1 - t0:.3f} s, import cupy {t2 - t1:.3f} s, CUDA context {t3 - t2:.3f} s")
    n = args.size
    host = np.random.default_rng(1).integers(0, 1 << 40, n, dtype=np.int64)
    t0 = time.perf_counter()
    x = cp.asarray(host)
    cp.cuda.Device().synchronize()
    print(f"first copy to the device {time.perf_counter() - t0:.3f} s")
    u = x.astype(cp.uint64)
    mask = x > (1 << 39)
    idx = cp.asarray(np.random.default_rng(2).integers(0, n, n, dtype=np.int64))
    small = x[:1000].copy()
    from gpu_kernels.arrays import count, every, kernel, to_host

    ops = [
        ("x - y (int64)", lambda: x - idx),
        ("x > c (int64)", lambda: x > 5),
        ("astype uint64", lambda: x.astype(cp.uint64)),
        ("u % w, u // w (uint64)", lambda: (u % cp.uint64(12345), u // cp.uint64(12345))),
        ("flatnonzero", lambda: cp.flatnonzero(mask)),
        ("x[mask]", lambda: x[mask]),
        ("x[idx] (int64)", lambda: x[idx]),
        ("u[idx] (uint64)", lambda: u[idx]),
        ("concatenate", lambda: cp.concatenate((x, x))),
        ("argsort stable uint64", lambda: cp.argsort(u, kind="stable")),
        ("argsort stable int64", lambda: cp.argsort(x, kind="stable")),
        ("sort uint64 (copy)", lambda: u.copy().sort()),
        ("cumsum int32", lambda: cp.cumsum(mask, dtype=cp.int32)),
        ("cumsum bool", lambda: cp.cumsum(mask)),
        ("cumsum int64", lambda: cp.cumsum(x)),
        ("searchsorted", lambda: cp.searchsorted(small, x, side="right")),
        ("sum int64", lambda: int(x.sum())),
        ("max int64", lambda: int(x.max())),
        ("min int64", lambda: int(x.min())),
        ("every", lambda: every(mask)),
        ("count", lambda: count(mask)),
        ("zeros / full", lambda: (cp.zeros(n, dtype=cp.int32), cp.full(n, 1, dtype=cp.int8))),
        ("where", lambda: cp.where(mask, x, 0)),
        ("kernel words.cu", lambda: kernel("words.cu", "word_keys")),
        ("kernel extend.cu", lambda: kernel("extend.cu", "extend_runs")),
        (".get() pageable", lambda: x.get()),
        ("to_host (pinned)", lambda: to_host(x)),
        ("to_host (pinned, 800 MB)", lambda: to_host(cp.empty(100_000_000, dtype=cp.int64))),
    ]
    print(f"{'operation':<28} {'first s':>8} {'second s':>9}")
    total = 0.0
    for label, op in ops:
        times = []
        for _ in range(2):
            cp.cuda.Device().synchronize()
            start = time.perf_counter()
            try:
                op()
            except Exception as error:  # a name that is not in this version: say so, go on
                print(f"{label:<28} failed: {error}")
                break
            cp.cuda.Device().synchronize()
            times.append(time.perf_counter() - start)
        if len(times) == 2:
            total += times[0] - times[1]
            print(f"{label:<28} {times[0]:8.4f} {times[1]:9.4f}")
    print(f"first calls cost {total:.3f} s more than second ones")


if __name__ == "__main__":
    main()
