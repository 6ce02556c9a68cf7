"""Seed 000's sizes: MEMs of a 196 Mbp query against a 243 Mbp reference (GPUMEM's mouse chr1 x human
chr2) at L = 30, 50 and 100.

    python bench/gpumem_pair.py --out /tmp/gm/pair                          # make the pair
    python bench/gpumem_pair.py --out /tmp/gm/pair --run --backend cupy --lengths 30 50 100 [--runs 2]
    python bench/gpumem_pair.py --out /tmp/gm/pair --cut 10e6 --lengths 30 50 100   # numpy == cupy on a cut

GPUMEM (K20c) reports index + match: 25.8 / 11.8 / 6.8 s at L = 30 / 50 / 100. Here the pair is simulated
(bench/simulate.py's heavy model: interspersed repeat families, 35 % of each genome, and microsatellites):
an ancestor of 196 Mbp, and a further 47 Mbp for the reference alone; each genome 15 % substituted from it
(so about 28 % apart, indels at a tenth of that, inversions, a translocation, N gaps), as far apart as
mouse and human are outside their conserved stretches. --run times `mems -l L` from FASTA to MUMmer text
(written to a file: the text is most of the time where MEMs number in the hundreds of millions) and takes
from its log (-v) the index (the reference's words, sorted) and the match (both strands' pairs walked,
ordered, and brought to the host): GPUMEM's index + match. --cut writes the first `--cut` bases of both
and compares the two backends' outputs byte for byte. Prints tables.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import run, table  # noqa: E402
from simulate import heavy_ancestor, heavy_descendant, write_fasta  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUERY_BASES, REFERENCE_BASES = 196_000_000, 243_000_000


def make(out: str, scale: float, divergence: float, seed: int) -> tuple[str, str]:
    """Write <out>_query.fa and <out>_reference.fa; return their paths."""
    rng = np.random.default_rng(seed)
    ancestor = heavy_ancestor(rng, int(QUERY_BASES * scale))
    extra = heavy_ancestor(rng, int((REFERENCE_BASES - QUERY_BASES) * scale))
    query = heavy_descendant(rng, ancestor, divergence)
    reference = heavy_descendant(rng, np.concatenate((ancestor, extra)), divergence)
    paths = f"{out}_query.fa", f"{out}_reference.fa"
    write_fasta(paths[0], ["chr1"], [query[0]], [query[1]])
    write_fasta(paths[1], ["chr2"], [reference[0]], [reference[1]])
    return paths


def cut(path: str, bases: int, to: str) -> str:
    """The first `bases` bases of a one-record FASTA file, as another."""
    with open(path, "rb") as handle:
        header = handle.readline()
        body = handle.read().replace(b"\n", b"")[:bases]
    with open(to, "wb") as handle:
        handle.write(header + b"\n".join(body[i:i + 80] for i in range(0, len(body), 80)) + b"\n")
    return to


def stages(log: str) -> dict:
    """Index and match seconds and the MEM count from a `mems -v` log."""
    text = open(log).read()
    index = sum(float(s) for s in re.findall(r"reference words: \d+ \(([\d.]+) s\)", text))
    match = sum(float(s) for s in re.findall(r"strand \d: \d+ MEMs \(([\d.]+) s\)", text))
    match += sum(float(s) for s in re.findall(r"MEMs of both strands on the host \(([\d.]+) s\)", text))
    mems = sum(int(n) for n in re.findall(r"strand \d: (\d+) MEMs", text))
    return {"index": index, "match": match, "mems": mems}


def mems(query: str, reference: str, length: int, backend: str, out: str, steps: bool = False) -> dict:
    log = out + ".log"
    result = run([sys.executable, "-m", "gpu_kernels", "mems", query, reference, "-l", str(length), "--backend",
                  backend, "-vv" if steps else "-v", "-o", out], cwd=ROOT, err=log)
    if result["rc"]:
        raise SystemExit(f"mems -l {length} --backend {backend} failed: see {log}")
    return {**result, **stages(log)}


def digest(path: str) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 24), b""):
            sha.update(block)
    return sha.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/out/gpumem", help="prefix of the pair's files")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of GPUMEM's sizes (196 and 243 Mbp)")
    parser.add_argument("--divergence", type=float, default=0.15, help="each genome's substitutions from the ancestor")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--run", action="store_true", help="time mems -l L on the pair")
    parser.add_argument("--backend", default="cupy")
    parser.add_argument("--lengths", type=int, nargs="+", default=[30, 50, 100])
    parser.add_argument("--runs", type=int, default=1, help="runs of each length (the first may compile kernels)")
    parser.add_argument("--steps", action="store_true", help="log each step's time (-vv; the device synchronized)")
    parser.add_argument("--cut", type=float, default=0, help="compare numpy and cupy on the first CUT bases of both")
    args = parser.parse_args()
    query, reference = f"{args.out}_query.fa", f"{args.out}_reference.fa"
    if not (os.path.exists(query) and os.path.exists(reference)):
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        query, reference = make(args.out, args.scale, args.divergence, args.seed)
        print(f"made {query} and {reference}")
    if args.run:
        rows = []
        for length in args.lengths:
            for _ in range(args.runs):
                r = mems(query, reference, length, args.backend, f"{args.out}_l{length}.{args.backend}.txt", args.steps)
                rows.append([str(length), f"{r['mems']:,}", f"{r['index']:.2f}", f"{r['match']:.2f}",
                             f"{r['index'] + r['match']:.2f}", f"{r['wall']:.2f}", f"{r['peak_mb'] / 1024:.1f}"])
                print(table(["L", "MEMs", "index s", "match s", "index + match s", "FASTA -> text s", "host peak GB"],
                            rows[-1:]), flush=True)
        print(f"mems --backend {args.backend}, {os.path.basename(query)} x {os.path.basename(reference)}")
        print(table(["L", "MEMs", "index s", "match s", "index + match s", "FASTA -> text s", "host peak GB"], rows))
    if args.cut:
        bases = int(args.cut)
        q, r = cut(query, bases, f"{args.out}_cut_query.fa"), cut(reference, bases, f"{args.out}_cut_reference.fa")
        rows = []
        for length in args.lengths:
            outs = {b: f"{args.out}_cut_l{length}.{b}.txt" for b in ("numpy", "cupy")}
            found = {b: mems(q, r, length, b, outs[b]) for b in outs}
            same = digest(outs["numpy"]) == digest(outs["cupy"])
            rows.append([str(length), f"{found['numpy']['mems']:,}", f"{found['cupy']['mems']:,}",
                         "identical" if same else "DIFFERENT", digest(outs["cupy"])])
        print(f"first {bases:,} bases of each: numpy beside cupy")
        print(table(["L", "MEMs numpy", "MEMs cupy", "text", "sha256 (16)"], rows))


if __name__ == "__main__":
    main()
