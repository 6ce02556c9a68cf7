"""The CPU backend's Parquet write of an HSP table, this checkout beside another (--root), side by side.

    python bench/parquet_write.py [--rows 6e6 | --table hsps.parquet] [--root OLD_CHECKOUT] [--rounds 3]

The table (an existing HSP table's rows, or HSP-like rows made up: sorted, lengths and identities
as a heavy pair's) is written by `result.write_table` with the NumPy backend, as a CPU compare job
writes it, in a fresh process per write, the checkouts taken in turn; each write's wall time (the
write alone), the process's peak resident memory and the file's size. Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from gpu_kernels.backend import NumpyBackend
from gpu_kernels.result import write_table
from gpu_kernels.params import Params

data = np.load(sys.argv[2])
table = {name: data[name] for name in data.files}
start = time.perf_counter()
write_table(sys.argv[3], table, NumpyBackend(), ["q%d" % i for i in range(int(table["qrec"].max()) + 1)],
            [10**8] * (int(table["qrec"].max()) + 1), ["r%d" % i for i in range(int(table["rrec"].max()) + 1)],
            [10**8] * (int(table["rrec"].max()) + 1), Params())
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def made_up(rows: int, seed: int = 1) -> dict:
    """HSP-like stored columns in the canonical order: 4 x 4 records, both strands, lengths from 64
    (geometric), identities 80-100 %, scores from them."""
    import numpy as np

    rng = np.random.default_rng(seed)
    pair = np.sort(rng.integers(0, 32, rows))
    qrec, rrec, strand = (pair // 8).astype(np.int32), ((pair // 2) % 4).astype(np.int32), (pair % 2).astype(np.int8)
    qstart = np.empty(rows, dtype=np.int64)
    for key in np.unique(pair):
        at = pair == key
        qstart[at] = np.sort(rng.integers(0, 10**8 - 10**4, int(at.sum())))
    length = 64 + rng.geometric(1 / 300, rows)
    ids = np.round(length * rng.uniform(0.8, 1.0, rows)).astype(np.int64)
    return {"qrec": qrec, "rrec": rrec, "qstart": qstart, "qend": qstart + length,
            "rstart": np.clip(qstart + rng.integers(-10**6, 10**6, rows), 0, 10**8 - 10**4 - 1), "strand": strand,
            "score": 2 * ids - length, "identities": ids}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=6e6, help="made-up rows (default %(default)g)")
    parser.add_argument("--table", help="an HSP table whose rows are written instead")
    parser.add_argument("--root", help="another checkout, timed in turn with this one")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    import numpy as np

    work = args.workdir or tempfile.mkdtemp(prefix="parquet_write.")
    os.makedirs(work, exist_ok=True)
    if args.table:
        import pyarrow.parquet as pq

        sys.path.insert(0, ROOT)
        from gpu_kernels.schema import HSP

        read = pq.read_table(args.table, columns=list(HSP.stored))
        table = {name: read.column(name).to_numpy() for name in HSP.stored}
    else:
        table = made_up(int(args.rows))
    columns = os.path.join(work, "columns.npz")
    np.savez(columns, **table)
    rows = int(table["qrec"].size)
    roots = [("this checkout", ROOT)] + ([("--root", os.path.abspath(args.root))] if args.root else [])
    results: dict[str, list] = {label: [] for label, _ in roots}
    for _ in range(args.rounds):
        for label, root in roots:
            out = os.path.join(work, "out.parquet")
            proc = subprocess.run([sys.executable, "-c", CHILD, root, columns, out], capture_output=True, text=True)
            if proc.returncode:
                raise SystemExit(proc.stderr[-3000:])
            results[label].append({**json.loads(proc.stdout.strip().splitlines()[-1]), "mb": os.path.getsize(out) / 1e6})
    print(f"{rows:,} rows, {args.rounds} rounds, checkouts in turn ({os.cpu_count()} cores)")
    print(f"{'writer':<16} {'write s (each round)':<28} {'peak MB':>8} {'file MB':>8}")
    for label, runs in results.items():
        walls = ", ".join(f"{r['wall']:.2f}" for r in runs)
        print(f"{label:<16} {walls:<28} {max(r['peak_mb'] for r in runs):8.0f} {runs[-1]['mb']:8.1f}")


if __name__ == "__main__":
    main()
