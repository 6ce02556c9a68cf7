"""Human-sized simulated genome pairs, built on all cores in a minute or two (a benchmark's input, not
a test's):

- `close`: two 3 Gbp genomes of 24 chromosomes (human-like sizes) from one ancestor with 30 %
  interspersed repeats of 60 families shared by every chromosome (copies 2-30 % diverged from their
  consensus, half reverse-complemented) and microsatellites; the genomes are 1 % and 2 % diverged
  from it (indels at a tenth of that), with inversions within chromosomes and segments moved between
  chromosomes.
- `distant`: a human-vs-mouse-like pair: 3.0 Gbp in 24 chromosomes against 2.7 Gbp in 21. The
  ancestor is cut into about 300 synteny blocks; the second genome takes them shuffled across its
  chromosomes, a third of them inverted. Inside a block's conserved core (60 % of it) the genomes are
  10 % diverged, elsewhere 35 %; each genome has repeat families of its own.

    python bench/human_sized.py --model close --out /tmp/hs/close [--scale 1] [--processes 16]

writes OUT_a.fa and OUT_b.fa (--scale 0.01: a 30 Mbp rehearsal of the same shape).
"""
from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from simulate import heavy_ancestor, indels, invert, repeat_families, substitute

# human chromosome sizes (Mbp), 1-22, X, Y; mouse's 1-19, X, Y
HUMAN = [248, 242, 198, 190, 181, 171, 159, 145, 138, 134, 135, 133, 114, 107, 102, 90, 83, 80, 59, 64, 47, 51,
         156, 57]
MOUSE = [195, 182, 160, 157, 152, 150, 145, 130, 125, 131, 122, 120, 121, 125, 104, 98, 95, 91, 61, 171, 91]
LETTERS = np.frombuffer(b"ACGTN", dtype=np.uint8)


def sizes(table: list[int], total: float) -> list[int]:
    """Chromosome sizes in the table's proportions, `total` bases in all."""
    table = np.asarray(table, dtype=np.float64)
    return [int(v) for v in table / table.sum() * total]


def fasta_text(name: str, codes: np.ndarray) -> bytes:
    """A FASTA record, 80 columns a line, built without a Python call a line."""
    text = LETTERS[codes]
    full = text.size // 80 * 80
    lines = np.empty((full // 80, 81), dtype=np.uint8)
    lines[:, :80] = text[:full].reshape(-1, 80)
    lines[:, 80] = ord("\n")
    tail = text[full:].tobytes() + (b"\n" if text.size > full else b"")
    return f">{name}\n".encode() + lines.tobytes() + tail


def repeats(seed: int, length: int) -> np.ndarray:
    """A chromosome's ancestor: 30 % copies of the genome's shared families, 2-30 % diverged."""
    units = repeat_families(np.random.default_rng(seed // 1000), 60)  # the same families on every chromosome
    return heavy_ancestor(np.random.default_rng(seed), length, fraction=0.30, micro=0.01, units=units,
                          divergence=(0.02, 0.30))


def descend(rng, seq: np.ndarray, rate: float) -> np.ndarray:
    """Substitutions, indels at a tenth of them, inversions of 1-50 kbp (one every 5 Mbp)."""
    return invert(rng, indels(rng, substitute(rng, seq, rate), rate / 10), max(1, seq.size // 5_000_000))


def close_chromosome(job: tuple) -> tuple:
    seed, length, folder, index = job
    ancestor = repeats(seed, length)
    rng = np.random.default_rng(seed + 1)
    out = []
    for side, rate in (("a", 0.01), ("b", 0.02)):
        path = os.path.join(folder, f"{side}{index:02d}.npy")
        np.save(path, descend(rng, ancestor, rate))
        out.append(path)
    return tuple(out)


def distant_block(job: tuple) -> tuple:
    """One synteny block of the distant model, and the stretch after it in each genome (its own
    repeats and sequence; shorter in the second genome, which is 0.9 the first's size)."""
    seed, length, betweens, folder, index = job
    rng = np.random.default_rng(seed)
    units = [repeat_families(np.random.default_rng(seed // 1000 + side), 40) for side in (1, 2)]
    block = rng.integers(0, 4, length, dtype=np.uint8)
    core = slice(length // 5, length - length // 5)  # the conserved core: 60 % of the block
    a, b = substitute(rng, block, 0.05), substitute(rng, block, 0.05)
    for seq in (a, b):
        outer = np.r_[0:core.start, core.stop:length]
        seq[outer] = substitute(rng, seq[outer], 0.17)
    made = []
    for seq, side, fam, between in ((a, "a", units[0], betweens[0]), (b, "b", units[1], betweens[1])):
        lineage = heavy_ancestor(rng, between, fraction=0.3, micro=0.01, units=fam, divergence=(0.02, 0.30))
        seq = indels(rng, seq, 0.01)
        path = os.path.join(folder, f"{side}block{index:04d}.npy")
        np.save(path, np.concatenate((seq, lineage)))
        made.append(path)
    return tuple(made)


def write_genome(path: str, names: list[str], pieces: list[list[str]], moves: list | None, processes: int) -> None:
    """A genome's FASTA from its chromosomes' pieces (.npy files, joined in order)."""
    with ProcessPoolExecutor(processes) as pool:
        texts = pool.map(_record_text, names, pieces, moves or [None] * len(names))
        with open(path, "wb") as handle:
            for text in texts:
                handle.write(text)


def _record_text(name: str, files: list[str], move) -> bytes:
    codes = np.concatenate([np.load(f, mmap_mode="r") for f in files])
    if move is not None:  # a segment of another chromosome moved into this one (a translocation)
        source, at, size, to = move
        piece = np.load(source, mmap_mode="r")[at:at + size]
        codes = np.concatenate((codes[:to], piece, codes[to:]))
    return fasta_text(name, codes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("close", "distant"), default="close")
    parser.add_argument("--out", required=True, help="output prefix: PREFIX_a.fa, PREFIX_b.fa")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the human-sized genomes")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--processes", type=int, default=os.cpu_count())
    args = parser.parse_args()
    start = time.perf_counter()
    folder = args.out + "_parts"
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    with ProcessPoolExecutor(args.processes) as pool:
        if args.model == "close":
            lengths = sizes(HUMAN, 3.0e9 * args.scale)
            jobs = [(args.seed * 1000 + i, n, folder, i) for i, n in enumerate(lengths)]
            made = list(pool.map(close_chromosome, jobs))
            a = [[m[0]] for m in made]
            b = [[m[1]] for m in made]
            names_a = names_b = [f"chr{i + 1}" for i in range(len(lengths))]
            # in b, a segment of 0.1-2 Mbp of each of 8 chromosomes lies in another one, not its own
            moves = [None] * len(b)
            for src in rng.choice(len(b), 8, replace=False):
                dst = int((src + 1 + rng.integers(len(b) - 1)) % len(b))
                size = int(rng.integers(100_000, 2_000_000) * max(args.scale, 0.01))
                moves[dst] = (b[src][0], int(rng.integers(0, lengths[src] // 2)), size,
                              int(rng.integers(0, lengths[dst] // 2)))
            moves_a = None
        else:
            blocks = 300
            total = 3.0e9 * args.scale
            weights = 0.2 + rng.random(blocks)  # blocks of 0.2-1.2 times the mean size
            spans = (weights / weights.sum() * total).astype(np.int64)
            # a block is 45 % of its span in both genomes; the stretch after it the rest in the first, and
            # in the second what makes it 0.9 the first's size (2.7 Gbp against 3.0)
            jobs = [(args.seed * 1000 + i, int(s * 0.45), (int(s * 0.55), int(s * 0.45)), folder, i)
                    for i, s in enumerate(spans)]
            made = list(pool.map(distant_block, jobs))
            order_a = np.arange(blocks)
            order_b = rng.permutation(blocks)
            a = [list(x) for x in np.array_split([made[i][0] for i in order_a], 24)]
            b = [list(x) for x in np.array_split([made[i][1] for i in order_b], 21)]
            names_a = [f"chr{i + 1}" for i in range(24)]
            names_b = [f"chr{i + 1}" for i in range(21)]
            for files in b:  # a third of the blocks inverted: their codes reverse-complemented in place
                for f in files:
                    if rng.random() < 1 / 3:
                        codes = np.load(f)
                        np.save(f, 3 - codes[::-1])
            moves = moves_a = None
    print(f"{args.model}: chromosomes simulated in {time.perf_counter() - start:.1f} s", flush=True)
    write_genome(args.out + "_a.fa", names_a, a, moves_a, args.processes)
    write_genome(args.out + "_b.fa", names_b, b, moves, args.processes)
    for side in ("a", "b"):
        print(f"{args.out}_{side}.fa: {os.path.getsize(args.out + f'_{side}.fa') / 1e9:.2f} GB")
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))
    os.rmdir(folder)
    print(f"written in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
