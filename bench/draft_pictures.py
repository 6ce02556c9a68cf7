"""A fragmented draft against a reference through the workflow, for the pictures: a reference of a
few chromosomes and a related assembly cut into contigs, shuffled, half of them reverse-complemented,
named like NCBI headers. The grid dotplot should show the draft's contigs ordered and oriented into
the reference's diagonals.

    python bench/draft_pictures.py [--contigs 80] [--chromosomes 3] [--length 6e6] [--workdir DIR]

Prints where the pictures are; not a test.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from simulate import related, simulate_pair, write_fasta  # noqa: E402


def draft_of(rng: np.random.Generator, chromosomes: list, contigs: int) -> tuple[list[str], list[np.ndarray]]:
    """The chromosomes of a related genome cut at random points into `contigs` pieces, shuffled, half flipped."""
    genome = np.concatenate([related(rng, c, 0.03) for c in chromosomes])
    cuts = np.sort(rng.choice(np.arange(1000, genome.size - 1000), contigs - 1, replace=False))
    pieces = np.split(genome, cuts)
    pieces = [3 - p[::-1] if rng.random() < 0.5 else p for p in pieces]
    order = rng.permutation(len(pieces))
    names = [f"gi|{900000 + i}|ref|NZ_DRAFT{i:03d}.1|" for i in range(len(pieces))]
    return names, [pieces[i] for i in order]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contigs", type=int, default=80)
    parser.add_argument("--chromosomes", type=int, default=3)
    parser.add_argument("--length", type=float, default=6e6)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--order", choices=("reference", "file"), default="reference")
    parser.add_argument("--workdir", default="/tmp/draft_pictures")
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    reference, _ = simulate_pair(int(args.length), args.chromosomes, seed=3)
    names, contigs = draft_of(rng, reference, args.contigs)
    os.makedirs(args.workdir, exist_ok=True)
    ref_fa, draft_fa = os.path.join(args.workdir, "reference.fa"), os.path.join(args.workdir, "draft.fa")
    write_fasta(ref_fa, [f"chr{i + 1}" for i in range(args.chromosomes)], reference)
    write_fasta(draft_fa, names, contigs)
    config = os.path.join(args.workdir, "config.yaml")
    with open(config, "w") as handle:
        handle.write(f"genomes:\n  draft: {draft_fa}\n  reference: {ref_fa}\nbackend: numpy\n"
                     f"outputs:\n  dotplot_order: {args.order}\n  max_pair_dotplots: 4\n"
                     f"results: {args.workdir}/results\n")
    subprocess.run([sys.executable, "-m", "snakemake", "-s", os.path.join(ROOT, "workflow", "Snakefile"), "-d",
                    args.workdir, "--configfile", config, "--cores", str(args.cores), "-q"], check=True)
    pair = os.path.join(args.workdir, "results", "default", "draft_vs_reference")
    for name in ("grid_dotplot.png", "dotplot.html", "coverage_heatmap.png", "pair_dotplots"):
        print(os.path.join(pair, name))


if __name__ == "__main__":
    main()
