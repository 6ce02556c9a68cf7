"""The workflow end to end on two simulated repeat-rich genomes: wall time, and per rule the jobs,
their summed and longest run time and peak memory (from Snakemake's benchmark tables).

    python bench/workflow_heavy.py --chromosomes 3 --size 30 --backend cupy --cores 16 [--workdir DIR]

Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from simulate import heavy_pair, write_fasta  # noqa: E402
from common.wfbench import print_rules, rule_times, run_workflow  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromosomes", type=int, default=3)
    parser.add_argument("--size", type=float, default=30, help="Mbp a chromosome")
    parser.add_argument("--backend", default="cupy")
    parser.add_argument("--cores", type=int, default=os.cpu_count())
    parser.add_argument("--workdir", default="/tmp/workflow_heavy")
    parser.add_argument("--fasta", nargs=2, metavar=("A", "B"), help="these genomes instead of simulated ones")
    parser.add_argument("--config", default="", help="more config lines (YAML), e.g. 'engine: {fast: true}'")
    parser.add_argument("extra", nargs="*", help="more Snakemake arguments")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    a, b = args.fasta or (os.path.join(args.workdir, "A.fa"), os.path.join(args.workdir, "B.fa"))
    if not (os.path.exists(a) and os.path.exists(b)):
        t0 = time.perf_counter()
        first, second, fm, sm = heavy_pair(int(args.chromosomes * args.size * 1e6), args.chromosomes, seed=7)
        names = [f"chr{i + 1}" for i in range(args.chromosomes)]
        write_fasta(a, names, first, fm)
        write_fasta(b, names, second, sm)
        print(f"simulated 2 x {args.chromosomes} x {args.size:g} Mbp in {time.perf_counter() - t0:.1f} s", flush=True)
    config = os.path.join(args.workdir, "config.yaml")
    with open(config, "w") as handle:
        handle.write(f"genomes:\n  A: {a}\n  B: {b}\nbackend: {args.backend}\nresults: {args.workdir}/results\n"
                     f"{args.config}\n")
    memory = []
    wall = run_workflow(args.workdir, config, args.cores, args.extra, memory)
    fasta = sum(os.path.getsize(p) for p in (a, b))
    results = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(args.workdir, "results"))
                  for f in fs)
    print(f"\nworkflow: {a} vs {b}, backend {args.backend}, --cores {args.cores}: {wall:.1f} s wall, host memory "
          f"peak {memory[0] / 2**30:.1f} GiB used, results {results / 1e9:.2f} GB = {results / fasta:.2f} x the "
          f"FASTA ({fasta / 1e9:.2f} GB)")
    print_rules(rule_times(os.path.join(args.workdir, "results")))

if __name__ == "__main__":
    main()
