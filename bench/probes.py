"""Seed 002's probe workload: whole-probe exact matches of a large probe set against a 10 Mbp reference.

    python bench/probes.py --out /tmp/pr/probes                 # make the workload (2,097,152 probes of 1,024)
    python bench/probes.py --out /tmp/pr/probes --run --backend cupy --runs 2 [--mummer]

The paper's set: 2,097,152 queries of 1,024 nt against 10 Mbp of human chromosome 1, forward strand
(0.55 s on a GTX 680). Here the reference is a repeat-rich simulated genome (bench/simulate.py's heavy
model: interspersed repeat families, 35 % of it) and the probes are drawn half from it, half from a
sister 10 % diverged from the same ancestor (those almost never match whole). --run times
`mems -l LENGTH` (FASTA to text) on the chosen backend and, with --mummer, `mummer -maxmatch -l LENGTH
-b -c` beside it and compares the two outputs (sorted). Prints a table.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import run  # noqa: E402
from simulate import heavy_pair, write_fasta  # noqa: E402

LETTERS = np.frombuffer(b"ACGTN", dtype=np.uint8)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make(out: str, reference_bases: int, probes: int, length: int, seed: int) -> tuple[str, str]:
    """Write <out>_reference.fa and <out>_probes.fa; return their paths."""
    reference, sister, _, _ = heavy_pair(reference_bases, 1, seed=seed, rates=(0.0, 0.10))
    reference, sister = reference[0], sister[0]
    rng = np.random.default_rng(seed + 1)
    half = probes // 2
    starts, source = [], []
    for seq, count, side in ((reference, half, False), (sister, probes - half, True)):
        # probes over an assembly gap (N) are drawn again: mummer matches N with N, where an all-N probe would
        # match every gap (ours skips those); the paper's probes are sequence
        gaps = np.concatenate(([0], np.cumsum(seq == 4)))
        at = np.zeros(0, dtype=np.int64)
        while at.size < count:
            more = rng.integers(0, seq.size - length, count)
            at = np.concatenate((at, more[gaps[more + length] == gaps[more]]))[:count]
        starts.append(at)
        source.append(np.full(count, side))
    starts, source = np.concatenate(starts), np.concatenate(source)
    ref_path, probe_path = f"{out}_reference.fa", f"{out}_probes.fa"
    write_fasta(ref_path, ["chr1"], [reference])
    step = 1 << 16
    with open(probe_path, "wb") as handle:
        for at in range(0, probes, step):
            rows = []
            for i in range(at, min(probes, at + step)):
                seq = sister if source[i] else reference
                rows.append(b">p%d\n" % i + LETTERS[seq[starts[i]:starts[i] + length]].tobytes() + b"\n")
            handle.write(b"".join(rows))
    return ref_path, probe_path


def sorted_lines(path: str) -> list[bytes]:
    """A MUMmer output's match lines, each under its header, sorted (headers in file order)."""
    out, header, rows = [], b"", []
    with open(path, "rb") as handle:
        for line in handle:
            if line.startswith(b">"):
                out.extend(sorted(rows))
                out.append(line.rstrip())
                rows = []
            else:
                rows.append(b" ".join(line.split()))
    out.extend(sorted(rows))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/out/probes", help="output prefix")
    parser.add_argument("--reference", type=float, default=10e6, help="reference bases")
    parser.add_argument("--probes", type=int, default=2_097_152)
    parser.add_argument("--length", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--run", action="store_true", help="time mems -l LENGTH on the workload")
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--mummer", action="store_true", help="run mummer beside it and compare the outputs")
    args = parser.parse_args()
    ref_path, probe_path = f"{args.out}_reference.fa", f"{args.out}_probes.fa"
    if not (os.path.exists(ref_path) and os.path.exists(probe_path)):
        make(args.out, int(args.reference), args.probes, args.length, args.seed)
    if not args.run:
        print(f"{probe_path}: {args.probes:,} probes of {args.length}; {ref_path}: {int(args.reference):,} bp")
        return
    print(f"{'command':<44} {'wall s':>8} {'CPU s':>8} {'peak MB':>8} {'lines':>10}")
    ours = f"{args.out}_mems.{args.backend}.txt"
    for i in range(args.runs):
        r = run([sys.executable, "-m", "gpu_kernels", "mems", probe_path, ref_path, "-l", str(args.length),
                 "--backend", args.backend, "-v"], out=ours, err=f"{args.out}_mems.{args.backend}.log", cwd=ROOT)
        lines = sum(1 for _ in open(ours, "rb"))
        print(f"{'mems --backend ' + args.backend + f' (run {i + 1})':<44} {r['wall']:>8.2f} {r['cpu']:>8.1f} "
              f"{r['peak_mb']:>8.0f} {lines:>10,}" + ("" if r["rc"] == 0 else f"  rc {r['rc']}"))
    if args.mummer:
        theirs = f"{args.out}_mummer.txt"
        r = run(["mummer", "-maxmatch", "-l", str(args.length), "-b", "-c", ref_path, probe_path], out=theirs,
                err=f"{args.out}_mummer.log")
        lines = sum(1 for _ in open(theirs, "rb"))
        print(f"{'mummer -maxmatch -b -c':<44} {r['wall']:>8.2f} {r['cpu']:>8.1f} {r['peak_mb']:>8.0f} {lines:>10,}")
        same = sorted_lines(ours) == sorted_lines(theirs)
        print(f"outputs (sorted under each header): {'identical' if same else 'DIFFERENT'}")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
