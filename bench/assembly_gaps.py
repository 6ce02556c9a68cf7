"""Alignments across assembly gaps: simulated pairs (bench/simulate.py's heavy model) with runs of N, each
genome's own (half of them unsized: 100 N for 100-5,000 bases) and shared ones (a region open in both
assemblies), scored against the simulator's truth with the N columns left out (score_alignments
--skip-n), ours beside minimap2 -x asm20 -c.

    python bench/assembly_gaps.py [--length 10e6] [--models 0:0.02:20:0 0.01:0.01:5:10 ...]
        [--pairs PREFIX ...] [--ours new=. old=/path/to/old/checkout] [--threads 2] [--rounds 5]

A model is QUERY_RATE:REFERENCE_RATE:OWN_GAPS:SHARED_GAPS (substitutions from the ancestor; N runs a
Mbp). --pairs: prepared pairs beside them (bench/maf_pair.py's real chromosomes). Prints a row per pair
and aligner: one-to-one precision and recall, CPU seconds (each round's), peak memory."""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from common.measure import run, table  # noqa: E402
from common.truth import Truth, score  # noqa: E402

MODELS = ["0:0.02:20:0", "0.01:0.01:5:10", "0.05:0.05:5:5", "0.06:0.06:5:5"]


def compare(prefix: str, label: str, ours: list[str], threads: int, rounds: int, folder: str) -> list[list[str]]:
    """Rows of the table for the pair PREFIX_a.fa (query), PREFIX_b.fa and PREFIX_truth.npz: each aligner's
    one-to-one precision and recall, CPU seconds and peak memory, rounds times in turn."""
    query, reference = prefix + "_a.fa", prefix + "_b.fa"
    truth = Truth(prefix + "_truth.npz", (query, reference))
    commands = []
    for item in ours:
        name, _, checkout = item.partition("=")
        env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
        out = os.path.join(folder, f"{name}.paf")
        # run from the checkout: `python -m` puts the working folder first on the path
        commands.append((name, out, [sys.executable, "-m", "gpu_kernels", "align", query, reference, "-o", out,
                                     "--threads", str(threads), "--backend", "numpy"],
                         dict(env=env, cwd=os.path.abspath(checkout))))
    if shutil.which("minimap2"):
        out = os.path.join(folder, "mm2.paf")
        commands.append(("minimap2 asm20", out, ["minimap2", "-x", "asm20", "-c", "--cs", "-t", str(threads),
                                                 reference, query], dict(out=out)))
    took = {name: [] for name, *_ in commands}
    for _ in range(rounds):
        for name, _, args, how in commands:
            took[name].append(run(args, **how))
    rows = []
    for name, out, *_ in commands:
        got = score(truth, out, "tp:A:P")
        recall = 100 * sum(h.sum() for h in got["held"].values()) / max(1, truth.true_pairs())
        cpu = " / ".join(f"{t['cpu']:.1f}" for t in took[name])
        rows.append([label, name, f"{100 * got['correct'] / max(1, got['aligned']):.2f}", f"{recall:.2f}", cpu,
                     f"{max(t['peak_mb'] for t in took[name]):.0f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", type=float, default=10e6)
    parser.add_argument("--models", nargs="*", default=MODELS)
    parser.add_argument("--pairs", nargs="*", default=[], help="prepared pairs, PREFIX (PREFIX_a.fa, PREFIX_b.fa, "
                        "PREFIX_truth.npz: maf_pair.py's real ones), beside the models' simulated ones")
    parser.add_argument("--ours", nargs="+", default=["ours=" + ROOT], help="LABEL=CHECKOUT (its gpu_kernels runs)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1, help="runs of each aligner, in turn (CPU seconds of each)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for prefix in args.pairs:
            rows += compare(prefix, os.path.basename(prefix), args.ours, args.threads, args.rounds, folder)
        for model in args.models:
            qrate, rrate, own, shared = model.split(":")
            prefix = os.path.join(folder, "pair")
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "simulate.py"), "--model", "heavy", "--length",
                            str(args.length), "--rates", qrate, rrate, "--n-gaps", own, "--shared-gaps", shared,
                            "--truth", "--out", prefix], check=True)
            apart = 100 * (float(qrate) + float(rrate))
            rows += compare(prefix, f"{apart:g} % apart, N runs {own}+{shared}/Mbp", args.ours, args.threads,
                            args.rounds, folder)
    print(table(["pair", "aligner", "precision %", "recall %", "CPU s", "peak MB"], rows))


if __name__ == "__main__":
    main()
