"""Simulated genome pairs with interspersed repeats, for benchmarks (not tests).

Two models:
- `young` (the first benchmarks): random sequence overwritten with copies of repeat families (each
  copy about 10 % diverged from its family); the second genome is the first with substitutions,
  small indels and inversions.
- `heavy` (repeat-rich, the size users bring): an ancestor with about 35 % interspersed repeats
  from 60 families whose copies are 0 to 25 % diverged (half of them reverse-complemented) and
  1.5 % microsatellites; query and reference are 2 % and 10 % diverged from it, with indels at a
  tenth of that, inversions, a translocation, N gaps and soft-masked (lowercase) stretches.
Both go to FASTA, one record per chromosome.

    python bench/simulate.py --length 5e6 --chromosomes 1 --out bench/out/sim5 [--model heavy]
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


def indels(rng: np.random.Generator, seq: np.ndarray, rate: float, origin: np.ndarray | None = None,
           mean_length: float = 1.0):
    """Deletions and insertions, each at rate/2 events per base: single bases, or with mean_length > 1
    runs of geometric length of that mean (inserted runs random). With origin (each base's ancestral
    position, signed by orientation: see Origin), returns (seq, origin) moved alike."""
    if mean_length > 1:
        start = np.flatnonzero(rng.random(seq.size) < rate / 2)
        end = np.minimum(start + rng.geometric(1 / mean_length, start.size), seq.size)
        cover = np.zeros(seq.size + 1, dtype=np.int64)
        np.add.at(cover, start, 1)
        np.add.at(cover, end, -1)
        keep = np.cumsum(cover[:-1]) == 0
    else:
        keep = rng.random(seq.size) >= rate / 2
    seq = seq[keep]
    at = np.flatnonzero(rng.random(seq.size) < rate / 2)
    if mean_length > 1:
        at = np.repeat(at, rng.geometric(1 / mean_length, at.size))
    seq = np.insert(seq, at, rng.integers(0, 4, at.size, dtype=np.uint8))
    if origin is None:
        return seq
    return seq, np.insert(origin[keep], at, NO_ORIGIN)


def invert(rng: np.random.Generator, seq: np.ndarray, count: int, origin: np.ndarray | None = None):
    """Reverse-complement `count` segments of 1-50 kbp (with origin: returns (seq, origin), the
    segment's origins reversed and their orientation flipped)."""
    seq = seq.copy()
    origin = None if origin is None else origin.copy()
    for _ in range(count):
        size = int(rng.integers(1000, 50000))
        if seq.size <= size:
            continue
        at = int(rng.integers(0, seq.size - size))
        seq[at:at + size] = 3 - seq[at:at + size][::-1]
        if origin is not None:
            origin[at:at + size] = flipped(origin[at:at + size][::-1])
    return seq if origin is None else (seq, origin)


def related(rng: np.random.Generator, seq: np.ndarray, subst: float = 0.05, indel: float = 0.002) -> np.ndarray:
    """A descendant: substitutions, small indels, a few inversions."""
    return invert(rng, indels(rng, substitute(rng, seq, subst), indel), max(1, seq.size // 1_000_000))


def repeat_families(rng: np.random.Generator, families: int = 60) -> list:
    """The consensus of each repeat family: random, 300-6,000 bases."""
    return [rng.integers(0, 4, int(rng.integers(300, 6000)), dtype=np.uint8) for _ in range(families)]


def heavy_ancestor(rng: np.random.Generator, length: int, families: int = 60, fraction: float = 0.35,
                   micro: float = 0.015, units: list | None = None, divergence: tuple | None = None) -> np.ndarray:
    """Random codes with about `fraction` of the bases in copies of `families` repeat families, each
    copy 0-25 % diverged (most old, some young), half reverse-complemented, plus `micro` in
    microsatellites. units: the families' consensus (repeat_families), to share them among
    chromosomes; divergence: (low, high), copies diverged uniformly between the two instead."""
    seq = rng.integers(0, 4, length, dtype=np.uint8)
    units = repeat_families(rng, families) if units is None else units
    families = len(units)
    placed = 0
    while placed < fraction * length:
        # most copies old, some young: divergence 0.25 * u^2 for u uniform in [0, 1)
        unit = units[int(rng.integers(families))]
        u = float(rng.random())
        rate = 0.25 * u ** 2 if divergence is None else divergence[0] + (divergence[1] - divergence[0]) * u
        copy = substitute(rng, unit, rate)
        if rng.random() < 0.5:
            copy = 3 - copy[::-1]
        at = int(rng.integers(0, max(1, length - copy.size)))
        seq[at:at + copy.size] = copy[: length - at]
        placed += copy.size
    placed = 0
    while placed < micro * length:
        # mono- and dinucleotide runs most often, as in real genomes
        unit = rng.integers(0, 4, int(rng.choice([1, 1, 2, 2, 3, 4, 5, 6])), dtype=np.uint8)
        size = int(rng.integers(20, 400))
        run = np.tile(unit, size // unit.size + 1)[:size]
        at = int(rng.integers(0, max(1, length - run.size)))
        seq[at:at + run.size] = run
        placed += run.size
    return seq


N_CODE = 4
# The truth of a simulated base: the ancestral position it descends from, + 1, negative where the
# base is that position's reverse complement; NO_ORIGIN for inserted bases and N gaps.
NO_ORIGIN = 0


def flipped(origin: np.ndarray) -> np.ndarray:
    """Origins of a reverse-complemented stretch (already in its new order)."""
    return -origin


def heavy_descendant(rng: np.random.Generator, ancestor: np.ndarray, subst: float, truth: bool = False,
                     indel_mean: float = 1.0, n_gaps: float | None = None):
    """(codes, soft mask): substitutions, indels at a tenth of that, inversions, one translocation,
    N gaps and lowercase stretches; truth: (codes, soft mask, origin) with each base's origin
    (NO_ORIGIN, or its ancestral position + 1, negative where reverse-complemented). The same
    random draws either way, so a seed gives the same genomes with or without the truth. indel_mean:
    the indels' mean length (1: single bases). n_gaps: N runs a Mbp (None: one a 5 Mbp, each its
    stretch's own length); given, half of them are assembly gaps of unknown size, 100 N in place of
    100 to 5,000 bases (as AGP's `U` gaps), the others as long as the bases they replace."""
    origin = np.arange(1, ancestor.size + 1, dtype=np.int64) if truth else None
    seq = substitute(rng, ancestor, subst)
    if truth:
        seq, origin = indels(rng, seq, subst / 10, origin, mean_length=indel_mean)
        seq, origin = invert(rng, seq, max(1, ancestor.size // 2_000_000), origin)
    else:
        seq = invert(rng, indels(rng, seq, subst / 10, mean_length=indel_mean), max(1, ancestor.size // 2_000_000))
    size = min(seq.size // 10, int(rng.integers(10_000, 200_000)))  # translocation: a segment moved elsewhere
    at = int(rng.integers(0, seq.size - size))
    piece, rest = seq[at:at + size], np.concatenate((seq[:at], seq[at + size:]))
    to = int(rng.integers(0, rest.size))
    seq = np.concatenate((rest[:to], piece, rest[to:]))
    if truth:
        moved, kept = origin[at:at + size], np.concatenate((origin[:at], origin[at + size:]))
        origin = np.concatenate((kept[:to], moved, kept[to:]))
    if n_gaps is None:
        for _ in range(max(1, seq.size // 5_000_000)):  # N gaps
            gap = int(rng.integers(100, 5000))
            at = int(rng.integers(0, max(1, seq.size - gap)))
            seq[at:at + gap] = N_CODE
            if truth:
                origin[at:at + gap] = NO_ORIGIN
    else:
        seq, origin = assembly_gaps(rng, seq, origin, int(round(seq.size * n_gaps / 1e6)))
    mask = np.zeros(seq.size, dtype=bool)
    for _ in range(max(1, seq.size // 50_000)):  # soft-masked stretches
        span = int(rng.integers(100, 3000))
        at = int(rng.integers(0, max(1, seq.size - span)))
        mask[at:at + span] = True
    return (seq, mask, origin) if truth else (seq, mask)


def assembly_gaps(rng: np.random.Generator, seq: np.ndarray, origin: np.ndarray | None, count: int):
    """count N runs drawn into seq (and its origins): each replaces 100 to 5,000 bases, by as many N
    or (half of them) by 100 N, an unsized gap."""
    starts = np.sort(rng.choice(seq.size - 5000, size=count, replace=False)) if count else np.zeros(0, np.int64)
    pieces, origins, at = [], [], 0
    for start in starts:
        if start < at:
            continue
        length = int(rng.integers(100, 5000))
        written = 100 if rng.random() < 0.5 else length
        pieces += [seq[at:start], np.full(written, N_CODE, np.uint8)]
        if origin is not None:
            origins += [origin[at:start], np.full(written, NO_ORIGIN, origin.dtype)]
        at = start + length
    pieces.append(seq[at:])
    if origin is not None:
        origins.append(origin[at:])
        origin = np.concatenate(origins)
    return np.concatenate(pieces), origin


def heavy_pair(length: int, chromosomes: int = 1, seed: int = 1, truth: bool = False,
               rates: tuple[float, float] = (0.02, 0.10), indel_mean: float = 1.0, n_gaps: float | None = None,
               shared_gaps: float = 0):
    """(query chromosomes, reference chromosomes, query masks, reference masks) of the heavy model;
    truth: and (query origins, reference origins), chromosome by chromosome (chromosome i of each
    genome descends from ancestor i). rates: each genome's substitutions from the ancestor (indels
    at a tenth of that, of mean length indel_mean). n_gaps: each genome's own N runs a Mbp
    (heavy_descendant); shared_gaps: N runs a Mbp of the ancestor, in both genomes."""
    rng = np.random.default_rng(seed)
    size = length // chromosomes
    query, reference, qmask, rmask, origins = [], [], [], [], ([], [])
    for _ in range(chromosomes):
        ancestor = heavy_ancestor(rng, size)
        gaps = np.zeros(size + 1, dtype=bool)  # by origin: N runs both genomes inherit (a region open in both)
        for at in rng.choice(size - 5000, size=int(round(size * shared_gaps / 1e6)), replace=False):
            gaps[1 + at:1 + at + int(rng.integers(100, 5000))] = True
        for side, (out, masks, rate) in enumerate(((query, qmask, rates[0]), (reference, rmask, rates[1]))):
            made = heavy_descendant(rng, ancestor, rate, truth or shared_gaps > 0, indel_mean, n_gaps)
            if shared_gaps:
                made[0][gaps[np.abs(made[2])] & (made[2] != NO_ORIGIN)] = N_CODE
            out.append(made[0])
            masks.append(made[1])
            if truth:
                origins[side].append(made[2])
    return (query, reference, qmask, rmask, *origins) if truth else (query, reference, qmask, rmask)


def write_truth(path: str, names: list[str], query_origins: list, reference_origins: list) -> None:
    """The truth of a simulated pair (.npz): each chromosome's origins in both genomes
    (bench/common/truth.py reads it)."""
    arrays = {}
    for name, q, r in zip(names, query_origins, reference_origins):
        arrays[f"query/{name}"], arrays[f"reference/{name}"] = q, r
    np.savez_compressed(path, **arrays)


def write_fasta(path: str, names: list[str], chromosomes: list[np.ndarray], masks: list | None = None) -> None:
    """Write codes as FASTA, 80 columns a line; masked bases in lowercase."""
    letters = np.frombuffer(b"ACGTN", dtype=np.uint8)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as handle:
        for i, (name, codes) in enumerate(zip(names, chromosomes)):
            handle.write(f">{name}\n".encode())
            text = letters[codes]
            if masks is not None:
                text = np.where(masks[i], text | 0x20, text)
            text = text.tobytes()
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
    parser.add_argument("--model", choices=("young", "heavy"), default="young")
    parser.add_argument("--out", default="bench/out/sim", help="output prefix")
    parser.add_argument("--rates", type=float, nargs=2, default=(0.02, 0.10), metavar=("QUERY", "REFERENCE"),
                        help="heavy model: each genome's substitution rate from the ancestor (default 0.02 0.10; "
                        "0 0.02 makes a pair 2 %% diverged)")
    parser.add_argument("--truth", action="store_true", help="heavy model: also <out>_truth.npz, which base "
                        "descends from which ancestral base in both genomes (bench/score_alignments.py reads it)")
    parser.add_argument("--indel-mean", type=float, default=1.0, help="heavy model: the indels' mean length "
                        "(default 1: single bases; over 1, geometric lengths of that mean)")
    parser.add_argument("--n-gaps", type=float, help="heavy model: N runs a Mbp of each genome, half of them "
                        "unsized (100 N for 100-5,000 bases; default: one a 5 Mbp, sized)")
    parser.add_argument("--shared-gaps", type=float, default=0, help="heavy model: N runs a Mbp of the ancestor, "
                        "100-5,000 N that both genomes inherit")
    args = parser.parse_args()
    names = [f"chr{i + 1}" for i in range(args.chromosomes)]
    if args.model == "heavy":
        made = heavy_pair(int(args.length), args.chromosomes, args.seed, args.truth, tuple(args.rates),
                          args.indel_mean, args.n_gaps, args.shared_gaps)
        first, second, first_mask, second_mask = made[:4]
        write_fasta(f"{args.out}_a.fa", names, first, first_mask)
        write_fasta(f"{args.out}_b.fa", names, second, second_mask)
        if args.truth:
            write_truth(f"{args.out}_truth.npz", names, *made[4:])
        return
    first, second = simulate_pair(int(args.length), args.chromosomes, args.seed, args.subst,
                                  args.repeat_divergence, args.repeat_fraction)
    write_fasta(f"{args.out}_a.fa", names, first)
    write_fasta(f"{args.out}_b.fa", names, second)


if __name__ == "__main__":
    main()
