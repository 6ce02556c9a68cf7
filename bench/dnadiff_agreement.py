"""Ours beside dnadiff on a real pair: the one-to-one alignments' query coverage, and SNPs at the
reference positions both sets align (the same SNP there, or none in either).

    python bench/dnadiff_agreement.py --ours al.paf al.snps --dnadiff dd.1delta dd.snps [--beside minimap2=mm.paf]

al.paf: `align ... -o al.paf --snps al.snps` (its tp:A:P rows are the one-to-one set); dd: `dnadiff -p dd
REFERENCE QUERY` (nucmer + delta-filter -1). SNP files in show-snps' tab-separated layout (P1, SUB, SUB,
P2 first, the reference's and query's names last); indels are left out. With no truth on a real pair,
dnadiff's one-to-one column pairs stand in for one: the share of them each one-to-one set (ours, and
the tp:A:P rows of each --beside PAF) holds. Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import table  # noqa: E402
from common.truth import delta_blocks, paf_blocks  # noqa: E402


def covered(blocks, side: int) -> dict:
    """Positions each record's blocks cover (side 3: the query's, 4: the reference's), as bool arrays."""
    spans = defaultdict(list)
    for block in blocks:
        name = block[0] if side == 3 else block[1]
        spans[name].append((block[side], block[side] + block[5]))
    out = {}
    for name, pieces in spans.items():
        mask = np.zeros(max(end for _, end in pieces), dtype=bool)
        for start, end in pieces:
            mask[start:end] = True
        out[name] = mask
    return out


def column_pairs(blocks, qoffset: dict, roffset: dict) -> np.ndarray:
    """The aligned column pairs of blocks as sorted unique int64 keys (query position, reference
    position, strand), positions counted across records by the offsets."""
    keys = []
    for qname, rname, reverse, q, r, n in (b[:6] for b in blocks):
        k = np.arange(n, dtype=np.int64)
        qpos = qoffset[qname] + (q + n - 1 - k if reverse else q + k)
        keys.append((qpos << 33) | ((roffset[rname] + r + k) << 1) | reverse)
    return np.unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)


def offsets(names) -> dict:
    return {name: i << 27 for i, name in enumerate(sorted(set(names)))}  # records under 134 Mbp


def substitutions(path: str) -> dict:
    """reference name -> {0-based position: (reference base, query base)} of a show-snps table."""
    out = defaultdict(dict)
    with open(path) as handle:
        for line in handle:
            f = line.rstrip("\n").split("\t")
            if len(f) < 6 or not f[0].isdigit() or "." in (f[1], f[2]):
                continue
            out[f[-2]][int(f[0]) - 1] = (f[1], f[2])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ours", nargs=2, required=True, metavar=("PAF", "SNPS"))
    parser.add_argument("--dnadiff", nargs=2, required=True, metavar=("DELTA", "SNPS"))
    parser.add_argument("--beside", nargs="*", default=[], metavar="LABEL=PAF")
    args = parser.parse_args()
    ours_blocks = list(paf_blocks(args.ours[0], only="tp:A:P"))
    theirs_blocks = list(delta_blocks(args.dnadiff[0]))
    beside = {label: list(paf_blocks(path, only="tp:A:P")) for label, path in (b.split("=", 1) for b in args.beside)}
    every = [b for blocks in (ours_blocks, theirs_blocks, *beside.values()) for b in blocks]
    qoff, roff = offsets(b[0] for b in every), offsets(b[1] for b in every)
    truth = column_pairs(theirs_blocks, qoff, roff)
    held = {label: np.isin(truth, column_pairs(blocks, qoff, roff)).mean()
            for label, blocks in {"ours": ours_blocks, **beside}.items()}
    q_ours, q_theirs = covered(ours_blocks, 3), covered(theirs_blocks, 3)
    r_ours, r_theirs = covered(ours_blocks, 4), covered(theirs_blocks, 4)
    snps_ours, snps_theirs = substitutions(args.ours[1]), substitutions(args.dnadiff[1])
    both, same, other, only_ours, only_theirs = 0, 0, 0, 0, 0
    for name in set(r_ours) & set(r_theirs):
        n = min(r_ours[name].size, r_theirs[name].size)
        inside = set(np.flatnonzero(r_ours[name][:n] & r_theirs[name][:n]).tolist())
        both += len(inside)
        mine = {p: v for p, v in snps_ours.get(name, {}).items() if p in inside}
        theirs = {p: v for p, v in snps_theirs.get(name, {}).items() if p in inside}
        same += sum(1 for p, v in mine.items() if theirs.get(p) == v)
        other += sum(1 for p, v in mine.items() if p in theirs and theirs[p] != v)
        only_ours += len(mine.keys() - theirs.keys())
        only_theirs += len(theirs.keys() - mine.keys())
    q_cov = [sum(int(m.sum()) for m in cov.values()) for cov in (q_ours, q_theirs)]
    differ = other + only_ours + only_theirs
    rows = [["query bases in one-to-one alignments", f"{q_cov[0]:,}", f"{q_cov[1]:,}",
             f"ours {100 * q_cov[0] / q_cov[1]:.2f} % of dnadiff's"],
            ["reference positions both align", f"{both:,}", "", ""],
            ["SNPs there", f"{same + other + only_ours:,}", f"{same + other + only_theirs:,}", f"{same:,} the same"],
            ["positions that agree (the same SNP, or none)", f"{100 * (both - differ) / max(both, 1):.3f} %", "",
             f"{only_ours:,} ours alone, {only_theirs:,} dnadiff's alone, {other:,} other letters"]]
    rows += [[f"dnadiff's {truth.size:,} column pairs held: {label}", f"{100 * share:.2f} %", "", ""]
             for label, share in held.items()]
    print(table(["", "ours", "dnadiff", ""], rows))


if __name__ == "__main__":
    main()
