"""Precision and recall of alignments (PAF with cg:Z) against a simulated pair's truth.

    python bench/simulate.py --model heavy --length 5e6 --out /tmp/sim --truth
    python bench/score_alignments.py --truth /tmp/sim_truth.npz --held hsps.paf backbone=chains.paf minimap2=mm2.paf

PAF (with cg:Z), MUMmer delta files (a name ending in .delta: nucmer's) or LASTZ's general format with a
cigarx column (a name ending in .general: bench/common/truth.lastz_blocks), or PSL (a name ending in .psl:
ours, or LAST's MAF through maf-convert psl). Aligned column pairs
(every M, = or X column; a delta alignment's runs between its indels) against the true ones (bench/common/truth.py): precision
(the share of aligned pairs that are true), recall (the share of all true pairs aligned) and, with
--held, recall of the true pairs that the --held alignments (the HSPs, say) hold. Prints a table.
--shifts: both again, a wrong pair counted right where it only places an indel elsewhere in a run of
one letter, at the truth's own score (common.truth.Shifts; the pair's FASTA files beside the truth).
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.truth import Shifts, Truth, score, segments  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--truth", required=True, help="<out>_truth.npz of bench/simulate.py --truth")
    parser.add_argument("--held", help="PAF whose true pairs are the recall's second denominator (the HSPs)")
    parser.add_argument("--only", help="PAF tag a row of the scored files must carry to count (tp:A:P: the "
                        "backbone); LABEL=PATH+ scores PATH with it, beside the others without it")
    parser.add_argument("--segments", help="PAF whose recall is given for every collinear piece of the truth "
                        "(syntenic blocks, inversions, the translocation): say, the backbone's")
    parser.add_argument("--offsets", action="store_true", help="also the wrong pairs of each, by how far the "
                        "reference base lies from the query base's true partner (or that it has none)")
    parser.add_argument("--shifts", action="store_true", help="also precision and recall with an indel placed "
                        "elsewhere in a run of one letter counted right (reads PREFIX_a.fa and PREFIX_b.fa beside "
                        "PREFIX_truth.npz)")
    parser.add_argument("--skip-n", action="store_true", help="leave out the columns holding an N, and the true "
                        "pairs of N bases (assembly gaps: their bases are unknown; reads the FASTA as --shifts does)")
    parser.add_argument("pafs", nargs="+", help="LABEL=PATH or PATH")
    args = parser.parse_args()
    prefix = args.truth[:-len("_truth.npz")] if args.truth.endswith("_truth.npz") else args.truth
    truth = Truth(args.truth, (prefix + "_a.fa", prefix + "_b.fa") if args.skip_n else None)
    total = truth.true_pairs()
    shifts = None
    if args.shifts:
        shifts = Shifts(truth, prefix + "_a.fa", prefix + "_b.fa")
    held = None
    if args.held:
        held = score(truth, args.held)["held"]
        held_total = int(sum(h.sum() for h in held.values()))
    print(f"true column pairs: {total:,}" + (f"; held by {args.held}: {held_total:,}" if held else ""))
    print(f"{'alignments':<28} {'aligned':>14} {'precision %':>12} {'recall %':>9}" + (f" {'of held %':>10}" if held else "")
          + (f" {'shifts: precision %':>20} {'recall %':>9}" if shifts else ""))
    for item in args.pafs:
        label, _, path = item.rpartition("=")
        only = None
        if path.endswith("+"):
            path, only = path[:-1], args.only or "tp:A:P"
        elif args.only and not item.endswith("+"):
            only = args.only
        result = score(truth, path, only, shifts)
        precision = 100 * result["correct"] / max(1, result["aligned"])
        recall = 100 * sum(h.sum() for h in result["held"].values()) / max(1, total)
        line = f"{label or path:<28} {result['aligned']:>14,} {precision:>12.2f} {recall:>9.2f}"
        if held:
            both = sum((result["held"][name] & held[name]).sum() for name in held)
            line += f" {100 * both / max(1, held_total):>10.2f}"
        if shifts:
            right = result["correct"] + result["shifted"]
            found = sum(h.sum() for h in result["held_shifted"].values())
            line += f" {100 * right / max(1, result['aligned']):>20.2f} {100 * found / max(1, total):>9.2f}"
        print(line)
        if args.offsets:
            print("    wrong pairs: " + ", ".join(f"{k} {v:,}" for k, v in result["off"].items()))
    if args.segments:
        found = score(truth, args.segments.rstrip("+"), args.only if args.segments.endswith("+") or args.only
                      else None)["held"]
        print(f"\ncollinear pieces of the truth, >= 1 kb, and the share of their pairs {args.segments} aligns"
              + (" (of those HSPs hold)" if held else ""))
        print(f"{'chromosome':<12} {'query start':>12} {'query end':>12} {'strand':>6} {'recall %':>9}")
        for name, lo, hi, strand in segments(truth):
            want = held[name][lo:hi] if held else truth.partner[name][lo:hi] >= 0
            got = found[name][lo:hi] & want
            print(f"{name:<12} {lo:>12,} {hi:>12,} {'-+'[strand == 0]:>6} {100 * got.sum() / max(1, want.sum()):>9.2f}")


if __name__ == "__main__":
    main()
