"""What a first align still compiles after the warm command: each CuPy compilation (or cache load)
of align runs on the given pairs, in one process, timed and placed by the line of gpu_kernels that
asked for it (kernel_compile.record_callers). Run it with CUPY_CACHE_DIR set to a cache the warm
command just filled; a load from the cache takes milliseconds, a compilation a tenth of a second.

    CUPY_CACHE_DIR=$(mktemp -d) python -m gpu_kernels warm
    python bench/studies/after_warm.py Q1.fa R1.fa [Q2.fa R2.fa ...]

Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from kernel_compile import record_callers  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", help="FASTA files, QUERY then REFERENCE, pair after pair")
    pairs = parser.parse_args().pairs
    calls = record_callers()
    from gpu_kernels.__main__ import main as command

    out = tempfile.mkdtemp(prefix="after-warm-")
    for query, reference in zip(pairs[::2], pairs[1::2]):
        before, start = len(calls), time.perf_counter()
        outputs = [x for kind in ("sam", "delta", "snps", "vcf", "table") for x in (f"--{kind}", f"{out}/a.{kind}")]
        command(["align", query, reference, "--backend", "cupy", "-o", f"{out}/a.paf", *outputs])
        new = calls[before:]
        slow = [c for c in new if c[0] > 0.02]
        print(f"{os.path.basename(query)}: {time.perf_counter() - start:.2f} s, {len(new)} kernels asked for, "
              f"{len(slow)} of them over 0.02 s ({sum(c[0] for c in slow):.2f} s)")
        for took, names, where in sorted(new, reverse=True)[:25]:
            print(f"  {took:6.3f} s  {names:40s} {where}")


if __name__ == "__main__":
    main()
