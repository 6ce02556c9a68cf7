"""Where the command line's time goes after the GPU stages, on one pair: each step of the write alone.

    python bench/hsp_profile.py A.fa B.fa [--threads 16]

Prints the stage times of compare(), then the copy off the device alone, the delta encoding of the
pages alone (on the device, then with the copy back) and the whole write, each timed once; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query")
    parser.add_argument("reference")
    parser.add_argument("--backend", default="cupy")
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    t0 = time.perf_counter()
    from gpu_kernels import compare
    from gpu_kernels.backend import get_backend
    from gpu_kernels.formats import ROW_GROUP_ROWS, default_threads
    from gpu_kernels.engine import write_table

    backend = get_backend(args.backend)
    print(f"imports and backend {time.perf_counter() - t0:.2f} s", flush=True)
    t0 = time.perf_counter()
    result = compare(args.query, args.reference, backend=backend)
    print(f"compare {time.perf_counter() - t0:.2f} s: " +
          ", ".join(f"{k} {v}" for k, v in result.stats.items()), flush=True)
    threads = args.threads or default_threads()
    q, r = result.query, result.reference
    t0 = time.perf_counter()
    rows = sum(int(part["qstart"].size) for part in backend.host_slices(result.table, ROW_GROUP_ROWS))
    print(f"copy off the device alone ({rows:,} rows) {time.perf_counter() - t0:.2f} s", flush=True)
    from gpu_kernels.formats import physical_bits
    from gpu_kernels.hsps import COLUMNS, complete

    for label, copy in (("on the device", False), ("and copied back", True)):
        t0 = time.perf_counter()
        size = 0
        step = ROW_GROUP_ROWS * threads
        for at in range(0, rows, step):
            part = complete({n: c[at:at + step] for n, c in result.table.items()})
            for name in COLUMNS:
                pages = backend.delta_pages(part[name], ROW_GROUP_ROWS, physical_bits(name))
                size += int(pages[0].size)
                if copy:
                    [backend.to_host(a) for a in pages]
        backend.synchronize()
        print(f"delta pages {label} {time.perf_counter() - t0:.2f} s ({size / 1e9:.2f} GB)", flush=True)
    out = os.path.join(tempfile.mkdtemp(dir=os.path.dirname(os.path.abspath(args.query))), "p.parquet")
    t0 = time.perf_counter()
    write_table(out, result.table, backend, q.names, q.lengths, r.names, r.lengths, result.params)
    print(f"write_table {time.perf_counter() - t0:.2f} s, {os.path.getsize(out) / 1e9:.2f} GB", flush=True)
    os.remove(out)
    # The same write with each step timed: the calling thread's steps, and the writer threads' work
    # summed over threads (seconds of thread time).
    import threading
    from collections import defaultdict

    from gpu_kernels import formats

    spent, lock = defaultdict(float), threading.Lock()

    def timing(label, fn):
        def timed(*a, **k):
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                if label.startswith("main"):
                    backend.synchronize()
                with lock:
                    spent[label] += time.perf_counter() - start
        return timed

    backend.delta_pages = timing("main: delta_pages", backend.delta_pages)
    backend.to_host = timing("main: to_host", backend.to_host)
    for name, label in (("write_pages", "main: write_pages (waits for slots)"), ("_pack", "threads: _pack"),
                        ("_splice", "disk thread: _splice")):
        setattr(formats.HspWriter, name, timing(label, getattr(formats.HspWriter, name)))
    t0 = time.perf_counter()
    write_table(out, result.table, backend, q.names, q.lengths, r.names, r.lengths, result.params)
    print(f"write_table, timed by step {time.perf_counter() - t0:.2f} s: " +
          ", ".join(f"{k} {v:.2f}" for k, v in spent.items()), flush=True)
    os.remove(out)


if __name__ == "__main__":
    main()
