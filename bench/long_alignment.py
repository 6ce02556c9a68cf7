"""A long alignment of substitutions and no indels: `compare` time against its length (hostile-input
issue, case 8). Each kept seed's walk along such an alignment runs to its end; walked one seed at a
time the cost grows with the square of the length (1 Mbp at 5 %: 11-15 s on a 2-core machine), walked
a diagonal at a time (extend.c's bundles) linearly.

    python bench/long_alignment.py [--sizes 0.25 0.5 1 2 4] [--rate 0.05] [--backend numpy]

Prints a row per length: kept seeds, wall and CPU seconds, peak memory, and the HSPs (one, the whole
alignment, when the walk is right)."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from common.measure import run, table, warm_python  # noqa: E402


def write_pair(folder: str, length: int, rate: float, seed: int = 1) -> tuple[str, str]:
    """A random reference and a query that differs from it by substitutions at `rate`."""
    rng = np.random.default_rng(seed)
    reference = rng.integers(0, 4, length).astype(np.uint8)
    query = reference.copy()
    hit = np.flatnonzero(rng.random(length) < rate)
    query[hit] = (query[hit] + rng.integers(1, 4, hit.size)) % 4
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)
    paths = []
    for name, codes in (("query", query), ("reference", reference)):
        path = os.path.join(folder, f"{name}_{length}.fa")
        with open(path, "wb") as handle:
            handle.write(f">{name}\n".encode() + letters[codes].tobytes() + b"\n")
        paths.append(path)
    return paths[0], paths[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[0.25, 0.5, 1, 2, 4], help="lengths, Mbp")
    parser.add_argument("--rate", type=float, default=0.05, help="substitutions per base")
    parser.add_argument("--backend", default="numpy")
    args = parser.parse_args()
    warm_python(sys.executable)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            length = int(size * 1e6)
            query, reference = write_pair(folder, length, args.rate)
            paf, log = os.path.join(folder, "out.paf"), os.path.join(folder, "log")
            took = run([sys.executable, "-m", "gpu_kernels", "compare", query, reference, "--backend", args.backend,
                        "-o", paf], err=log)
            summary = open(log).read().strip().splitlines()[-1]
            kept = summary.split(" seeds, ")[1].split(" kept")[0] if " seeds, " in summary else "?"
            hsps = sum(1 for _ in open(paf)) if took["rc"] == 0 else 0
            rows.append([f"{size:g}", f"{args.rate:.0%}", kept, f"{took['wall']:.2f}", f"{took['cpu']:.2f}",
                         f"{took['peak_mb']:.0f}", str(hsps), str(took["rc"])])
    print(table(["Mbp", "subst.", "kept seeds", "wall s", "CPU s", "peak MB", "HSPs", "rc"], rows))


if __name__ == "__main__":
    main()
