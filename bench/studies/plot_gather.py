"""How fast the dotplot gathering takes in HSPs, and how it scales with threads: the row groups of an HSP
table read into memory once, then added into Dots accumulators on 1, 2, ... threads (the plots job's
gather, without the reading).

    python bench/plot_gather.py TABLE.parquet [--threads 1 2 4] [--repeat 4] [--root DIR]

--root: a checkout whose gpu_kernels is timed (another worktree, to compare two versions side by side).
Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=4, help="passes over the table's row groups")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    from gpu_kernels.formats import iter_hsps, read_meta
    from gpu_kernels.schema import HSP
    from gpu_kernels.workflow.dots import HTML_LINES, Dots, Layout

    PLOT_COLUMNS = HSP.view("dots")  # what the plots rule reads of the table (workflow.pictures)

    meta = read_meta(args.table)
    layout = Layout(meta["query"]["lengths"], meta["reference"]["lengths"])
    chunks = list(iter_hsps(args.table, PLOT_COLUMNS)) * args.repeat
    rows = sum(int(c["qstart"].size) for c in chunks)
    print(f"{'threads':>7} {'seconds':>8} {'M HSPs/s':>9}   ({rows:,} HSPs, {args.root})")
    for threads in args.threads:
        dots = [Dots(layout.width, layout.height, layout, HTML_LINES) for _ in range(threads)]
        start = time.perf_counter()
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda t: [dots[t].add(c) for c in chunks[t::threads]], range(threads)))
        seconds = time.perf_counter() - start
        print(f"{threads:7d} {seconds:8.2f} {rows / seconds / 1e6:9.1f}")


if __name__ == "__main__":
    main()
