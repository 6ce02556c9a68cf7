"""FASTA loading on each backend: the host's compiled encoder (fasta.c, then one copy to the device)
beside load_fasta_cupy (raw bytes uploaded, decoded on the device); wall seconds, best of 3.

    python bench/load_fasta.py A.fa [B.fa ...]

Prints a table; not a test.
"""
from __future__ import annotations

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
    from gpu_kernels.fasta import load_fasta

    rows = []
    try:
        import cupy as cp

        from gpu_kernels.fasta import load_fasta_cupy
    except ImportError:
        cp = None
    for path in sys.argv[1:]:
        row = [os.path.basename(path), f"{os.path.getsize(path) / 1e6:.0f}", f"{best(lambda: load_fasta(path)):.3f}"]
        if cp is not None:
            def host_then_device():
                seqset = load_fasta(path)
                cp.asarray(seqset.codes)
                cp.cuda.Device().synchronize()

            def device():
                load_fasta_cupy(path)
                cp.cuda.Device().synchronize()

            row += [f"{best(host_then_device):.3f}", f"{best(device):.3f}"]
        rows.append(row)
    head = ["file", "MB", "host (fasta.c) s", "host + copy to device s", "load_fasta_cupy s"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
