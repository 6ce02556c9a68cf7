"""FASTA loading: the host's compiled encoder (fasta.c) per file, with the copy of the codes to the
device where CuPy is there, and the two files at once (`load_pair`, as compare reads them); wall
seconds, best of 3.

    python bench/studies/load_fasta.py A.fa B.fa

Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)


def best(fn, runs: int = 3) -> float:
    """The shortest wall time of fn() over runs calls (the first warms caches and kernels)."""
    times = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fasta", nargs=2, help="two FASTA files")
    args = parser.parse_args()
    from gpu_kernels.fasta import load_fasta, load_pair

    try:
        import cupy as cp
    except ImportError:
        cp = None

    def copied(seqsets) -> None:
        if cp is not None:
            for seqset in seqsets:
                cp.asarray(seqset.codes)
            cp.cuda.Device().synchronize()

    rows = []
    for path in args.fasta:
        rows.append([os.path.basename(path), f"{os.path.getsize(path) / 1e6:.0f}", f"{best(lambda: load_fasta(path)):.3f}",
                     f"{best(lambda: copied([load_fasta(path)])):.3f}"])
    if len(args.fasta) == 2:
        a, b = args.fasta
        size = (os.path.getsize(a) + os.path.getsize(b)) / 1e6
        rows.append(["both, load_pair", f"{size:.0f}", f"{best(lambda: load_pair(a, b)):.3f}",
                     f"{best(lambda: copied(load_pair(a, b))):.3f}"])
    head = ["file", "MB", "host (fasta.c) s", "and copied to the device s"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
