"""CPU engine benchmark: stage times and counts on the real pair and a simulated 5 Mbp pair.

    python bench/engine_cpu.py [--sim-length 5e6]

Prints one table row per input; times are wall seconds on this machine, NumPy backend.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from gpu_kernels import Params, compare  # noqa: E402
from simulate import simulate_pair, write_fasta  # noqa: E402

STAGES = ("load", "words", "seeds", "diagonals", "extend", "hsps", "total")
COUNTS = ("words", "seeds", "kept_seeds", "hsps_forward", "hsps_reverse", "tiles")


def row(name: str, query: str, reference: str, params: Params) -> list[str]:
    """One table row: the input, its counts, its stage times and query coverage."""
    start = time.perf_counter()
    result = compare(query, reference, params, backend="numpy")
    wall = time.perf_counter() - start
    s = result.stats
    return ([name] + [str(s.get(c, 0)) for c in COUNTS] + [f"{s.get(f'{t}_s', 0):.2f}" for t in STAGES]
            + [f"{wall:.2f}", f"{100 * result.coverage():.2f}"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim-length", type=float, default=5e6)
    parser.add_argument("--xdrop", type=int, default=Params().extension.xdrop)
    args = parser.parse_args()
    params = Params(k=32, min_len=64, min_identity=80, xdrop=args.xdrop)
    out = os.path.join(ROOT, "bench", "out")
    first, second = simulate_pair(int(args.sim_length), 1, seed=5)
    sim_a, sim_b = os.path.join(out, "cpu_sim_a.fa"), os.path.join(out, "cpu_sim_b.fa")
    write_fasta(sim_a, ["chr1"], first)
    write_fasta(sim_b, ["chr1"], second)
    res = os.path.join(ROOT, "resources")
    rows = [row("Mhyo 232 vs 7422", os.path.join(res, "Mhyopneumoniae_232.fa.gz"),
                os.path.join(res, "Mhyopneumoniae_7422.fa.gz"), params),
            row(f"simulated {args.sim_length / 1e6:g} Mbp", sim_a, sim_b, params)]
    header = ["input"] + list(COUNTS) + [f"{t} s" for t in STAGES] + ["wall s", "coverage %"]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    p = params.as_dict()
    print(f"NumPy backend, k={p['k']}, min_len={p['min_len']}, min_identity={p['min_identity']}, xdrop={p['xdrop']}")
    for line in [header] + rows:
        print("  ".join(cell.rjust(w) for cell, w in zip(line, widths)))


if __name__ == "__main__":
    main()
