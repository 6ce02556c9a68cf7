"""Each GPU's busy fraction during a run, and the compare jobs each GPU took: from nvidia-smi's samples
(`nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 500 > busy.csv`,
started before the run and stopped after it) and the workflow's compare logs (each says which GPU it
bound to).

    python bench/gpu_busy.py busy.csv [results/logs/compare]

A GPU's busy fraction is the mean of its utilization samples (the share of each half second in which
a kernel ran), over the samples from the first to the last in which any GPU was busy. Prints a
table; not a test.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import table  # noqa: E402


def busy_fractions(path: str) -> dict[int, float]:
    """{GPU index: mean utilization (0-1)} over the span in which any GPU was busy."""
    samples = []
    with open(path) as handle:
        for line in handle:
            fields = [f.strip() for f in line.split(",")]
            if len(fields) >= 2 and fields[0].isdigit() and fields[1].isdigit():  # more columns: memory.used
                samples.append((int(fields[0]), int(fields[1])))
    gpus = sorted({g for g, _ in samples}) or [0]
    rounds = [samples[k:k + len(gpus)] for k in range(0, len(samples) - len(gpus) + 1, len(gpus))]
    busy = [k for k, r in enumerate(rounds) if any(u > 0 for _, u in r)]
    if not busy:
        return {g: 0.0 for g in gpus}
    span = rounds[busy[0]:busy[-1] + 1]
    sums = defaultdict(float)
    for r in span:
        for g, u in r:
            sums[g] += u / 100
    return {g: sums[g] / len(span) for g in gpus}


def jobs_per_gpu(logs: str) -> Counter:
    """Compare jobs by the GPU they bound to (gpu_kernels.device's log line)."""
    count = Counter()
    for folder, _, files in os.walk(logs):
        for name in files:
            with open(os.path.join(folder, name), errors="replace") as handle:
                found = re.search(r"bound to GPU (\d+)", handle.read())
            if found:
                count[int(found.group(1))] += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", help="nvidia-smi's CSV samples")
    parser.add_argument("logs", nargs="?", help="the workflow's compare logs (results/logs/compare)")
    args = parser.parse_args()
    fractions = busy_fractions(args.samples)
    jobs = jobs_per_gpu(args.logs) if args.logs else Counter()
    print(table(["GPU", "busy", "compare jobs"], [[str(g), f"{100 * f:.0f} %", str(jobs.get(g, 0))]
                                                  for g, f in sorted(fractions.items())]))


if __name__ == "__main__":
    main()
