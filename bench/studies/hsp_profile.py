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

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))
from common.measure import wrap_timed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query")
    parser.add_argument("reference")
    parser.add_argument("--backend", default="cupy")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--functions", action="store_true",
                        help="two compares and writes in one process, the time of each engine function in each")
    parser.add_argument("--cprofile", action="store_true", help="two compares under cProfile, by own time")
    parser.add_argument("--write-variants", action="store_true",
                        help="one compare, then the write's timeline in variants: new or kept pinned buffers, fewer threads, /dev/shm")
    parser.add_argument("--reserve", type=float, default=0.0,
                        help="experiment: take this fraction of free device memory into CuPy's pool first")
    parser.add_argument("--async-pool", action="store_true", help="experiment: CuPy's stream-ordered pool (cudaMallocAsync)")
    args = parser.parse_args()
    t0 = time.perf_counter()
    if args.reserve or args.async_pool:
        import cupy as cp

        if args.async_pool:
            cp.cuda.set_allocator(cp.cuda.MemoryAsyncPool().malloc)
        else:
            cp.get_default_memory_pool().malloc(int(cp.cuda.runtime.memGetInfo()[0] * args.reserve))
        print(f"pool ready in {time.perf_counter() - t0:.2f} s", flush=True)
    from gpu_kernels import compare
    from gpu_kernels.backend import get_backend
    from gpu_kernels.formats import ROW_GROUP_ROWS, default_threads
    from gpu_kernels.result import write_table

    backend = get_backend(args.backend)
    print(f"imports and backend {time.perf_counter() - t0:.2f} s", flush=True)
    if args.functions:
        first_and_second(args, backend)
        return
    if args.cprofile:
        import cProfile
        import pstats

        for run in ("first", "second"):
            profile = cProfile.Profile()
            t0 = time.perf_counter()
            profile.runcall(compare, args.query, args.reference, backend=backend)
            print(f"== {run} compare {time.perf_counter() - t0:.2f} s, by own time", flush=True)
            pstats.Stats(profile, stream=sys.stdout).sort_stats("tottime").print_stats(25)
        return
    if args.write_variants:
        write_variants(args, backend)
        return
    t0 = time.perf_counter()
    result = compare(args.query, args.reference, backend=backend)
    print(f"compare {time.perf_counter() - t0:.2f} s: " +
          ", ".join(f"{k} {v}" for k, v in result.stats.items()), flush=True)
    threads = args.threads or default_threads()
    q, r = result.query, result.reference
    t0 = time.perf_counter()
    rows = sum(int(part["qstart"].size) for part in backend.host_slices(result.table, ROW_GROUP_ROWS))
    print(f"copy off the device alone ({rows:,} rows) {time.perf_counter() - t0:.2f} s", flush=True)
    from gpu_kernels.hsps import complete
    from gpu_kernels.schema import HSP

    for label, copy in (("on the device", False), ("and copied back", True)):
        t0 = time.perf_counter()
        size = 0
        step = ROW_GROUP_ROWS * threads
        for at in range(0, rows, step):
            part = complete({n: c[at:at + step] for n, c in result.table.items()})
            for name in HSP.stored:
                pages = backend.delta_pages(part[name], ROW_GROUP_ROWS, HSP.physical_bits(name))
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


def first_and_second(args, backend) -> None:
    """Two compares and writes in one process, each function timed: what the first run pays that the
    second does not (kernel loading, device and pinned memory taken from the driver)."""
    from gpu_kernels import compare
    from gpu_kernels.result import write_table

    timed = by_function(backend)
    runs = []
    for run in (1, 2):
        timed.clear()
        t0 = time.perf_counter()
        result = compare(args.query, args.reference, backend=backend)
        spent = time.perf_counter() - t0
        q, r = result.query, result.reference
        out = os.path.join(tempfile.mkdtemp(dir=os.path.dirname(os.path.abspath(args.query))), "p.parquet")
        t0 = time.perf_counter()
        write_table(out, result.table, backend, q.names, q.lengths, r.names, r.lengths, result.params)
        written = time.perf_counter() - t0
        os.remove(out)
        runs.append((dict(timed), spent, written, dict(result.stats)))
        del result
    print(f"{'':<34} {'first s':>8} {'second s':>8}  (device synchronized; nested calls counted in their callers too)")
    print(f"{'compare':<34} {runs[0][1]:8.3f} {runs[1][1]:8.3f}")
    print(f"{'write_table':<34} {runs[0][2]:8.3f} {runs[1][2]:8.3f}")
    for key in ("load_s", "words_s", "seeds_s", "diagonals_s", "extend_s", "hsps_s"):
        print(f"{'stage ' + key[:-2]:<34} {runs[0][3][key]:8.3f} {runs[1][3][key]:8.3f}")
    for label in sorted(runs[0][0], key=lambda label: -runs[0][0][label][0]):
        print(f"{label:<34} {runs[0][0][label][0]:8.3f} {runs[1][0].get(label, [0])[0]:8.3f}  {runs[0][0][label][1]} calls")


def write_variants(args, backend) -> None:
    """The Parquet write after one compare, each variant in a timeline: when the first row group
    reached the file, how long the disk thread wrote and waited, the compressing threads' seconds,
    the calling thread's waits for pinned buffers and slots, the footer and the rename."""
    import threading

    from gpu_kernels import arrays, compare, formats
    from gpu_kernels.result import write_table

    result = compare(args.query, args.reference, backend=backend)
    q, r = result.query, result.reference
    events, lock = [], threading.Lock()

    def timed(owner, name, label):
        def record(start: float, end: float) -> None:
            with lock:
                events.append((label, start, end))
        return wrap_timed(owner, name, record)

    saved = [(owner, name, timed(owner, name, label)) for owner, name, label in (
        (formats.HspWriter, "_splice", "disk"), (formats.HspWriter, "_pack", "pack"),
        (formats.HspWriter, "_footer", "footer"), (formats.HspWriter, "write_pages", "hand over"),
        (arrays.PinnedRing, "take", "pinned take"), (type(backend), "pages_to_host", "to host"), (os, "replace", "rename"))]
    here = os.path.dirname(os.path.abspath(args.query))
    threads = formats.default_threads()
    variants = [("as is, new pinned buffers", here, threads, True), ("as is, again", here, threads, True),
                ("pinned buffers kept", here, threads, False), (f"{max(1, threads - 2)} threads", here, max(1, threads - 2), False),
                ("/dev/shm", "/dev/shm", threads, False)]
    print(f"{'write':<28} {'total':>6} {'1st row group':>13} {'disk busy':>9} {'disk idle':>9} "
          f"{'pack thread-s':>13} {'take':>5} {'to host':>7} {'hand over':>9} {'last pack':>9} {'footer':>6} {'renamed':>7}")
    for label, folder, count, new_ring in variants:
        if new_ring and hasattr(backend, "_ring"):
            backend._ring = None
        original = formats.default_threads
        formats.default_threads = lambda count=count: count
        out = os.path.join(folder, "variant.parquet")
        events.clear()
        t0 = time.perf_counter()
        write_table(out, result.table, backend, q.names, q.lengths, r.names, r.lengths, result.params)
        total = time.perf_counter() - t0
        formats.default_threads = original

        def spans(name):
            return sorted((a - t0, b - t0) for label, a, b in events if label == name)

        disk = spans("disk")
        busy = sum(b - a for a, b in disk)
        print(f"{label:<28} {total:6.2f} {disk[0][0]:13.2f} {busy:9.2f} {disk[-1][1] - disk[0][0] - busy:9.2f} "
              f"{sum(b - a for a, b in spans('pack')):13.2f} {sum(b - a for a, b in spans('pinned take')):5.2f} "
              f"{sum(b - a for a, b in spans('to host')):7.2f} {sum(b - a for a, b in spans('hand over')):9.2f} "
              f"{max(b for a, b in spans('pack')):9.2f} {sum(b - a for a, b in spans('footer')):6.2f} "
              f"{max(b for a, b in spans('rename')):7.2f}", flush=True)
        os.remove(out)
    for owner, name, fn in saved:
        setattr(owner, name, fn)


def by_function(backend) -> dict:
    """Wrap the engine's steps with synchronized timers; returns {label: [seconds, calls]} filled as they run."""
    from gpu_kernels import engine, hsps

    timed: dict = {}

    def wrap(owner, name, label):
        fn = getattr(owner, name)

        def timer(*a, **k):
            backend.synchronize()
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                backend.synchronize()
                entry = timed.setdefault(label, [0.0, 0])
                entry[0] += time.perf_counter() - start
                entry[1] += 1
        setattr(owner, name, timer)

    for name in ("as_seqsets", "drop_frequent", "tile_words", "count_seeds",
                 "decode_keys", "extend_seeds", "search_tile", "reverse_complement"):
        wrap(engine, name, f"engine.{name}")
    for name in ("concat", "sort_rows", "sort_order", "reorder", "running_max_cupy",
                 "order_by"):
        wrap(hsps, name, f"hsps.{name}")
    for name in ("words", "seed_groups", "seed_keys", "kept_seeds", "extend", "passing", "drop_contained", "to_records",
                 "union_length", "to_device"):
        wrap(backend, name, f"backend.{name}")
    return timed


if __name__ == "__main__":
    main()
