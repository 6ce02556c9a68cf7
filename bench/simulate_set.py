"""A set of related bacterial-like genomes from a random tree, for the many-genomes benchmarks.

A root chromosome (a few repeat families, rRNA-operon-like copies) evolves down a random binary
tree: each branch adds substitutions at its length, small indels at a tenth of that, inversions and
moved segments, and gains and losses of segments, so genome sizes drift apart (2-6 Mbp by
default). Plasmids (two at the root) evolve alike and are lost and gained along branches, and some
genomes are written as draft assemblies (contigs cut at random, half of them reverse-complemented). The
deepest split sets the most distant pairs (about 80 % ANI by default), the shallowest reach
99.9 %. Writes <out>/<name>.fa, <out>/genomes.yaml (the workflow's `genomes:`) and <out>/tree.nwk.

    python bench/simulate_set.py --genomes 100 --out /tmp/set100
"""
from __future__ import annotations

import argparse
import os

import numpy as np

from simulate import indels, invert, substitute, write_fasta


def random_tree(rng: np.random.Generator, leaves: int, height: float) -> dict:
    """A binary tree of `leaves` leaves at height 0: a node's children sit at its height times a
    factor drawn from 0.05 to 0.85, so pair distances spread from the root's to a few thousandths of it."""
    if leaves == 1:
        return {"height": 0.0, "children": []}
    left = int(rng.integers(1, leaves))
    children = []
    for count in (left, leaves - left):
        child = random_tree(rng, count, height * float(rng.uniform(0.05, 0.85)) if count > 1 else 0.0)
        child["branch"] = height - child["height"]
        children.append(child)
    return {"height": height, "children": children}


def segment(rng: np.random.Generator, seq: np.ndarray, low: int, high: int) -> tuple[int, int]:
    size = int(rng.integers(low, high))
    at = int(rng.integers(0, max(1, seq.size - size)))
    return at, min(seq.size, at + size)


def evolve(rng: np.random.Generator, seq: np.ndarray, branch: float, sizes: tuple) -> np.ndarray:
    """A branch's changes: substitutions (the branch length a base), indels at a tenth of that,
    inversions and moved segments (about 60 and 30 a unit of branch), and segments of 5-50 kb lost or
    gained towards a size drawn around the parent's (spread 3 x the branch), within sizes."""
    seq = indels(rng, substitute(rng, seq, branch), branch / 10)
    seq = invert(rng, seq, int(rng.poisson(60 * branch)))
    for _ in range(int(rng.poisson(30 * branch))):
        a, b = segment(rng, seq, 5000, 100000)
        piece, rest = seq[a:b], np.concatenate((seq[:a], seq[b:]))
        at = int(rng.integers(0, rest.size + 1))
        seq = np.concatenate((rest[:at], piece, rest[at:]))
    target = int(np.clip(seq.size * (1 + rng.normal(0, 3 * branch)), *sizes))
    while seq.size > target + 5000:
        a, b = segment(rng, seq, 5000, min(50000, seq.size - target))
        seq = np.concatenate((seq[:a], seq[b:]))
    while seq.size < target - 5000:
        size = int(rng.integers(5000, min(50000, target - seq.size) + 1))
        at = int(rng.integers(0, seq.size))
        seq = np.concatenate((seq[:at], rng.integers(0, 4, size, dtype=np.uint8), seq[at:]))
    return seq


def root_genome(rng: np.random.Generator, length: int) -> np.ndarray:
    """Random sequence with a few repeat families (IS elements, rRNA operons): 1-7 copies each."""
    seq = rng.integers(0, 4, length, dtype=np.uint8)
    for _ in range(8):
        unit = rng.integers(0, 4, int(rng.integers(1000, 6000)), dtype=np.uint8)
        for _ in range(int(rng.integers(1, 8))):
            copy = substitute(rng, unit, 0.01)
            copy = copy if rng.random() < 0.5 else 3 - copy[::-1]
            at = int(rng.integers(0, length - copy.size))
            seq[at:at + copy.size] = copy
    return seq


def newick(node: dict, names: iter) -> str:
    if not node["children"]:
        text = next(names)
    else:
        text = "(" + ",".join(newick(c, names) for c in node["children"]) + ")"
    return text + (f":{node['branch']:.6f}" if "branch" in node else "")


def leaves_of(rng, node: dict, genome: list, sizes: tuple, out: list) -> None:
    """Each leaf's sequences (its chromosome, then its plasmids), in the tree's leaf order (depth
    first). A branch evolves each; a plasmid is lost, and a new one gained, with a chance of 3 x the branch."""
    if not node["children"]:
        out.append(genome)
        return
    for child in node["children"]:
        branch = child["branch"]
        chromosome = evolve(rng, genome[0], branch, sizes)
        plasmids = [substitute(rng, p, branch) for p in genome[1:] if rng.random() >= min(0.5, 3 * branch)]
        if rng.random() < min(0.5, 3 * branch):
            plasmids.append(rng.integers(0, 4, int(rng.integers(20000, 150000)), dtype=np.uint8))
        leaves_of(rng, child, [chromosome, *plasmids], sizes, out)


def contigs(rng: np.random.Generator, seq: np.ndarray, count: int) -> list[np.ndarray]:
    """A draft: the chromosome cut at count - 1 random places, half of the pieces reverse-complemented."""
    cuts = np.sort(rng.choice(np.arange(1000, seq.size - 1000), count - 1, replace=False))
    pieces = np.split(seq, cuts)
    return [p if rng.random() < 0.5 else 3 - p[::-1] for p in pieces]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genomes", type=int, default=10)
    parser.add_argument("--length", type=float, default=4e6, help="the root chromosome's bases")
    parser.add_argument("--sizes", type=float, nargs=2, default=(2e6, 6e6), help="smallest and largest chromosome")
    parser.add_argument("--height", type=float, default=0.11,
                        help="the root's height in substitutions a base (pairs across it: about 80 %% ANI)")
    parser.add_argument("--draft", type=float, default=0.3, help="fraction of genomes written as contigs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    print(write_set(args.genomes, args.out, int(args.length), (int(args.sizes[0]), int(args.sizes[1])), args.height,
                    args.draft, args.seed))


def write_set(count: int, out: str, length: int = 4_000_000, sizes: tuple = (2_000_000, 6_000_000),
              height: float = 0.11, draft: float = 0.3, seed: int = 1) -> str:
    """The set written into out (module docstring); returns a line that sums it up."""
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, count, height)
    genomes = []
    root = [root_genome(rng, length)]
    root += [rng.integers(0, 4, int(rng.integers(20000, 150000)), dtype=np.uint8) for _ in range(2)]
    leaves_of(rng, tree, root, sizes, genomes)
    names = [f"g{i + 1:04d}" for i in range(count)]
    os.makedirs(out, exist_ok=True)
    lines = ["genomes:"]
    for name, (chromosome, *plasmids) in zip(names, genomes):
        records, seqs = [], []
        if rng.random() < draft:
            pieces = contigs(rng, chromosome, int(rng.integers(10, 120)))
            records += [f"{name}_ctg{i + 1}" for i in range(len(pieces))]
            seqs += pieces
        else:
            records.append(f"{name}_chromosome")
            seqs.append(chromosome)
        records += [f"{name}_plasmid{number + 1}" for number in range(len(plasmids))]
        seqs += plasmids
        path = os.path.join(out, f"{name}.fa")
        write_fasta(path, records, seqs)
        lines.append(f"  {name}: {os.path.abspath(path)}")
    with open(os.path.join(out, "genomes.yaml"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "tree.nwk"), "w") as handle:
        handle.write(newick(tree, iter(names)) + ";\n")
    total = sum(seq.size for genome in genomes for seq in genome)
    return f"{count} genomes, {total / 1e6:.1f} Mbp, in {out}"


if __name__ == "__main__":
    main()
