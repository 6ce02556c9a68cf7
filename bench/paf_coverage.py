"""Query coverage of PAF files: the share of the query's bases inside at least one alignment (the union
of the rows' query intervals, never a sum).

    python bench/paf_coverage.py QUERY.fa ours=al.paf backbone=al.paf+ minimap2=mm2.paf

LABEL=PATH+ counts the rows carrying tp:A:P only (the one-to-one backbone; minimap2's primary rows).
Prints a table: alignments, query bases covered, coverage.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import table  # noqa: E402


def query_length(path: str) -> int:
    """ACGT and N bases of a FASTA file (every letter of its sequence lines)."""
    total = 0
    with open(path, "rb") as handle:
        for line in handle:
            if not line.startswith(b">"):
                total += len(line.strip())
    return total


def covered(path: str, only: str | None) -> tuple[int, int]:
    """(rows, query bases covered) of a PAF file."""
    spans: dict = defaultdict(list)
    rows = 0
    with open(path, "rb") as handle:
        for line in handle:
            f = line.split(b"\t", 12)
            if only and only.encode() not in line:
                continue
            spans[f[0]].append((int(f[2]), int(f[3])))
            rows += 1
    return rows, sum(union_bases(pairs) for pairs in spans.values())


def union_bases(pairs) -> int:
    """Bases in the union of (start, end) intervals of one sequence."""
    a = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    ends = np.maximum.accumulate(a[:, 1])
    starts = np.maximum(a[:, 0], np.concatenate(([0], ends[:-1])))
    return int(np.maximum(0, a[:, 1] - starts).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query", help="the query FASTA (plain)")
    parser.add_argument("pafs", nargs="+", help="LABEL=PATH, a trailing + for tp:A:P rows only")
    args = parser.parse_args()
    length = query_length(args.query)
    rows = []
    for item in args.pafs:
        label, _, path = item.rpartition("=")
        only = "tp:A:P" if path.endswith("+") else None
        n, bases = covered(path.rstrip("+"), only)
        rows.append([label or path, f"{n:,}", f"{bases:,}", f"{100 * bases / max(1, length):.2f} %"])
    print(f"query: {length:,} bases")
    print(table(["alignments", "rows", "query bases covered", "coverage"], rows))


if __name__ == "__main__":
    main()
