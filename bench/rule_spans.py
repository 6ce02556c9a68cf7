"""Where a workflow run's wall time went, rule by rule: each job's end is its benchmark table's mtime
and its start that minus the table's seconds (Snakemake writes the table as the job ends).

    python bench/rule_spans.py results/logs/benchmarks [--since EPOCH_SECONDS]

Prints, for each rule, its jobs, the seconds they summed, and the span from the first job's start to
the last job's end, counted from the run's start (--since: when the snakemake command began; else
the first job's start); then the serial seconds, those in which no compare job ran. Not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import table  # noqa: E402


def job_spans(benchmarks: str) -> dict[str, list[tuple[float, float]]]:
    """{rule: [(start, end) of each job, epoch seconds]} from a run's benchmark tables."""
    spans = defaultdict(list)
    for folder, _, files in os.walk(benchmarks):
        for name in files:
            if not name.endswith(".tsv"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, benchmarks)
            rule = rel.split(os.sep)[0] if os.sep in rel else os.path.splitext(rel)[0]
            with open(path) as handle:
                lines = handle.read().splitlines()
            if len(lines) < 2:
                continue
            seconds = float(lines[1].split("\t")[0])
            end = os.path.getmtime(path)
            spans[rule].append((end - seconds, end))
    return spans


def covered(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The union of intervals, as sorted disjoint intervals."""
    out: list[list[float]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(lo, hi) for lo, hi in out]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmarks", help="the run's results/logs/benchmarks folder")
    parser.add_argument("--since", type=float, help="when the run began (epoch seconds)")
    args = parser.parse_args()
    spans = job_spans(args.benchmarks)
    if not spans:
        sys.exit(f"error: {args.benchmarks}: no benchmark tables")
    begin = args.since if args.since is not None else min(lo for jobs in spans.values() for lo, _ in jobs)
    end = max(hi for jobs in spans.values() for _, hi in jobs)
    rows = []
    for rule, jobs in sorted(spans.items(), key=lambda item: min(lo for lo, _ in item[1])):
        rows.append([rule, str(len(jobs)), f"{sum(hi - lo for lo, hi in jobs):.1f}",
                     f"{min(lo for lo, _ in jobs) - begin:.1f}", f"{max(hi for _, hi in jobs) - begin:.1f}"])
    print(table(["rule", "jobs", "job seconds", "first start (s)", "last end (s)"], rows))
    busy = sum(hi - lo for lo, hi in covered(spans.get("compare", [])))
    print(f"run to its last job's end: {end - begin:.1f} s; compare jobs running: {busy:.1f} s; "
          f"none running (serial): {end - begin - busy:.1f} s")


if __name__ == "__main__":
    main()
