"""N runs in the exact-match modes: `mems` and `mums -l 20` on two sequences each holding one long N
run, against the same pair with the runs' bases drawn at random instead (issue 35: N matches N, and
every pair of all-N words used to be visited, a * b for runs of a and b bases).

    python bench/n_runs.py [--length 5e6] [--run 1e6] [--backend numpy]

Prints a row per mode and pair: CPU and wall seconds, peak memory, matches found."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from common.measure import run, table, warm_python  # noqa: E402


def write(path: str, name: str, codes: np.ndarray) -> None:
    letters = np.frombuffer(b"ACGTN", dtype=np.uint8)
    with open(path, "wb") as handle:
        handle.write(f">{name}\n".encode() + letters[codes].tobytes() + b"\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", type=float, default=5e6, help="bases a sequence")
    parser.add_argument("--run", type=float, default=1e6, help="bases of each N run")
    parser.add_argument("--backend", default="numpy")
    args = parser.parse_args()
    warm_python(sys.executable)
    rng = np.random.default_rng(3)
    length, size = int(args.length), int(args.run)
    reference = rng.integers(0, 4, length).astype(np.uint8)
    query = reference.copy()  # a 2 % diverged copy
    hit = np.flatnonzero(rng.random(length) < 0.02)
    query[hit] = (query[hit] + rng.integers(1, 4, hit.size)) % 4
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for label in ("no N run", f"{size:,} N each"):
            q, r = query.copy(), reference.copy()
            if label != "no N run":
                q[length // 3:length // 3 + size] = 4
                r[length // 2:length // 2 + size] = 4
            qpath, rpath = os.path.join(folder, "q.fa"), os.path.join(folder, "r.fa")
            write(qpath, "q", q)
            write(rpath, "r", r)
            for mode in ("mems", "mums"):
                out = os.path.join(folder, "out.txt")
                took = run([sys.executable, "-m", "gpu_kernels", mode, qpath, rpath, "-l", "20", "--backend",
                            args.backend, "-o", out])
                found = sum(1 for line in open(out) if not line.startswith(">")) if took["rc"] == 0 else 0
                rows.append([mode, label, f"{took['cpu']:.2f}", f"{took['wall']:.2f}", f"{took['peak_mb']:.0f}",
                             f"{found:,}", str(took["rc"])])
    print(table(["mode", "pair", "CPU s", "wall s", "peak MB", "matches", "rc"], rows))


if __name__ == "__main__":
    main()
