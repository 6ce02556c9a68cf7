"""How much of an alignment set runs through gappy stretches: the aligned columns lying in 1 kb
query windows (of one alignment) that hold 30 or more gap columns, as a share of all aligned
columns; the measure of alignments carried through rearranged arrays or unrelated sequence.

    python bench/gappy_windows.py ours=al.paf+ nucmer=run.1delta [--window 1000] [--gaps 30]

PAF with cg:Z (LABEL=PATH+ counts only its tp:A:P rows) or a MUMmer delta file (a name ending in
delta: dnadiff's .1delta is nucmer + delta-filter -1). Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import table  # noqa: E402
from common.truth import delta_blocks, paf_blocks  # noqa: E402


def gappy_share(blocks, window: int, gaps: int) -> tuple[int, float]:
    """(aligned columns, the share in windows with at least `gaps` gap columns) of numbered blocks."""
    by_alignment = defaultdict(list)
    for qname, _, strand, q, r, length, number in blocks:
        by_alignment[number].append((q, r, length, strand))
    aligned, gap = defaultdict(int), defaultdict(int)
    for number, found in by_alignment.items():
        found.sort()
        for k, (q, r, length, strand) in enumerate(found):
            at = q
            while at < q + length:  # a block's columns, cut at window edges
                end = min(q + length, (at // window + 1) * window)
                aligned[number, at // window] += end - at
                at = end
            if k + 1 < len(found):
                nq, nr, nlength, _ = found[k + 1]
                dq = nq - (q + length)
                dr = (r - (nr + nlength)) if strand in (1, "-") else (nr - (r + length))
                gap[number, (q + length) // window] += max(0, dq) + abs(dr)
    total = sum(aligned.values())
    gappy = sum(columns for key, columns in aligned.items() if gap.get(key, 0) >= gaps)
    return total, gappy / max(1, total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("alignments", nargs="+", help="LABEL=PATH (PATH+: a PAF's tp:A:P rows only)")
    parser.add_argument("--window", type=int, default=1000)
    parser.add_argument("--gaps", type=int, default=30)
    args = parser.parse_args()
    rows = []
    for item in args.alignments:
        label, path = item.split("=", 1) if "=" in item else (item, item)
        only = path.endswith("+")
        path = path.rstrip("+")
        blocks = delta_blocks(path, numbered=True) if path.endswith("delta") else \
            paf_blocks(path, "tp:A:P" if only else None, numbered=True)
        total, share = gappy_share(blocks, args.window, args.gaps)
        rows.append([label, f"{total:,}", f"{100 * share:.2f} %"])
    print(table(["alignments", "aligned columns", f"in {args.window} bp windows with >= {args.gaps} gap columns"],
                rows))


if __name__ == "__main__":
    main()
