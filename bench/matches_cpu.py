"""Exact-match modes side by side with MUMmer: mems and mums of this project (NumPy or CuPy) against
`mummer -maxmatch -b -c` and `mummer -mum -b -c`, on the real pair and on a simulated pair.

    python bench/matches_cpu.py [--sim-length 20e6] [--backend numpy] [--no-mummer]

Every row is timed in this run, on this machine; wall seconds include reading the files.
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from simulate import simulate_pair, write_fasta  # noqa: E402


def timed(command: list[str], out: str) -> float:
    start = time.perf_counter()
    with open(out, "w") as handle:
        subprocess.run(command, stdout=handle, stderr=subprocess.DEVNULL, check=True, cwd=ROOT)
    return time.perf_counter() - start


def lines(path: str) -> set:
    with open(path) as handle:
        return {line.strip() for line in handle if line.strip()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim-length", type=float, default=20e6)
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--lengths", type=int, nargs="+", default=[20, 50])
    parser.add_argument("--no-mummer", action="store_true")
    parser.add_argument("--workdir", default=os.path.join(ROOT, "bench", "out"))
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    pairs = []
    real = []
    for name in ("Mhyopneumoniae_232.fa.gz", "Mhyopneumoniae_7422.fa.gz"):
        path = os.path.join(args.workdir, name.replace(".gz", ""))
        with open(path, "wb") as handle:
            handle.write(gzip.decompress(open(os.path.join(ROOT, "resources", name), "rb").read()))
        real.append(path)
    pairs.append(("Mhyo 232 vs 7422", real[0], real[1]))
    first, second = simulate_pair(int(args.sim_length), 1, seed=3)
    sim = [os.path.join(args.workdir, f"match_sim_{s}.fa") for s in "ab"]
    write_fasta(sim[0], ["chr1"], first)
    write_fasta(sim[1], ["chr1"], second)
    pairs.append((f"simulated {args.sim_length / 1e6:g} Mbp", sim[0], sim[1]))
    use_mummer = not args.no_mummer and shutil.which("mummer")
    print(f"backend {args.backend}; {os.cpu_count()} CPUs; times in seconds, wall, files in and text out")
    print(f"{'pair':<22} {'mode':<5} {'L':>3} {'matches':>10} {'ours s':>8} {'mummer s':>9} {'ratio':>6} {'same':>5}")
    for label, query, reference in pairs:
        for mode, flag in (("mems", "-maxmatch"), ("mums", "-mum")):
            for min_len in args.lengths:
                ours_out = os.path.join(args.workdir, f"ours_{mode}_{min_len}.txt")
                ours = timed([sys.executable, "-m", "gpu_kernels", mode, query, reference, "-l", str(min_len),
                              "--backend", args.backend], ours_out)
                count = sum(1 for line in open(ours_out) if not line.startswith(">"))
                if use_mummer:
                    theirs_out = os.path.join(args.workdir, f"mummer_{mode}_{min_len}.txt")
                    theirs = timed(["mummer", flag, "-b", "-c", "-l", str(min_len), reference, query], theirs_out)
                    same = lines(ours_out) == lines(theirs_out)
                    print(f"{label:<22} {mode:<5} {min_len:>3} {count:>10,} {ours:>8.2f} {theirs:>9.2f} "
                          f"{theirs / ours:>6.2f} {str(same):>5}")
                else:
                    print(f"{label:<22} {mode:<5} {min_len:>3} {count:>10,} {ours:>8.2f}")


if __name__ == "__main__":
    main()
