"""Query bases in alignments of at least 80 % identity (gap columns excluded), our alignments beside
nucmer's and LASTZ's, as the issue of gapped alignments measures them on the bundled pair.

    python bench/identity_coverage.py Q.fa R.fa ours=al.paf nucmer=out.delta lastz=lz.general [--min-identity 80]
        [--missing ours lastz]

A PAF with cg:Z, a MUMmer delta (name ending in .delta) or LASTZ's general format (name ending in
.general: `--format=general:name1,start1,end1,name2,start2,end2,strand2,nmatch,nmismatch`, and
`,cigarx` for its columns). An alignment's identity is its identical columns over its columns of two
bases (counted against the sequences for PAF, delta and LASTZ with cigarx, LASTZ's own counts without
it); the query bases covered are the union of the query spans of the alignments at or above the
threshold. Prints a table; --missing A B also lists the query stretches B covers so and A does not,
with the identity of B's own columns there (where B's columns are known).
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
from common.truth import delta_blocks, lastz_blocks, lastz_name, paf_blocks  # noqa: E402
from paf_coverage import union_bases  # noqa: E402
from gpu_kernels.encode import COMPLEMENT  # noqa: E402
from gpu_kernels.fasta import read_fasta  # noqa: E402


def codes_of(path: str) -> dict:
    return {r.name.split()[0]: r.codes for r in read_fasta(path)}


def spans_from_blocks(blocks, query: dict, reference: dict, columns: dict | None = None) -> list:
    """(query name, start, end, identity) of each alignment of PAF or delta blocks. columns, if given,
    gets each alignment's query columns: {its index in the list: [(query name, start, identical bool array)]}."""
    same, pairs, span, index = defaultdict(int), defaultdict(int), {}, {}
    for qname, rname, reverse, q, r, n, number in blocks:
        qs = query[qname][q:q + n]
        rs = reference[rname][r:r + n]
        if reverse:
            rs = COMPLEMENT[rs[::-1]]
        if columns is not None:
            columns[index.setdefault(number, len(index))].append((qname, q, (qs == rs) & (qs < 4)))
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
        name, start, end, strand = lastz_name(f[3], query), int(f[4]), int(f[5]), f[6]
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


def missing(a: list, b: list, b_columns: dict, query: dict, threshold: float) -> list:
    """The query stretches B's alignments at or above the threshold cover and A's do not: (name, start,
    end, B's identical columns there, B's columns of two bases there), longest first."""
    out = []
    for name, codes in query.items():
        covered = {label: np.zeros(codes.size, dtype=bool) for label in ("a", "b")}
        for label, spans in (("a", a), ("b", b)):
            for n, start, end, identity in spans:
                if n == name and identity * 100 >= threshold:
                    covered[label][start:end] = True
        same, pairs = np.zeros(codes.size, dtype=np.int64), np.zeros(codes.size, dtype=np.int64)
        kept = {k for k, (n, start, end, identity) in enumerate(b) if n == name and identity * 100 >= threshold}
        for number, pieces in b_columns.items():
            if number in kept:
                for n, q, identical in pieces:
                    if n == name:
                        same[q:q + identical.size] += identical
                        pairs[q:q + identical.size] += 1
        gap = np.diff(np.concatenate(([0], (covered["b"] & ~covered["a"]).view(np.int8), [0])))
        for start, end in zip(np.flatnonzero(gap == 1), np.flatnonzero(gap == -1)):
            out.append((name, int(start), int(end), int(same[start:end].sum()), int(pairs[start:end].sum())))
    return sorted(out, key=lambda m: m[1] - m[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query")
    parser.add_argument("reference")
    parser.add_argument("alignments", nargs="+", help="LABEL=PATH")
    parser.add_argument("--min-identity", type=float, default=80.0)
    parser.add_argument("--missing", nargs=2, metavar=("A", "B"), help="list what B covers and A does not")
    args = parser.parse_args()
    query, reference = codes_of(args.query), codes_of(args.reference)
    length = sum(c.size for c in query.values())
    rows, found, columns = [], {}, {}
    for item in args.alignments:
        label, _, path = item.rpartition("=")
        columns[label] = defaultdict(list)
        with open(path) as handle:
            columns_known = not path.endswith(".general") or "cigarx" in handle.readline()
        if not columns_known:
            spans = spans_of_lastz(path, query)
        elif path.endswith(".general"):
            blocks = lastz_blocks(path, {name: codes.size for name, codes in query.items()}, list(reference), True)
            spans = spans_from_blocks(blocks, query, reference, columns[label])
        else:
            blocks = delta_blocks(path, True) if path.endswith(".delta") else paf_blocks(path, None, True)
            spans = spans_from_blocks(blocks, query, reference, columns[label])
        found[label] = spans
        bases = covered(spans, args.min_identity)
        rows.append([label, f"{len(spans):,}", f"{bases:,}", f"{100 * bases / length:.2f} %"])
    print(f"query: {length:,} bases; alignments of at least {args.min_identity:g} % identity (gap columns excluded)")
    print(table(["alignments", "rows", "query bases covered", "coverage"], rows))
    if args.missing:
        a, b = args.missing
        stretches = missing(found[a], found[b], columns[b], query, args.min_identity)
        same, pairs = sum(m[3] for m in stretches), sum(m[4] for m in stretches)
        print(f"\nquery stretches {b} covers and {a} does not: {len(stretches)}, {sum(m[2] - m[1] for m in stretches):,} "
              f"bases; {b}'s columns there {100 * same / max(1, pairs):.1f} % identical")
        print(table(["record", "start", "end", "bases", f"{b}'s identity there"],
                    [[m[0], f"{m[1]:,}", f"{m[2]:,}", f"{m[2] - m[1]:,}",
                      f"{100 * m[3] / m[4]:.1f} %" if m[4] else "-"] for m in stretches[:15]]))


if __name__ == "__main__":
    main()
