"""A real genome pair with a truth, from a whole-genome multiple alignment (MAF): two of its species'
sequences and, for every base, which base of the other species the MAF aligns it with. The pair then
scores like a simulated one (score_alignments.py, assembly_gaps.py --pairs), on real divergence,
repeats and indels. Runs of N are drawn into both genomes as simulate.py draws assembly gaps (half of
them unsized: 100 N in place of 100 to 5,000 bases), since the MAF's sequences hold none.

    apt-get install maffilter-examples    # Debian: human chromosome 22 with chimpanzee and gorilla
    python bench/maf_pair.py /usr/share/doc/maffilter/examples/Gorilla/*.maf.gz --query Ptro \
        --reference Hsap --n-gaps 5 --out /tmp/hs_pt

Writes OUT_a.fa (the query), OUT_b.fa (the reference) and OUT_truth.npz. Each reference record
(a MAF source of the reference species) is one record of both genomes: the reference's blocks in its
own order, and the query's pieces aligned to it in the query's own order (its rearrangements and
strands as the MAF has them). A block is read where it holds both species (the first row of each);
its bases facing a gap of the other are kept, with no partner; the stretches between blocks, which the
MAF does not hold, are left out of both."""
from __future__ import annotations

import argparse
import gzip
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gpu_kernels.encode import COMPLEMENT, ENCODE  # noqa: E402  (simulate.py's codes: A C G T N = 0 1 2 3 4)
from simulate import N_CODE, NO_ORIGIN, assembly_gaps, write_fasta, write_truth  # noqa: E402


def blocks(path: str, query: str, reference: str):
    """Each MAF block holding both species: (reference row, query row), a row (source, start, strand,
    source size, text), the first row of each species in the block."""
    opener = gzip.open if path.endswith(".gz") else open
    rows: dict = {}
    with opener(path, "rt") as handle:
        for line in handle:
            if line.startswith("a"):
                rows = {}
            elif line.startswith("s "):
                _, src, start, _, strand, size, text = line.split()
                species = src.split(".", 1)[0]
                if species in (query, reference) and species not in rows:
                    rows[species] = (src, int(start), strand, int(size), text)
                    if len(rows) == 2:
                        yield rows[reference], rows[query]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("maf")
    parser.add_argument("--query", required=True, help="the query species: a MAF source's name before its first dot")
    parser.add_argument("--reference", required=True)
    parser.add_argument("--n-gaps", type=float, default=5.0, help="N runs a Mbp drawn into each genome")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True, help="output prefix")
    args = parser.parse_args()

    pieces = defaultdict(lambda: ([], []))  # reference source -> (reference pieces, query pieces)
    column = 0
    for ref, qry in blocks(args.maf, args.query, args.reference):
        rtext, qtext = np.frombuffer(ref[4].encode(), np.uint8), np.frombuffer(qry[4].encode(), np.uint8)
        rbase, qbase = rtext != ord("-"), qtext != ord("-")
        ids = np.where(rbase & qbase, column + 1 + np.arange(rtext.size), NO_ORIGIN)
        column += rtext.size
        for side, (src, start, strand, size, _), text, base in ((0, ref, rtext, rbase), (1, qry, qtext, qbase)):
            codes, origin = ENCODE[text[base]], ids[base]
            if strand == "-":  # to the source's forward strand, as simulate.flipped marks it
                codes, origin = COMPLEMENT[codes[::-1]], -origin[::-1]
                start = size - start - codes.size
            pieces[ref[0]][side].append((src, start, codes, origin))
    if not pieces:
        sys.exit(f"{args.maf}: no block holds both {args.query} and {args.reference}")

    rng = np.random.default_rng(args.seed)
    names, codes, origins = [], ([], []), ([], [])  # each side's records: reference 0, query 1
    for src in sorted(pieces, key=lambda s: -sum(p[2].size for p in pieces[s][0])):
        names.append(src.split(".", 1)[1] if "." in src else src)
        for side in (1, 0):  # the query's N runs drawn first
            ordered = sorted(pieces[src][side], key=lambda p: (p[0], p[1]))
            made = assembly_gaps(rng, np.concatenate([p[2] for p in ordered]), np.concatenate([p[3] for p in ordered]),
                                 int(round(sum(p[2].size for p in ordered) * args.n_gaps / 1e6)))
            codes[side].append(made[0])
            origins[side].append(made[1])
    write_fasta(f"{args.out}_a.fa", names, codes[1])
    write_fasta(f"{args.out}_b.fa", names, codes[0])
    write_truth(f"{args.out}_truth.npz", names, origins[1], origins[0])
    for name, r, q, qo in zip(names, codes[0], codes[1], origins[1]):
        print(f"{name}: query {q.size:,} bp ({int((q == N_CODE).sum()):,} N), reference {r.size:,} bp "
              f"({int((r == N_CODE).sum()):,} N), {int((qo != NO_ORIGIN).sum()):,} aligned pairs in the truth")


if __name__ == "__main__":
    main()
