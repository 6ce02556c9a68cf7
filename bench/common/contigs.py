"""A fragmented genome pair: two assemblies of thousands of contigs cut from one simulated genome."""
from __future__ import annotations

import numpy as np

LETTERS = np.frombuffer(b"ACGT", dtype=np.uint8)


def fragmented_pair(path_a: str, path_b: str, contigs: int = 2000, length: int = 1_000_000, seed: int = 3) -> None:
    """Write two FASTA files of `contigs` records each; B is A with 2 % substitutions, cut elsewhere."""
    rng = np.random.default_rng(seed)
    genome = rng.integers(0, 4, length, dtype=np.uint8)
    other = genome.copy()
    hit = rng.random(length) < 0.02
    other[hit] = (other[hit] + 1) % 4
    for path, seq, tag in ((path_a, genome, "a"), (path_b, other, "b")):
        # every contig at least 100 bp: random cuts in the spare length, then 100 bp added per contig
        cuts = np.sort(rng.integers(0, length - 100 * contigs, contigs - 1)) + 100 * np.arange(1, contigs)
        with open(path, "w") as handle:
            for i, (s, e) in enumerate(zip(np.r_[0, cuts], np.r_[cuts, length])):
                handle.write(f">{tag}_ctg{i + 1}\n{LETTERS[seq[s:e]].tobytes().decode()}\n")
