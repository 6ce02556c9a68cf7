"""The workflow end to end on two simulated repeat-rich genomes: wall time, and per rule the jobs,
their summed and longest run time and peak memory (from Snakemake's benchmark tables).

    python bench/workflow_heavy.py --chromosomes 3 --size 30 --backend cupy --cores 16 [--workdir DIR]

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
sys.path.insert(0, os.path.join(ROOT, "bench"))

from simulate import heavy_pair, write_fasta  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromosomes", type=int, default=3)
    parser.add_argument("--size", type=float, default=30, help="Mbp a chromosome")
    parser.add_argument("--backend", default="cupy")
    parser.add_argument("--cores", type=int, default=os.cpu_count())
    parser.add_argument("--workdir", default="/tmp/workflow_heavy")
    parser.add_argument("extra", nargs="*", help="more Snakemake arguments")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    a, b = os.path.join(args.workdir, "A.fa"), os.path.join(args.workdir, "B.fa")
    if not (os.path.exists(a) and os.path.exists(b)):
        t0 = time.perf_counter()
        first, second, fm, sm = heavy_pair(int(args.chromosomes * args.size * 1e6), args.chromosomes, seed=7)
        names = [f"chr{i + 1}" for i in range(args.chromosomes)]
        write_fasta(a, names, first, fm)
        write_fasta(b, names, second, sm)
        print(f"simulated 2 x {args.chromosomes} x {args.size:g} Mbp in {time.perf_counter() - t0:.1f} s", flush=True)
    config = os.path.join(args.workdir, "config.yaml")
    with open(config, "w") as handle:
        handle.write(f"genomes:\n  A: {a}\n  B: {b}\nbackend: {args.backend}\nresults: {args.workdir}/results\n")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", os.path.join(ROOT, "Snakefile"), "-d", args.workdir,
                           "--cores", str(args.cores), "--configfile", config, *args.extra],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        print(proc.stdout[-2000:], proc.stderr[-4000:])
        raise SystemExit(f"snakemake failed after {wall:.1f} s")
    rules = defaultdict(list)
    for path in glob.glob(os.path.join(args.workdir, "results", "logs", "benchmarks", "**", "*.tsv"), recursive=True):
        rule = os.path.relpath(path, os.path.join(args.workdir, "results", "logs", "benchmarks")).split(os.sep)[0]
        with open(path) as handle:
            row = next(csv.DictReader(handle, delimiter="\t"))
        rules[rule].append((float(row["s"]), float(row["max_rss"]) if row["max_rss"] not in ("NA", "-") else 0.0))
    print(f"\nworkflow: 2 genomes x {args.chromosomes} chromosomes x {args.size:g} Mbp, backend {args.backend}, "
          f"--cores {args.cores}: {wall:.1f} s wall")
    print(f"{'rule':<12} {'jobs':>5} {'sum s':>8} {'max s':>8} {'max RSS MB':>11}")
    for rule in ("index", "compare", "merge", "coverage", "plots", "mummer_text", "summary"):
        if rule in rules:
            times = [t for t, _ in rules[rule]]
            rss = max(m for _, m in rules[rule])
            print(f"{rule:<12} {len(times):5d} {sum(times):8.1f} {max(times):8.1f} {rss:11.0f}")


if __name__ == "__main__":
    main()
