"""Two fragmented drafts through the workflow: wall time and, per rule, run time and peak memory.

    python bench/drafts.py --contigs 20000 --length 10e6 [--cores 2] [--workdir DIR]

Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import csv
import glob
import os
import subprocess
import sys
import time
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from contigs import fragmented_pair  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contigs", type=int, default=20000)
    parser.add_argument("--length", type=float, default=10e6)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--workdir", default="/tmp/drafts")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    a, b = os.path.join(args.workdir, "A.fa"), os.path.join(args.workdir, "B.fa")
    fragmented_pair(a, b, args.contigs, int(args.length))
    config = os.path.join(args.workdir, "config.yaml")
    with open(config, "w") as handle:
        handle.write(f"genomes:\n  draftA: {a}\n  draftB: {b}\nbackend: {args.backend}\n"
                     f"results: {args.workdir}/results\n")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", os.path.join(ROOT, "Snakefile"), "-d", args.workdir,
                           "--cores", str(args.cores), "--configfile", config], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        print(proc.stderr[-3000:])
        raise SystemExit(f"snakemake failed after {wall:.1f} s")
    rules = defaultdict(list)
    root = os.path.join(args.workdir, "results", "logs", "benchmarks")
    for path in glob.glob(os.path.join(root, "**", "*.tsv"), recursive=True):
        with open(path) as handle:
            row = next(csv.DictReader(handle, delimiter="\t"))
        rules[os.path.relpath(path, root).split(os.sep)[0]].append((float(row["s"]), float(row["max_rss"])))
    print(f"two drafts of {args.contigs:,} contigs ({args.length / 1e6:g} Mbp each), backend {args.backend}, "
          f"--cores {args.cores}: {wall:.1f} s wall")
    print(f"{'rule':<10} {'jobs':>5} {'sum s':>8} {'max RSS MB':>11}")
    for rule, runs in sorted(rules.items()):
        print(f"{rule:<10} {len(runs):5d} {sum(t for t, _ in runs):8.1f} {max(m for _, m in runs):11.0f}")


if __name__ == "__main__":
    main()
