"""Related sequence pairs for property tests: an ancestor, and two descendants of it."""
from __future__ import annotations

import random

BASES = "ACGT"


def mutate(seq: str, rng: random.Random, subst: float, indel: float) -> str:
    """Substitutions and 1-3 base indels at the given per-base rates."""
    out = []
    for ch in seq:
        roll = rng.random()
        if roll < indel / 2:
            continue  # deletion
        if roll < indel:
            out.append("".join(rng.choice(BASES) for _ in range(rng.randint(1, 3))))
        out.append(rng.choice(BASES) if rng.random() < subst else ch)
    return "".join(out)


def invert(seq: str, rng: random.Random) -> str:
    """Reverse-complement one stretch."""
    if len(seq) < 20:
        return seq
    a = rng.randrange(len(seq) - 10)
    b = min(len(seq), a + rng.randint(10, len(seq) // 2 + 10))
    comp = {"A": "T", "C": "G", "G": "C", "T": "A"}
    return seq[:a] + "".join(comp.get(c, c) for c in reversed(seq[a:b])) + seq[b:]


def decorate(seq: str, rng: random.Random, n_runs: int, lower: int) -> str:
    """Runs of N and lowercase stretches."""
    chars = list(seq)
    for _ in range(n_runs):
        if chars:
            a = rng.randrange(len(chars))
            for i in range(a, min(len(chars), a + rng.randint(1, 12))):
                chars[i] = rng.choice("NNNNRYn")
    for _ in range(lower):
        if chars:
            a = rng.randrange(len(chars))
            for i in range(a, min(len(chars), a + rng.randint(5, 80))):
                chars[i] = chars[i].lower()
    return "".join(chars)


def tandem(seq: str, rng: random.Random) -> str:
    """Insert a tandem repeat of a short unit."""
    unit = "".join(rng.choice(BASES) for _ in range(rng.randint(1, 12)))
    at = rng.randrange(len(seq) + 1)
    return seq[:at] + unit * rng.randint(3, 30) + seq[at:]


def related_pair(seed: int, length: int, records: int, k: int):
    """(query records, reference records) drawn from one ancestor; every record is >= k long."""
    rng = random.Random(seed)
    ancestor = "".join(rng.choice(BASES) for _ in range(length))
    if rng.random() < 0.5:
        ancestor = tandem(ancestor, rng)

    def descendant() -> list[str]:
        seq = mutate(ancestor, rng, subst=rng.choice([0.0, 0.02, 0.08, 0.2]), indel=rng.choice([0.0, 0.005, 0.02]))
        if rng.random() < 0.5:
            seq = invert(seq, rng)
        if rng.random() < 0.3:
            seq = tandem(seq, rng)
        seq = decorate(seq, rng, n_runs=rng.randint(0, 3), lower=rng.randint(0, 2))
        cuts = sorted(rng.sample(range(k, max(k + 1, len(seq) - k)), min(records - 1, max(0, len(seq) // k - 2))))
        parts = [seq[a:b] for a, b in zip([0] + cuts, cuts + [len(seq)])]
        parts = [p for p in parts if len(p) >= k and any(c in "ACGTacgt" for c in p)]
        return parts or ["ACGT" * (k // 4 + 1)]

    return descendant(), descendant()


def duplicated_genomes(folder, seed: int) -> tuple:
    """Two genomes of a few records whose segments are duplicated across records on both sides, so
    that a chain of one record pair competes for the backbone with chains of other record pairs."""
    rng = random.Random(seed)
    rand = lambda n: "".join(rng.choice("ACGT") for _ in range(n))  # noqa: E731
    ancestors = [rand(rng.randint(6_000, 14_000)) for _ in range(4)]
    query, reference = [mutate(a, rng, 0.02, 0.002) for a in ancestors], [mutate(a, rng, 0.05, 0.005)
                                                                            for a in ancestors]
    for _ in range(6):  # a piece of one record copied into another, on either side, either strand
        side = rng.choice((query, reference))
        src, dst = rng.randrange(4), rng.randrange(4)
        a = rng.randrange(len(ancestors[src]) - 2_000)
        piece = mutate(ancestors[src][a:a + rng.randint(800, 2_000)], rng, 0.03, 0.003)
        if rng.random() < 0.5:
            piece = piece[::-1].translate(str.maketrans("ACGT", "TGCA"))
        at = rng.randrange(len(side[dst]))
        side[dst] = side[dst][:at] + piece + side[dst][at:]
    paths = []
    for name, records in (("q", query), ("r", reference)):
        path = folder / f"{name}.fa"
        path.write_text("".join(f">{name}{i}\n{seq}\n" for i, seq in enumerate(records)))
        paths.append(str(path))
    return tuple(paths)
