"""Seed 001's workload: MEMs of 25,249 long reads (mean 7 kb, 10-15 % errors) against both strands of a
human-sized genome (3.1 Gbp).

    python bench/long_reads.py --out /tmp/lr/lr                       # make the genome and the reads
    python bench/long_reads.py --out /tmp/lr/lr --run --backend cupy  # mems -l 20, FASTA to text, timed
    python bench/long_reads.py --out /tmp/lr/lr --check               # a 1 % sample against one chromosome: mummer

The genome is simulated (bench/simulate.py's heavy model, one record a chromosome, GRCh37's 24 sizes):
interspersed copies of 60 repeat families shared by all chromosomes (35 % of the bases, copies 0-25 %
diverged), 1.5 % microsatellites and an N gap a chromosome. Reads come from either strand, their
lengths log-normal (mean about 7 kb, 500 bases to 50 kb), each with its own error rate between 10 and
15 % (60 % substitutions, 20 % insertions, 20 % deletions). --run times `mems -l L` of all reads
against the whole genome (the reference's words do not fit one GPU at once: it is matched a tile of
chromosomes at a time) and reports wall time, host peak and the MEM count. --check takes every 100th
read and compares `mems` against the whole genome, its rows on one chromosome, and `mems` against that
chromosome alone, with `mummer -maxmatch -l L -b -c` against that chromosome (sorted under each header).
Prints tables.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import run, table  # noqa: E402
from probes import sorted_lines  # noqa: E402
from simulate import N_CODE, heavy_ancestor, repeat_families, write_fasta  # noqa: E402
from simulate_reads import read_errors  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# GRCh37's chromosome lengths, Mbp: chr1 .. chr22, chrX, chrY
SIZES = [249, 243, 198, 191, 181, 171, 159, 146, 141, 136, 135, 134, 115, 107, 103, 90, 81, 78, 59, 63, 48, 51,
         155, 59]
NAMES = [f"chr{i}" for i in range(1, 23)] + ["chrX", "chrY"]


def chromosome(job: tuple) -> str:
    """Write one chromosome's FASTA (a worker process): (seed, index, length, out) -> its path."""
    seed, index, length, out, micro, divergence, fraction = job
    units = repeat_families(np.random.default_rng(seed))  # the same families on every chromosome
    rng = np.random.default_rng([seed, index])
    seq = heavy_ancestor(rng, length, fraction=fraction, micro=micro, units=units, divergence=divergence)
    gap = min(int(rng.integers(100_000, 1_000_000)), length // 10)  # an assembly gap (a centromere's)
    at = int(rng.integers(0, length - gap))
    seq[at:at + gap] = N_CODE
    path = f"{out}_{NAMES[index]}.fa"
    write_fasta(path, [NAMES[index]], [seq])
    return path


def make(out: str, scale: float, reads: int, seed: int, workers: int, micro: float, divergence: tuple | None,
         fraction: float) -> None:
    """<out>_genome.fa (and a file a chromosome) and <out>_reads.fa."""
    jobs = [(seed, i, int(size * 1_000_000 * scale), out, micro, divergence, fraction) for i, size in enumerate(SIZES)]
    with ProcessPoolExecutor(workers) as pool:  # the longest first
        made = dict(zip(sorted(range(len(jobs)), key=lambda i: -jobs[i][2]),
                        pool.map(chromosome, sorted(jobs, key=lambda j: -j[2]))))
    paths = [made[i] for i in range(len(jobs))]
    with open(f"{out}_genome.fa", "wb") as handle:
        for path in paths:
            with open(path, "rb") as part:
                while block := part.read(1 << 26):
                    handle.write(block)
    rng = np.random.default_rng(seed + 1)
    lengths = np.clip(rng.lognormal(np.log(6000), 0.55, reads), 500, 50_000).astype(np.int64)
    sizes = np.array([int(s * 1_000_000 * scale) for s in SIZES])
    picks = rng.choice(len(SIZES), reads, p=sizes / sizes.sum())
    seqs = [None] * reads
    for c, path in enumerate(paths):  # one chromosome's codes at a time
        codes = chromosome_codes(path)
        for i in np.flatnonzero(picks == c).tolist():
            while True:
                at = int(rng.integers(0, codes.size - lengths[i]))
                piece = codes[at:at + lengths[i]]
                if not (piece == N_CODE).any():
                    break
            if rng.random() < 0.5:
                piece = 3 - piece[::-1]
            seqs[i] = read_errors(rng, piece, float(rng.uniform(0.10, 0.15)))
    write_fasta(f"{out}_reads.fa", [f"read{i + 1}" for i in range(reads)], seqs)


def chromosome_codes(path: str) -> np.ndarray:
    """A one-record FASTA's codes (ACGT 0-3, N 4)."""
    with open(path, "rb") as handle:
        handle.readline()
        text = np.frombuffer(handle.read().replace(b"\n", b""), dtype=np.uint8)
    lookup = np.full(256, N_CODE, dtype=np.uint8)
    for code, letter in enumerate(b"ACGT"):
        lookup[letter] = lookup[letter | 0x20] = code
    return lookup[text]


def mems(query: str, reference: str, length: int, backend: str, out: str) -> dict:
    log = out + ".log"
    result = run([sys.executable, "-m", "gpu_kernels", "mems", query, reference, "-l", str(length), "--backend",
                  backend, "-v", "-o", out], cwd=ROOT, err=log)
    if result["rc"]:
        raise SystemExit(f"mems --backend {backend} failed: see {log}")
    with open(out, "rb") as handle:
        lines = sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 24), b""))
    with open(out, "rb") as handle:
        headers = sum(block.count(b">") for block in iter(lambda: handle.read(1 << 24), b""))
    result["mems"] = lines - headers
    return result


def sample(out: str, every: int) -> str:
    """Every `every`-th read of <out>_reads.fa, as <out>_sample.fa."""
    path = f"{out}_sample.fa"
    with open(f"{out}_reads.fa", "rb") as reads, open(path, "wb") as handle:
        keep, index = False, -1
        for line in reads:
            if line.startswith(b">"):
                index += 1
                keep = index % every == 0
            if keep:
                handle.write(line)
    return path


def on_record(text_path: str, name: str) -> list[bytes]:
    """A MUMmer text against several records, reduced to the rows on one (the name column dropped),
    sorted under each header."""
    kept = []
    with open(text_path, "rb") as handle:
        for line in handle:
            if line.startswith(b">"):
                kept.append(line)
            elif line.split(None, 1)[0] == name.encode():
                kept.append(line.split(None, 1)[1])
    folder = text_path + ".on"
    with open(folder, "wb") as handle:
        handle.writelines(kept)
    return sorted_lines(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/out/long_reads", help="prefix of the files")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the chromosomes' sizes")
    parser.add_argument("--reads", type=int, default=25_249)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--microsatellites", type=float, default=0.0,
                        help="fraction of the genome in microsatellites (a read's poly-A run of 300 bases has an "
                             "exact 20-mer against every poly-A run of the genome, tens of millions of MEMs)")
    parser.add_argument("--repeat-divergence", type=float, nargs=2, default=(0.08, 0.30), metavar=("LOW", "HIGH"),
                        help="repeat copies diverged uniformly between these from their family (human's Alu and L1 "
                             "copies mostly 8-30 %%)")
    parser.add_argument("--young-repeats", action="store_true",
                        help="copies diverged as bench/simulate.py's heavy model's (0-25 %%, most old, some young: "
                             "a read in a young copy matches thousands of others exactly), not --repeat-divergence")
    parser.add_argument("--repeat-fraction", type=float, default=0.35, help="fraction of the genome in repeat copies")
    parser.add_argument("--length", type=int, default=20, help="shortest MEM")
    parser.add_argument("--run", action="store_true")
    parser.add_argument("--backend", default="cupy")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--chromosome", default="chr21", help="the chromosome of --check")
    args = parser.parse_args()
    genome, reads = f"{args.out}_genome.fa", f"{args.out}_reads.fa"
    if not (os.path.exists(genome) and os.path.exists(reads)):
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        make(args.out, args.scale, args.reads, args.seed, args.workers, args.microsatellites,
             None if args.young_repeats else tuple(args.repeat_divergence), args.repeat_fraction)
        print(f"made {genome} ({os.path.getsize(genome) / 1e9:.2f} GB) and {reads} ({os.path.getsize(reads) / 1e6:.0f} MB)")
    if args.run:
        r = mems(reads, genome, args.length, args.backend, f"{args.out}_mems.{args.backend}.txt")
        print(table(["reads x genome", "backend", "MEMs", "FASTA -> text s", "CPU s", "host peak GB"],
                    [[f"{args.reads:,} x {os.path.getsize(genome) / 1e9:.2f} GB", args.backend, f"{r['mems']:,}",
                      f"{r['wall']:.1f}", f"{r['cpu']:.0f}", f"{r['peak_mb'] / 1024:.1f}"]]), flush=True)
    if args.check:
        few = sample(args.out, 100)
        one = f"{args.out}_{args.chromosome}.fa"
        whole = mems(few, genome, args.length, args.backend, f"{args.out}_sample_genome.txt")
        alone = mems(few, one, args.length, args.backend, f"{args.out}_sample_{args.chromosome}.txt")
        with open(f"{args.out}_sample_mummer.txt", "wb") as handle:
            subprocess.run(["mummer", "-maxmatch", "-l", str(args.length), "-b", "-c", one, few], stdout=handle,
                           stderr=subprocess.DEVNULL, check=True)
        theirs = sorted_lines(f"{args.out}_sample_mummer.txt")
        rows = [["ours, whole genome (its rows on " + args.chromosome + ")", f"{whole['wall']:.1f}",
                 "identical" if on_record(f"{args.out}_sample_genome.txt", args.chromosome) == theirs else "DIFFERENT"],
                [f"ours, {args.chromosome} alone", f"{alone['wall']:.1f}",
                 "identical" if sorted_lines(f"{args.out}_sample_{args.chromosome}.txt") == theirs else "DIFFERENT"]]
        print(f"every 100th read ({os.path.basename(few)}) against {args.chromosome}: mummer -maxmatch -l {args.length} "
              f"-b -c, {sum(1 for x in theirs if not x.startswith(b'>')):,} rows")
        print(table(["mems", "wall s", "against mummer"], rows))


if __name__ == "__main__":
    main()
