"""Two fragmented drafts through the workflow: wall time and, per rule, run time and peak memory.

    python bench/drafts.py --contigs 20000 --length 10e6 [--cores 2] [--workdir DIR]

Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

sys.path.insert(0, os.path.join(ROOT, "bench"))

from common.contigs import fragmented_pair  # noqa: E402
from common.wfbench import print_rules, rule_times, run_workflow  # noqa: E402


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
    wall = run_workflow(args.workdir, config, args.cores)
    print(f"two drafts of {args.contigs:,} contigs ({args.length / 1e6:g} Mbp each), backend {args.backend}, "
          f"--cores {args.cores}: {wall:.1f} s wall")
    print_rules(rule_times(os.path.join(args.workdir, "results")))

if __name__ == "__main__":
    main()
