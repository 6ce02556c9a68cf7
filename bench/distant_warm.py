"""Distant pairs aligned again and again in one process, as the many-genomes rows run their pairs: the
first run (CUDA context, kernels loaded) beside the warm ones, per backend, and LASTZ's CPU time on the
same pair beside (where `lastz` is on the PATH).

    python bench/distant_warm.py PREFIX [PREFIX ...] [--runs 5] [--backends numpy cupy] [--lastz] [--steps]

PREFIX_a.fa is the query, PREFIX_b.fa the reference (bench/simulate.py's outputs); each pair runs
`align --preset distant` through the command line's own entry point (gpu_kernels.__main__.main), its
PAF to a temporary file. Prints a table: first run, median of the warm runs, LASTZ's CPU seconds, and
LASTZ's CPU time over our warm wall time; --steps: the last run logs each step's time (-vv) to stderr.
"""
from __future__ import annotations

import argparse
import logging
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gpu_kernels.__main__ import main as command  # noqa: E402

LASTZ_FORMAT = "--format=general:name1,start1,end1,name2,start2,end2,strand2,nmatch,nmismatch,cigarx"


def lastz_seconds(prefix: str, out: str) -> float:
    """LASTZ's user + system seconds on the pair, its defaults (the reference first)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "wb") as handle:
        subprocess.run(["lastz", f"{prefix}_b.fa", f"{prefix}_a.fa", LASTZ_FORMAT], stdout=handle,
                       stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--backends", nargs="+", default=["numpy", "cupy"])
    parser.add_argument("--lastz", action="store_true", help="also LASTZ's CPU time on each pair")
    parser.add_argument("--steps", action="store_true", help="the last run of each logs its steps' times (-vv)")
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    print(f"{'pair':<24} {'backend':<8} {'first s':>8} {'warm s':>8} {'LASTZ CPU s':>12} {'LASTZ / warm':>13}")
    for prefix in args.prefixes:
        lastz = lastz_seconds(prefix, os.path.join(folder, "lz.general")) if args.lastz else None
        for backend in args.backends:
            times = []
            for run in range(args.runs):
                steps = ["-vv"] if args.steps and run == args.runs - 1 else []
                if steps:  # the first run's logging.basicConfig set the level; -vv alone would not change it
                    logging.getLogger().setLevel(logging.DEBUG)
                start = time.perf_counter()
                status = command(["align", f"{prefix}_a.fa", f"{prefix}_b.fa", "--preset", "distant", "--backend",
                                  backend, "-o", os.path.join(folder, "al.paf"), *steps])
                times.append(time.perf_counter() - start)
                if status:
                    sys.exit(status)
            warm = statistics.median(times[1:]) if len(times) > 1 else times[0]
            ratio = f"{lastz / warm:.0f}x" if lastz else "-"
            print(f"{os.path.basename(prefix):<24} {backend:<8} {times[0]:>8.3f} {warm:>8.3f} "
                  f"{(f'{lastz:.1f}' if lastz else '-'):>12} {ratio:>13}", flush=True)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
