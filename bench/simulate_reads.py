"""Simulated long reads from a simulated genome: FASTQ reads, the genome as FASTA.

    python bench/simulate_reads.py --genome 5e6 --reads 20000 --out bench/out/reads

Reads are 5-30 kb, from either strand, with 10 % errors (6 % substitutions, 2 % insertions,
2 % deletions). Writes <out>_genome.fa, <out>_reads.fq and the same reads as <out>_reads.fa.
"""
from __future__ import annotations

import argparse

import numpy as np

from simulate import LETTERS, with_repeats, write_fasta


def read_errors(rng: np.random.Generator, seq: np.ndarray, rate: float) -> np.ndarray:
    """Substitutions (60 % of errors), insertions and deletions (20 % each)."""
    roll = rng.random(seq.size)
    out = seq.copy()
    sub = roll < 0.6 * rate
    out[sub] = (out[sub] + rng.integers(1, 4, int(sub.sum()), dtype=np.uint8)) % 4
    keep = ~((roll >= 0.6 * rate) & (roll < 0.8 * rate))
    inserted = np.flatnonzero((roll >= 0.8 * rate) & (roll < rate))
    out = np.insert(out, inserted, rng.integers(0, 4, inserted.size, dtype=np.uint8))
    keep = np.insert(keep, inserted, True)
    return out[keep]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genome", type=float, default=5e6)
    parser.add_argument("--reads", type=int, default=20000)
    parser.add_argument("--error", type=float, default=0.10)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--out", default="bench/out/reads")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    genome = with_repeats(rng, int(args.genome))
    write_fasta(f"{args.out}_genome.fa", ["genome"], [genome])
    reads = []
    for _ in range(args.reads):
        size = int(rng.integers(5000, 30001))
        at = int(rng.integers(0, genome.size - size))
        read = genome[at:at + size]
        if rng.random() < 0.5:
            read = 3 - read[::-1]
        reads.append(read_errors(rng, read, args.error))
    names = [f"read{i + 1}" for i in range(len(reads))]
    write_fasta(f"{args.out}_reads.fa", names, reads)
    with open(f"{args.out}_reads.fq", "wb") as handle:
        for name, read in zip(names, reads):
            handle.write(b"@%s\n%s\n+\n%s\n" % (name.encode(), LETTERS[read].tobytes(), b"I" * read.size))


if __name__ == "__main__":
    main()
