"""Reference points lifted through a UCSC chain file of one-to-one alignments (`align --liftover`,
the workflow's alignments.chain) by CrossMap, each checked against the query base the alignments' PAF
(cg:Z, tp:A:P rows) pairs it with: the chain file and the PAF are written by separate code, so the two
agree only where the chains are right. Points are drawn uniformly within the one-to-one alignments'
reference spans (a reference base in a deletion has no partner, and one where two alignments overlap
lies in the chain file once: neither is drawn).

    python bench/liftover_check.py alignments.chain alignments.paf --points 10000 [--crossmap CrossMap]
        [--references chr1 chr2] [--save-points points.bed]
    python bench/liftover_check.py alignments.chain --saved-points points.bed

`--save-points` writes the drawn points (BED, with the PAF's query record and base as columns 5 and 6)
and stops before CrossMap; `--saved-points` lifts them later, without the PAF (a device run keeps the
chain file and the points, not its PAF of a few GB).

CrossMap indexes a chain file in Python (about 3.6 s for 3 MB of chains, a minute a 50 MB): on whole
mammalian genomes `--references` keeps the points, and the chains CrossMap reads, to those reference
records.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common.truth import cigar_runs  # noqa: E402


def one_to_one(paf: str, references=None):
    """The tp:A:P rows (on the given reference records, or all): (query name, query start, query end,
    strand, reference name, reference start, reference end, CIGAR bytes)."""
    rows = []
    with open(paf, "rb") as handle:
        for line in handle:
            fields = line.rstrip(b"\n").split(b"\t")
            if b"tp:A:P" not in fields[12:] or (references and fields[5].decode() not in references):
                continue
            cigar = next(f[5:] for f in fields[12:] if f.startswith(b"cg:Z:"))
            rows.append((fields[0].decode(), int(fields[2]), int(fields[3]), fields[4].decode(), fields[5].decode(),
                         int(fields[7]), int(fields[8]), cigar))
    return rows


def partners(row, points):
    """The query base each reference point of one alignment is paired with (-1: in a deletion)."""
    qname, qs, qe, strand, rname, rs, re_, cigar = row
    length, kind = cigar_runs(cigar)
    aligned = np.isin(kind, np.frombuffer(b"=XM", np.uint8))
    rat = rs + np.concatenate(([0], np.cumsum(np.where(aligned | (kind == ord("D")), length, 0))))
    qat = np.concatenate(([0], np.cumsum(np.where(aligned | (kind == ord("I")), length, 0))))  # the aligned query strand
    run = np.searchsorted(rat, points, side="right") - 1
    inside = aligned[run]
    offset = qat[run] + (points - rat[run])
    query = np.where(strand == "+", qs + offset, qe - 1 - offset)
    return np.where(inside, query, -1)


def draw_points(rows, count: int, seed: int, bed: str) -> dict:
    """count reference points drawn uniformly within the alignments' reference spans (those in a deletion
    or in two alignments' spans, which the chain file holds once, left out), written to bed
    (reference, point, point + 1, name, query record, query base); {name: (query record, query base)}."""
    spans = np.array([r[6] - r[5] for r in rows], dtype=np.int64)
    starts, ends = {}, {}
    for r in rows:
        starts.setdefault(r[4], []).append(r[5])
        ends.setdefault(r[4], []).append(r[6])
    starts = {name: np.sort(v) for name, v in starts.items()}
    ends = {name: np.sort(v) for name, v in ends.items()}
    rng = np.random.default_rng(seed)
    which = np.sort(rng.choice(len(rows), size=count, p=spans / spans.sum()))
    expected = {}
    with open(bed, "w") as out:
        for i in np.unique(which):
            row = rows[i]
            points = np.sort(rng.integers(row[5], row[6], size=int((which == i).sum())))
            spanned = np.searchsorted(starts[row[4]], points, "right") - np.searchsorted(ends[row[4]], points, "right")
            for point, query, alone in zip(points.tolist(), partners(row, points).tolist(), (spanned == 1).tolist()):
                if query < 0 or not alone:
                    continue
                name = f"p{len(expected)}"
                expected[name] = (row[0], query)
                out.write(f"{row[4]}\t{point}\t{point + 1}\t{name}\t{row[0]}\t{query}\n")
    return expected


def chains_on(chain: str, references: set, out: str) -> None:
    """The chains of a UCSC chain file whose reference (tName) is one of references, copied to out."""
    keep = False
    with open(chain, "rb") as handle, open(out, "wb") as kept:
        for line in handle:
            if line.startswith(b"chain"):
                keep = line.split()[2].decode() in references
            if keep:
                kept.write(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chain")
    parser.add_argument("paf", nargs="?")
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--crossmap", default="CrossMap")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--references", nargs="+", help="only these reference records' alignments and chains")
    parser.add_argument("--save-points", metavar="BED", help="write the drawn points here and stop")
    parser.add_argument("--saved-points", metavar="BED", help="lift these points (from --save-points); no PAF")
    args = parser.parse_args()
    if (args.paf is None) == (args.saved_points is None):
        parser.error("give either the PAF or --saved-points")
    references = set(args.references or ())
    with tempfile.TemporaryDirectory() as folder:
        bed = args.save_points or os.path.join(folder, "points.bed")
        if args.saved_points:
            expected, drawn = {}, f"points of {args.saved_points}"
            with open(args.saved_points) as handle, open(bed, "w") as out:
                for line in handle:
                    fields = line.split()
                    if not references or fields[0] in references:
                        expected[fields[3]] = (fields[4], int(fields[5]))
                        out.write(line)
        else:
            rows = one_to_one(args.paf, references)
            if not rows:
                print(f"{args.paf}: no one-to-one (tp:A:P) alignment" + (" on those references" if references else ""))
                return 1
            expected = draw_points(rows, args.points, args.seed, bed)
            drawn = f"{len(rows)} one-to-one alignments; reference points drawn in them (not in deletions or overlaps)"
            if args.save_points:
                print(f"{len(rows)} one-to-one alignments; {len(expected)} points written to {bed}")
                return 0
        chain = args.chain
        if references:
            chain = os.path.join(folder, "kept.chain")
            chains_on(args.chain, references, chain)
        start = time.perf_counter()
        lifted_bed = os.path.join(folder, "lifted.bed")
        subprocess.run([args.crossmap, "bed", chain, bed, lifted_bed], check=True, capture_output=True)
        seconds = time.perf_counter() - start
        right = wrong = lines = 0
        lifted = set()
        with open(lifted_bed) as handle:
            for line in handle:
                chrom, begin, _, name = line.rstrip("\n").split("\t")[:4]
                lines += 1
                lifted.add(name)
                right += (chrom, int(begin)) == expected[name]
                wrong += (chrom, int(begin)) != expected[name]
    print(f"{drawn}: {len(expected)}; "
          f"CrossMap {seconds:.1f} s: {len(lifted)} lifted ({100 * len(lifted) / max(1, len(expected)):.2f} %), "
          f"{lines} lines: at the PAF's query base {right} ({100 * right / max(1, lines):.2f} %), elsewhere {wrong}")
    return 0 if right == lines and lines else 1


if __name__ == "__main__":
    sys.exit(main())
