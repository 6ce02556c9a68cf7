"""Where `assemble` (pipeline.assemble) spends its time at a whole genome's scale, on the CPU: a workflow's
compare jobs' parts (a results folder's `bins/*/part`) read once and laid side by side COPIES times as
other record pairs (each copy's records numbered after the last's, its chains all aligned by their part),
then assembled ROUNDS times, each step's time printed, with each backbone call's (the second round over
every chain, the one-to-one choice over the alignments).

    python bench/studies/assemble_scale.py RESULTS/default/A_vs_B A B [--copies 35] [--rounds 2]

RESULTS: a results folder of the workflow (for example the 2 x 150 Mbp pair's, run with --notemp so that
its parts are kept); A and B name its index folders (RESULTS/index/A). 35 copies of that pair's 4 parts
give 2.86 M chains over 5.25 Gbp a side.
"""
from __future__ import annotations

import argparse
import copy
import glob
import logging
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from gpu_kernels import one_to_one, pipeline  # noqa: E402
from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.workflow.parts import read_part  # noqa: E402


def laid_copies(parts: list, qlens: np.ndarray, rlens: np.ndarray, copies: int) -> tuple:
    """The parts laid side by side `copies` times, each copy's records after the last's, every chain a
    candidate (its alignments are its part's: no late chain), with the genomes' lengths."""
    out = []
    for k in range(copies):
        for part in parts:
            laid = copy.copy(part)
            laid.chains, laid.alignments, laid.ranks = dict(part.chains), dict(part.alignments), dict(part.ranks)
            laid.chains["candidate"] = np.ones_like(np.asarray(part.chains["candidate"]))
            for table in (laid.chains, laid.alignments, laid.ranks):
                table["qrec"] = np.asarray(table["qrec"]) + k * qlens.size
                table["rrec"] = np.asarray(table["rrec"]) + k * rlens.size
            out.append(laid)
    return out, np.tile(qlens, copies), np.tile(rlens, copies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pair", help="RESULTS/SET/A_vs_B")
    parser.add_argument("query")
    parser.add_argument("reference")
    parser.add_argument("--copies", type=int, default=35)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    index = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.pair))), "index")
    qlens, rlens = (np.loadtxt(os.path.join(index, name, "chromosomes.tsv"), usecols=1, skiprows=1, dtype=np.int64,
                               delimiter="\t", ndmin=1) for name in (args.query, args.reference))
    folders = sorted(glob.glob(os.path.join(args.pair, "bins", "*[0-9]")))
    parts = [read_part(os.path.join(folder, "part")) for folder in folders]
    if not parts:
        sys.exit(f"error: no parts under {args.pair}/bins (run the workflow with --notemp)")
    laid, qall, rall = laid_copies(parts, qlens, rlens, args.copies)
    backbone = pipeline.backbone

    def timed(*columns, **named):
        started = time.perf_counter()
        kept = backbone(*columns, **named)
        rows = int(np.asarray(columns[0]["chain"]).size)
        print(f"  backbone over {rows} rows: {time.perf_counter() - started:.3f} s")
        return kept

    pipeline.backbone = one_to_one.backbone = timed
    for _ in range(args.rounds):
        started = time.perf_counter()
        pipeline.assemble(laid, qall, rall, Params(), None, ("cigar",), False, False)
        print(f"assembled in {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
