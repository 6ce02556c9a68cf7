"""Our ANI (a many-genomes run's ani.tsv) beside FastANI's and pyani-plus ANIm's, pair by pair, and
the largest differences by band (90 % and over, 80-90 %), as the Many genomes issue checks them:
our `ani` beside FastANI; our `ani` and `anim` (pyani-plus's own formula) beside pyani-plus.

    fastANI --ql list --rl list -t 2 -o fastani.txt
    pyani-plus anim --database db.sqlite --create-db --name run genomes/ && pyani-plus export-run --database db.sqlite --outdir pp
    python bench/ani_agreement.py results/default/ani.tsv --fastani fastani.txt [--pyani-plus pp/ANIm_identity.tsv ...]

FastANI is asymmetric: a pair's value is the mean of its two directions (one where only one is
reported); pairs FastANI leaves out (under about 80 %) are listed as such. Genomes are named by their
FASTA file's name without its suffix. Not a test: it prints a table.
"""
from __future__ import annotations

import argparse
import os
import sys

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import table  # noqa: E402


def genome_name(path: str) -> str:
    name = os.path.basename(path)
    for suffix in (".gz", ".fa", ".fasta", ".fna"):
        name = name[: -len(suffix)] if name.endswith(suffix) else name
    return name


def fastani_values(path: str) -> dict:
    """{frozenset(pair): mean ANI of its directions} of a FastANI output."""
    rows = pd.read_csv(path, sep="\t", header=None, usecols=[0, 1, 2], names=["q", "r", "ani"])
    values: dict = {}
    for q, r, ani in rows.itertuples(index=False):
        q, r = genome_name(q), genome_name(r)
        if q != r:
            values.setdefault(frozenset((q, r)), []).append(float(ani))
    return {pair: sum(v) / len(v) for pair, v in values.items()}


def pyani_values(path: str) -> dict:
    """{frozenset(pair): ANI in percent} of pyani-plus's identity matrix (mean of its two cells)."""
    matrix = pd.read_csv(path, sep="\t", index_col=0)
    matrix.index = [genome_name(str(n)) for n in matrix.index]
    matrix.columns = [genome_name(str(n)) for n in matrix.columns]
    scale = 100.0 if float(matrix.max().max()) <= 1.0 else 1.0
    values = {}
    for a in matrix.index:
        for b in matrix.columns:
            if a < b and pd.notna(matrix.loc[a, b]):
                cells = [matrix.loc[a, b], matrix.loc[b, a]]
                values[frozenset((a, b))] = scale * float(pd.Series(cells).mean())
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ani", help="our ani.tsv")
    parser.add_argument("--fastani", required=True)
    parser.add_argument("--pyani-plus", nargs="+", help="pyani-plus export-run's identity matrices (one a run)")
    args = parser.parse_args()
    ours = pd.read_csv(args.ani, sep="\t")
    fast = fastani_values(args.fastani)
    pyani = {pair: value for path in args.pyani_plus or [] for pair, value in pyani_values(path).items()}
    rows, bands = [], {}
    for row in ours.itertuples():
        pair = frozenset((str(row.query), str(row.reference)))
        f, p = fast.get(pair), pyani.get(pair)
        anim = getattr(row, "anim", row.ani)  # pyani-plus's formula (gap columns as errors), where ani.tsv has it
        rows.append([str(row.query), str(row.reference), f"{row.ani:.2f}", f"{row.aligned_fraction_query:.3f}",
                     "-" if f is None else f"{f:.2f}", "-" if f is None else f"{row.ani - f:+.2f}",
                     "-" if p is None else f"{anim:.2f}", "-" if p is None else f"{p:.2f}",
                     "-" if p is None else f"{row.ani - p:+.2f}", "-" if p is None else f"{anim - p:+.2f}"])
        if f is not None:
            band = "90 % and over" if f >= 90 else "80-90 %" if f >= 80 else "under 80 %"
            bands.setdefault(band, []).append(abs(row.ani - f))
        if p is not None:
            bands.setdefault("pyani-plus ANIm, ani", []).append(abs(row.ani - p))
            bands.setdefault("pyani-plus ANIm, anim", []).append(abs(anim - p))
    print(table(["query", "reference", "ani", "aligned fraction (query)", "FastANI", "ani - FastANI", "anim",
                 "pyani-plus ANIm", "ani - ANIm", "anim - ANIm"], rows))
    print()
    limits = {"90 % and over": 0.5, "80-90 %": 1.5, "pyani-plus ANIm, ani": 0.2, "pyani-plus ANIm, anim": 0.2}
    print(table(["band", "pairs", "largest |difference|", "mean |difference|", "within the issue's limit"],
                [[band, str(len(d)), f"{max(d):.2f}", f"{sum(d) / len(d):.2f}",
                  f"{sum(x <= limits[band] for x in d)} of {len(d)} (limit {limits[band]})" if band in limits else "-"]
                 for band, d in bands.items()]))
    print(f"pairs FastANI leaves out: {sum(frozenset((str(r.query), str(r.reference))) not in fast for r in ours.itertuples())}")


if __name__ == "__main__":
    main()
