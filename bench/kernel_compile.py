"""What a fresh machine compiles before its first comparison: every NVRTC compilation of one
command-line run on the bundled pair (our .cu files and CuPy's own kernels), each timed, in a
process with an empty kernel cache; then the same run again with the cache filled.

    python bench/kernel_compile.py [--threads 8]

Prints a table; not a test. Run it in a fresh process: CuPy keeps compiled modules in memory too.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

PAIR = [os.path.join(ROOT, "resources", "Mhyopneumoniae_7422.fa.gz"),
        os.path.join(ROOT, "resources", "Mhyopneumoniae_232.fa.gz")]


def child(out_dir: str) -> None:
    """One command-line run (runs in the child process)."""
    from gpu_kernels.__main__ import main

    start = time.perf_counter()
    main(["compare", *PAIR, "--backend", "cupy", "--hsps", os.path.join(out_dir, "pair.parquet"),
          "-o", os.path.join(out_dir, "pair.paf")])
    print(f"run {time.perf_counter() - start:.2f} s")


def cache_entries(cache: str, since: float) -> None:
    """The kernels the run left in the cache, in the order they were written, each with the time
    since the previous one (about its compilation) and the kernel names its cubin holds."""
    entries = sorted((os.path.getmtime(os.path.join(cache, f)), f) for f in os.listdir(cache))
    last = since
    rows = []
    for when, name in entries:
        with open(os.path.join(cache, name), "rb") as handle:
            data = handle.read()
        kernels = sorted({k.decode() for k in re.findall(rb"\.text\.([A-Za-z_]\w+)", data)})
        rows.append((when - last, ", ".join(kernels)[:100] or name))
        last = when
    print(f"{len(rows)} cache entries, {sum(g for g, _ in rows):.2f} s from the start to the last")
    for gap, label in sorted(rows, reverse=True):
        print(f"  {gap:6.3f} s  {label}")


def files_child(threads: int) -> None:
    """Our .cu files compiled with NVRTC, serially or on threads (runs in the child process)."""
    from concurrent.futures import ThreadPoolExecutor

    import cupy as cp

    from gpu_kernels.arrays import HERE, nvcc_options

    files = sorted(f for f in os.listdir(os.path.join(ROOT, "gpu_kernels")) if f.endswith(".cu"))

    def build(name: str) -> float:
        start = time.perf_counter()
        with open(os.path.join(HERE, name)) as handle:
            cp.RawModule(code=handle.read(), options=tuple(nvcc_options())).compile()
        return time.perf_counter() - start

    cp.zeros(1)  # the context, outside the timing
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        each = list(pool.map(build, files))
    print(f"{len(files)} .cu files on {threads} threads: {time.perf_counter() - start:.2f} s "
          f"(each: {', '.join(f'{n} {t:.2f}' for n, t in zip(files, each))})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--files", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.files:
        files_child(args.files)
        return
    if args.child:
        child(args.child)
        return
    cache = tempfile.mkdtemp(prefix="cupy-cache-")
    out = tempfile.mkdtemp(prefix="compile-")
    env = {**os.environ, "CUPY_CACHE_DIR": cache}
    for label in ("empty kernel cache", "warm kernel cache"):
        start = time.perf_counter()
        wall = time.time()
        text = subprocess.run([sys.executable, __file__, "--child", out], env=env, check=True,
                              capture_output=True, text=True).stdout
        print(f"== {label}: process {time.perf_counter() - start:.2f} s\n{text}", flush=True)
        if label.startswith("empty"):
            cache_entries(cache, wall)
    for threads in (1, 8):
        env = {**os.environ, "CUPY_CACHE_DIR": tempfile.mkdtemp(prefix="cupy-cache-")}
        print(subprocess.run([sys.executable, __file__, "--files", str(threads)], env=env, check=True,
                             capture_output=True, text=True).stdout, flush=True)


if __name__ == "__main__":
    main()
