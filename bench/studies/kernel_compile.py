"""What a fresh machine compiles before its first comparison: every NVRTC compilation of one
command-line run on the bundled pair (our .cu files and CuPy's own kernels), each timed, in a
process with an empty kernel cache; then the same run again with the cache filled.

    python bench/kernel_compile.py [--pairs Q.fa R.fa ...]

Prints a table; not a test. Run it in a fresh process: CuPy keeps compiled modules in memory too.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

PAIR = [os.path.join(ROOT, "resources", "Mhyopneumoniae_7422.fa.gz"),
        os.path.join(ROOT, "resources", "Mhyopneumoniae_232.fa.gz")]


def record_callers() -> list:
    """Wrap CuPy's compiler entry so that each compilation is timed and named with the line of
    gpu_kernels that asked for it (the innermost frame of the package)."""
    import traceback

    import cupy.cuda.compiler as compiler

    calls = []
    inner = compiler._compile_module_with_cache

    def timed(source, *args, **kwargs):
        start = time.perf_counter()
        module = inner(source, *args, **kwargs)
        took = time.perf_counter() - start
        names = re.findall(r"__global__\s+void\s+(\w+)", source)
        ours = [f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in traceback.extract_stack()
                if "gpu_kernels" in f.filename]
        thread = threading.current_thread().name
        where = " < ".join(reversed(ours[-3:])) + ("" if thread == "MainThread" else f"  [{thread}]")
        calls.append((took, ",".join(names)[:60], where))
        return module

    compiler._compile_module_with_cache = timed
    return calls


def child(out_dir: str, pairs: list) -> None:
    """Command-line runs (in the child process), each compilation timed and placed."""
    calls = record_callers()
    from gpu_kernels.__main__ import main

    for query, reference in pairs:
        start = time.perf_counter()
        text = [] if os.environ.get("KERNEL_COMPILE_NO_TEXT") else ["-o", os.path.join(out_dir, "pair.paf")]
        main(["compare", query, reference, "--backend", "cupy", "--hsps", os.path.join(out_dir, "pair.parquet"), *text])
        if text:
            os.remove(os.path.join(out_dir, "pair.paf"))  # tens of GB on a heavy pair: the disk is for the next run
        print(f"run {os.path.basename(query)}: {time.perf_counter() - start:.2f} s, {len(calls)} compilations so far")
    print(f"{len(calls)} compilations, {sum(c[0] for c in calls):.2f} s")
    main_thread = [c for c in calls if not c[2].endswith("]")]
    print(f"on the comparing thread (not readied by warm.py's rehearsals): {len(main_thread)}, "
          f"{sum(c[0] for c in main_thread):.2f} s")
    for took, names, where in calls:
        print(f"  {took:6.3f} s  {names:40s} {where}")


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

    from gpu_kernels.kernels import files, nvcc_options, source

    files = files()

    def build(name: str) -> float:
        start = time.perf_counter()
        cp.RawModule(code=source(name), options=tuple(nvcc_options())).compile()
        return time.perf_counter() - start

    cp.zeros(1)  # the context, outside the timing
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        each = list(pool.map(build, files))
    print(f"{len(files)} .cu files on {threads} threads: {time.perf_counter() - start:.2f} s "
          f"(each: {', '.join(f'{n} {t:.2f}' for n, t in zip(files, each))})")


def elementwise_child(threads: int) -> None:
    """Sixteen distinct CuPy elementwise kernels compiled serially or on threads: whether NVRTC runs
    in parallel under CuPy (runs in the child process)."""
    from concurrent.futures import ThreadPoolExecutor

    import cupy as cp

    cp.zeros(1)
    cp.ElementwiseKernel("int64 x", "int64 y", "y = x + 1", "warm_up")(cp.zeros(4, dtype=cp.int64))

    def build(i: int) -> None:
        cp.ElementwiseKernel("int64 x", "int64 y", f"y = x * {i + 2} + {i}", f"probe_{i}")(cp.zeros(4, dtype=cp.int64))

    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(build, range(16)))
    print(f"16 CuPy elementwise kernels on {threads} threads: {time.perf_counter() - start:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--pairs", nargs="*", default=[], help="more FASTA pairs to run after the bundled one (Q R ...)")
    parser.add_argument("--skip-bundled", action="store_true", help="only the pairs given (a fresh cache for the first)")
    parser.add_argument("--no-text", action="store_true", help="Parquet only, no PAF (a heavy pair's PAF is tens of GB)")
    parser.add_argument("--files", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--elementwise", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.elementwise:
        elementwise_child(args.elementwise)
        return
    if args.files:
        files_child(args.files)
        return
    pairs = [] if args.skip_bundled else [tuple(PAIR)]
    pairs += list(zip(args.pairs[::2], args.pairs[1::2]))
    if args.child:
        child(args.child, pairs)
        return
    cache = tempfile.mkdtemp(prefix="cupy-cache-")
    out = tempfile.mkdtemp(prefix="compile-")
    env = {**os.environ, "CUPY_CACHE_DIR": cache, **({"KERNEL_COMPILE_NO_TEXT": "1"} if args.no_text else {})}
    for label in ("empty kernel cache", "warm kernel cache"):
        start = time.perf_counter()
        wall = time.time()
        more = ["--skip-bundled"] if args.skip_bundled else []
        text = subprocess.run([sys.executable, __file__, "--child", out, *more, "--pairs", *args.pairs], env=env, check=True,
                              capture_output=True, text=True).stdout
        print(f"== {label}: process {time.perf_counter() - start:.2f} s\n{text}", flush=True)
        if label.startswith("empty"):
            cache_entries(cache, wall)
    for threads in (1, 8):
        for mode in ("--files", "--elementwise"):
            env = {**os.environ, "CUPY_CACHE_DIR": tempfile.mkdtemp(prefix="cupy-cache-")}
            print(subprocess.run([sys.executable, __file__, mode, str(threads)], env=env, check=True,
                                 capture_output=True, text=True).stdout, flush=True)


if __name__ == "__main__":
    main()
