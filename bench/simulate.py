"""Simulated genome pairs with interspersed repeats, for benchmarks (not tests).

The first genome is random sequence overwritten with copies of repeat families (each copy about
10 % diverged from its family); the second is the first with substitutions, small indels and
inversions. Both go to FASTA, one record per chromosome.

    python bench/simulate.py --length 5e6 --chromosomes 1 --out bench/out/sim5
"""
from __future__ import annotations

import argparse
import os

import numpy as np

LETTERS = np.frombuffer(b"ACGT", dtype=np.uint8)


def with_repeats(rng: np.random.Generator, length: int, fraction: float = 0.2, families: int = 40,
                 divergence: float = 0.1) -> np.ndarray:
    """Random codes with about `fraction` of the bases in copies of repeat families, each copy
    `divergence` substituted from its family's consensus."""
    seq = rng.integers(0, 4, length, dtype=np.uint8)
    units = [rng.integers(0, 4, int(rng.integers(300, 6000)), dtype=np.uint8) for _ in range(families)]
    placed = 0
    while placed < fraction * length:
        unit = units[int(rng.integers(families))]
        copy = substitute(rng, unit, divergence)
        if rng.random() < 0.5:
            copy = 3 - copy[::-1]
        at = int(rng.integers(0, max(1, length - copy.size)))
        seq[at:at + copy.size] = copy[: length - at]
        placed += copy.size
    return seq


def substitute(rng: np.random.Generator, seq: np.ndarray, rate: float) -> np.ndarray:
    """Each base replaced by a different base with probability rate."""
    out = seq.copy()
    hit = rng.random(seq.size) < rate
    out[hit] = (out[hit] + rng.integers(1, 4, int(hit.sum()), dtype=np.uint8)) % 4
    return out


def indels(rng: np.random.Generator, seq: np.ndarray, rate: float) -> np.ndarray:
    """Single-base deletions and insertions, each at rate/2 per base."""
    keep = rng.random(seq.size) >= rate / 2
    seq = seq[keep]
    at = np.flatnonzero(rng.random(seq.size) < rate / 2)
    return np.insert(seq, at, rng.integers(0, 4, at.size, dtype=np.uint8))


def invert(rng: np.random.Generator, seq: np.ndarray, count: int) -> np.ndarray:
    """Reverse-complement `count` segments of 1-50 kbp."""
    seq = seq.copy()
    for _ in range(count):
        size = int(rng.integers(1000, 50000))
        if seq.size <= size:
            continue
        at = int(rng.integers(0, seq.size - size))
        seq[at:at + size] = 3 - seq[at:at + size][::-1]
    return seq


def related(rng: np.random.Generator, seq: np.ndarray, subst: float = 0.05, indel: float = 0.002) -> np.ndarray:
    """A descendant: substitutions, small indels, a few inversions."""
    return invert(rng, indels(rng, substitute(rng, seq, subst), indel), max(1, seq.size // 1_000_000))


def write_fasta(path: str, names: list[str], chromosomes: list[np.ndarray]) -> None:
    """Write codes as FASTA, 80 columns a line."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as handle:
        for name, codes in zip(names, chromosomes):
            handle.write(f">{name}\n".encode())
            text = LETTERS[codes].tobytes()
            handle.write(b"\n".join(text[i:i + 80] for i in range(0, len(text), 80)) + b"\n")


def simulate_pair(length: int, chromosomes: int = 1, seed: int = 1, subst: float = 0.05,
                  repeat_divergence: float = 0.1, repeat_fraction: float = 0.2):
    """Two lists of chromosomes (codes) of about `length` bases in all, the second derived from the first."""
    rng = np.random.default_rng(seed)
    size = length // chromosomes
    first = [with_repeats(rng, size, repeat_fraction, divergence=repeat_divergence) for _ in range(chromosomes)]
    second = [related(rng, chrom, subst) for chrom in first]
    return first, second


def main() -> None:
    """Write <out>_a.fa and <out>_b.fa."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=float, default=5e6, help="bases per genome")
    parser.add_argument("--chromosomes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--subst", type=float, default=0.05, help="substitution rate between the two genomes")
    parser.add_argument("--repeat-divergence", type=float, default=0.1, help="substitutions of a repeat copy from its family")
    parser.add_argument("--repeat-fraction", type=float, default=0.2, help="fraction of the genome in repeat copies")
    parser.add_argument("--out", default="bench/out/sim", help="output prefix")
    args = parser.parse_args()
    first, second = simulate_pair(int(args.length), args.chromosomes, args.seed, args.subst,
                                  args.repeat_divergence, args.repeat_fraction)
    names = [f"chr{i + 1}" for i in range(args.chromosomes)]
    write_fasta(f"{args.out}_a.fa", names, first)
    write_fasta(f"{args.out}_b.fa", names, second)


if __name__ == "__main__":
    main()
