"""What a process pays for CuPy's kernels when the kernel cache already holds them all: one command
line run on a pair, every cache lookup timed, and within it NVRTC's preprocessing of an empty source
that CuPy runs once a process for each set of compiler options (the NVRTC version it finds goes into
the cache key).

    python bench/cache_hits.py Q.fa R.fa [--runs 2]

Run it after a run that filled the cache. Each run is a fresh process; prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from functools import partial

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))
from common.measure import wrap_timed  # noqa: E402


def child(query: str, reference: str, out: str) -> None:
    """One command line in this process, CuPy's compiler entry points wrapped."""
    import cupy.cuda.compiler as compiler

    spent: dict = defaultdict(lambda: [0, 0.0, set()])
    lock = threading.Lock()

    def record(name: str, start: float, end: float) -> None:
        with lock:
            entry = spent[name]
            entry[0] += 1
            entry[1] += end - start
            entry[2].add(threading.current_thread().name.split("_")[0])

    for name in ("_compile_with_cache_cuda", "_preprocess", "compile_using_nvrtc"):
        wrap_timed(compiler, name, partial(record, name))
    from gpu_kernels.__main__ import main

    start = time.perf_counter()
    main(["compare", query, reference, "--backend", "cupy", "--hsps", out])
    total = time.perf_counter() - start
    for name, (calls, seconds, threads) in spent.items():
        print(f"  {name:<28} {calls:4d} calls {seconds:6.3f} s  threads: {', '.join(sorted(threads))}")
    print(f"  command line {total:.2f} s; option sets preprocessed: {len(compiler._empty_file_preprocess_cache)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query")
    parser.add_argument("reference")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.query, args.reference, args.out)
        return
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(args.query))) as folder:
        for rehearse in ("1", "0"):
            for run in range(args.runs):
                print(f"rehearsals {'on' if rehearse == '1' else 'off'}, run {run + 1}:", flush=True)
                env = dict(os.environ, GPU_KERNELS_REHEARSE=rehearse)
                subprocess.run([sys.executable, __file__, args.query, args.reference, "--child", "--out",
                                os.path.join(folder, "t.parquet")], env=env, check=True)
                os.remove(os.path.join(folder, "t.parquet"))


if __name__ == "__main__":
    main()
