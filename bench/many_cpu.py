"""Many genomes without a GPU, as the README's command runs them: `snakemake --cores N --configfile
config/many_genomes.yaml GENOMES.yaml`, ROUNDS times, and with --old ROOT the same command from another
checkout of the repository in turn (its workflow and its package, the two side by side on this host).

    python bench/many_cpu.py GENOMES.yaml [--cores 2] [--rounds 2] [--old /tmp/old]

GENOMES.yaml lists the genomes (`genomes:` name: FASTA, as the README's my_genomes.yaml). Prints, for
each run, the wall time from the command to its exit, the host's peak used memory, the rows' and `ani`'s
spans, and whether its ani.tsv equals the first run's. Not a test.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import table  # noqa: E402
from common.wfbench import ROOT, run_workflow  # noqa: E402
from rule_spans import job_spans  # noqa: E402


def one_run(root: str, genomes: str, cores: int, results: str) -> tuple[float, int]:
    """(wall seconds, peak used host bytes over the start's) of the README's many-genomes command run from
    checkout `root`."""
    import psutil

    config = os.path.join(results, "run.yaml")
    with open(config, "w") as handle:
        handle.write(f"results: {results}\n")
    base, memory = psutil.virtual_memory().used, []
    wall = run_workflow(results, os.path.join(root, "config", "many_genomes.yaml"), cores, [genomes, config, "-q"],
                        memory, root)
    return wall, memory[0] - base


def span(spans: dict, rule: str, origin: float) -> str:
    jobs = spans.get(rule, [])
    if not jobs:
        return "-"
    return f"{min(s for s, _ in jobs) - origin:.1f}-{max(e for _, e in jobs) - origin:.1f} s ({len(jobs)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("genomes", help="a YAML file listing the genomes (genomes: name: FASTA)")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--old", help="another checkout of the repository, run in turn with this one")
    args = parser.parse_args()
    genomes = os.path.abspath(args.genomes)
    codes = [("this", ROOT)] + ([("old", os.path.abspath(args.old))] if args.old else [])
    rows, first = [], None
    for round_ in range(1, args.rounds + 1):
        for label, root in codes:
            results = tempfile.mkdtemp(prefix="many_cpu_")
            began = time.time()
            wall, peak = one_run(root, genomes, args.cores, results)
            with open(os.path.join(results, "default", "ani.tsv"), "rb") as handle:
                digest = hashlib.sha1(handle.read()).hexdigest()
            first = first or digest
            spans = job_spans(os.path.join(results, "logs", "benchmarks"))
            rows.append([str(round_), label, f"{wall:.1f} s", f"{peak / 2**30:.2f} GiB", span(spans, "index", began),
                         span(spans, "row", began), span(spans, "ani", began), "yes" if digest == first else "no"])
            shutil.rmtree(results)
    print(f"{genomes}, --cores {args.cores}")
    print(table(["round", "code", "wall", "host peak", "index jobs", "row jobs", "ani", "ani.tsv as the first"], rows))


if __name__ == "__main__":
    main()
