"""ANI against a known truth: pairs of genomes drawn from one random root, each side a fixed share of
substitutions from it (with or without small indels at a tenth of that), our `ani` (align's
one-to-one alignments, gap columns excluded) and FastANI's beside the identity the draw gives (the
share of the root's bases that both sides still have alike, before the indels). Shows which of the
two follows the truth as pairs diverge; the Many genomes issue compares them. --shape A: the sites'
rates vary, each drawn once for the root from a gamma distribution of shape A and mean 1 (real
genomes' sites evolve at different rates: coding positions, conserved genes), a site's chance of a
change d/2 times its rate (at most 3/4); 0, the default: every site at d/2. --block B: one rate for
each run of B bases (genes that evolve at their own pace) rather than for each base.

    python bench/ani_truth.py [--length 3e6] [--distances 0.06 0.10 0.14 0.18] [--shape 1 [--block 1000]]
        [--workdir /tmp/ani_truth]

Needs `fastANI` on the PATH (Debian `fastani`). Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from common.measure import table  # noqa: E402
from simulate import indels, substitute  # noqa: E402


def write(path: str, codes: np.ndarray) -> None:
    text = np.frombuffer(b"ACGT", dtype=np.uint8)[codes].tobytes().decode()
    with open(path, "w") as handle:
        handle.write(">chr\n" + "".join(text[i:i + 60] + "\n" for i in range(0, len(text), 60)))


def ours(query: str, reference: str, workdir: str) -> float:
    from gpu_kernels.__main__ import main
    from gpu_kernels.ani import pair_ani
    from gpu_kernels.formats import read_meta
    import pyarrow.parquet as pq

    path = os.path.join(workdir, "al.parquet")
    main(["align", query, reference, "--table", path, "--backend", "numpy", "-o", os.devnull])
    meta, frame = read_meta(path), pq.read_table(path).to_pydict()
    return pair_ani({k: np.asarray(v) for k, v in frame.items() if k != "cigar"}, meta["query"]["lengths"],
                    meta["reference"]["lengths"])["ani"]


def fastani(query: str, reference: str, workdir: str) -> float:
    out = os.path.join(workdir, "fastani.txt")
    subprocess.run(["fastANI", "-q", query, "-r", reference, "-o", out], check=True, capture_output=True)
    text = open(out).read().split()
    return float(text[2]) if text else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", type=float, default=3e6)
    parser.add_argument("--distances", type=float, nargs="+", default=[0.06, 0.10, 0.14, 0.18])
    parser.add_argument("--workdir", default="/tmp/ani_truth")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shape", type=float, default=0.0, help="the sites' rates drawn from a gamma of this "
                        "shape and mean 1 (0: one rate for all)")
    parser.add_argument("--block", type=int, default=1, help="with --shape, one rate for each run of this many "
                        "bases (a gene's, say) rather than for each base")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    root = rng.integers(0, 4, int(args.length), dtype=np.uint8)
    rates = np.ones(root.size)
    if args.shape:
        rates = np.repeat(rng.gamma(args.shape, 1 / args.shape, -(-root.size // args.block)), args.block)[:root.size]
    rows = []
    for d in args.distances:
        for with_indels in (False, True):
            sides = [substitute(rng, root, np.minimum(0.75, rates * d / 2)) for _ in "ab"]
            truth = 100 * float(np.mean(sides[0] == sides[1]))
            paths = []
            for side, seq in zip("ab", sides):
                seq = indels(rng, seq, d / 20) if with_indels else seq
                paths.append(os.path.join(args.workdir, f"{side}.fa"))
                write(paths[-1], seq)
            ani, fast = ours(*paths, args.workdir), fastani(*paths, args.workdir)
            rows.append([f"{d:.2f}", "yes" if with_indels else "no", f"{truth:.2f}", f"{ani:.2f}",
                         f"{ani - truth:+.2f}", f"{fast:.2f}", f"{fast - truth:+.2f}"])
    print(table(["distance", "indels", "truth", "ours", "ours - truth", "FastANI", "FastANI - truth"], rows))


if __name__ == "__main__":
    main()
