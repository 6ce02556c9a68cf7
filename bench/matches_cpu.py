"""Exact-match modes side by side with MUMmer: `mems` and `mums` of this project against
`mummer -maxmatch -b -c` and `mummer -mum -b -c`, on the bundled pair and repeat-rich simulated pairs
(the heavy model of bench/simulate.py), each timed in this run.

    python bench/matches_cpu.py [--sizes 5 20] [--lengths 20] [--backend numpy] [--no-mummer]

Prints CPU seconds (user + system), wall seconds, peak resident memory, the matches found and whether
the two outputs hold the same lines.
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from common.measure import run, table, warm_python  # noqa: E402
from simulate import heavy_pair, write_fasta  # noqa: E402


def lines(path: str) -> set:
    with open(path) as handle:
        return {line.strip() for line in handle if line.strip()}


def count(path: str) -> int:
    with open(path) as handle:
        return sum(1 for line in handle if line.strip() and not line.startswith(">"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="*", default=[5])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--lengths", type=int, nargs="+", default=[20])
    parser.add_argument("--no-mummer", action="store_true")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "matches_cpu"))
    args = parser.parse_args()
    warm_python(sys.executable)
    os.makedirs(args.workdir, exist_ok=True)
    real = []
    for name in ("Mhyopneumoniae_232.fa.gz", "Mhyopneumoniae_7422.fa.gz"):
        path = os.path.join(args.workdir, name[:-3])
        with open(path, "wb") as handle:
            handle.write(gzip.decompress(open(os.path.join(ROOT, "resources", name), "rb").read()))
        real.append(path)
    pairs = [("Mycoplasma pair", real[0], real[1])]
    for size in args.sizes:
        query, reference = (os.path.join(args.workdir, f"heavy_{size:g}_{s}.fa") for s in "ab")
        if not (os.path.exists(query) and os.path.exists(reference)):
            first, second, fm, sm = heavy_pair(int(size * 1e6), 1, seed=11)
            write_fasta(query, ["chr1"], first, fm)
            write_fasta(reference, ["chr1"], second, sm)
        pairs.append((f"heavy {size:g} Mbp", query, reference))
    use_mummer = not args.no_mummer and shutil.which("mummer")
    header = ["input", "mode", "L", "matches", "ours CPU s", "ours wall s", "ours MB", "mummer CPU s", "mummer wall s",
              "mummer MB", "CPU ratio", "same"]
    rows = []
    for label, query, reference in pairs:
        for mode, flag in (("mems", "-maxmatch"), ("mums", "-mum")):
            for min_len in args.lengths:
                ours_out = os.path.join(args.workdir, f"ours_{mode}_{min_len}.txt")
                ours = run([sys.executable, "-m", "gpu_kernels", mode, query, reference, "-l", str(min_len),
                            "--backend", args.backend], ours_out, cwd=ROOT)
                row = [label, mode, str(min_len), f"{count(ours_out):,}", f"{ours['cpu']:.2f}", f"{ours['wall']:.2f}",
                       f"{ours['peak_mb']:.0f}"]
                if use_mummer:
                    theirs_out = os.path.join(args.workdir, f"mummer_{mode}_{min_len}.txt")
                    theirs = run(["mummer", flag, "-b", "-c", "-l", str(min_len), reference, query], theirs_out)
                    row += [f"{theirs['cpu']:.2f}", f"{theirs['wall']:.2f}", f"{theirs['peak_mb']:.0f}",
                            f"{theirs['cpu'] / ours['cpu']:.2f}", str(lines(ours_out) == lines(theirs_out))]
                else:
                    row += [""] * 5
                rows.append(row)
                print(table(header, [row]).splitlines()[1], flush=True)
    print()
    print(f"backend {args.backend}; {os.cpu_count()} CPUs; CPU ratio = mummer CPU s / ours")
    print(table(header, rows))


if __name__ == "__main__":
    main()
