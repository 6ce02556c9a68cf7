"""Query bases in alignments of at least 80 % identity (gap columns excluded), our alignments beside
nucmer's and LASTZ's, as the issue of gapped alignments measures them on the bundled pair.

    python bench/identity_coverage.py Q.fa R.fa ours=al.paf nucmer=out.delta lastz=lz.general [--min-identity 80]

A PAF with cg:Z, a MUMmer delta (name ending in .delta) or LASTZ's general format (name ending in
.general: `--format=general:name1,start1,end1,name2,start2,end2,strand2,nmatch,nmismatch`). An
alignment's identity is its identical columns over its columns of two bases (counted against the
sequences for PAF and delta, LASTZ's own counts for LASTZ); the query bases covered are the union of
the query spans of the alignments at or above the threshold. Prints a table.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common.measure import table  # noqa: E402
from common.truth import delta_blocks, paf_blocks  # noqa: E402
from paf_coverage import union_bases  # noqa: E402
from gpu_kernels.encode import COMPLEMENT  # noqa: E402
from gpu_kernels.fasta import read_fasta  # noqa: E402


def codes_of(path: str) -> dict:
    return {r.name.split()[0]: r.codes for r in read_fasta(path)}


def spans_from_blocks(blocks, query: dict, reference: dict) -> list:
    """(query name, start, end, identity) of each alignment of PAF or delta blocks."""
    same, pairs, span = defaultdict(int), defaultdict(int), {}
    for qname, rname, reverse, q, r, n, number in blocks:
        qs = query[qname][q:q + n]
        rs = reference[rname][r:r + n]
        if reverse:
            rs = COMPLEMENT[rs[::-1]]
        same[number] += int(np.count_nonzero((qs == rs) & (qs < 4)))
        pairs[number] += n
        lo, hi = span.get(number, (q, q + n))[0:2]
        span[number] = (min(lo, q), max(hi, q + n), qname)
    return [(span[k][2], span[k][0], span[k][1], same[k] / pairs[k]) for k in span]


def spans_of_lastz(path: str, query: dict) -> list:
    out = []
    for line in open(path):
        if line.startswith("#"):
            continue
        f = line.split("\t")
        name, start, end, strand = f[3], int(f[4]), int(f[5]), f[6]
        if name not in query:  # LASTZ cuts a name at its first '|': the record it starts
            name = next(full for full in query if full.startswith(name))
        length = query[name].size
        if strand == "-":  # LASTZ counts a reverse alignment's query on the reverse strand
            start, end = length - end, length - start
        out.append((name, start, end, int(f[7]) / max(1, int(f[7]) + int(f[8]))))
    return out


def covered(spans, threshold: float) -> int:
    per = defaultdict(list)
    for name, start, end, identity in spans:
        if identity * 100 >= threshold:
            per[name].append((start, end))
    return sum(union_bases(pairs) for pairs in per.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query")
    parser.add_argument("reference")
    parser.add_argument("alignments", nargs="+", help="LABEL=PATH")
    parser.add_argument("--min-identity", type=float, default=80.0)
    args = parser.parse_args()
    query, reference = codes_of(args.query), codes_of(args.reference)
    length = sum(c.size for c in query.values())
    rows = []
    for item in args.alignments:
        label, _, path = item.rpartition("=")
        if path.endswith(".general"):
            spans = spans_of_lastz(path, query)
        else:
            blocks = delta_blocks(path, True) if path.endswith(".delta") else paf_blocks(path, None, True)
            spans = spans_from_blocks(blocks, query, reference)
        bases = covered(spans, args.min_identity)
        rows.append([label, f"{len(spans):,}", f"{bases:,}", f"{100 * bases / length:.2f} %"])
    print(f"query: {length:,} bases; alignments of at least {args.min_identity:g} % identity (gap columns excluded)")
    print(table(["alignments", "rows", "query bases covered", "coverage"], rows))


if __name__ == "__main__":
    main()
