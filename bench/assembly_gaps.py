"""Alignments across assembly gaps: simulated pairs (bench/simulate.py's heavy model) with runs of N, each
genome's own (half of them unsized: 100 N for 100-5,000 bases) and shared ones (a region open in both
assemblies), scored against the simulator's truth with the N columns left out (score_alignments
--skip-n), ours beside minimap2 -x asm20 -c.

    python bench/assembly_gaps.py [--length 10e6] [--models 0:0.02:20:0 0.01:0.01:5:10 ...]
        [--ours new=. old=/path/to/old/checkout] [--threads 2]

A model is QUERY_RATE:REFERENCE_RATE:OWN_GAPS:SHARED_GAPS (substitutions from the ancestor; N runs a
Mbp). Prints a row per model and aligner: one-to-one precision and recall, CPU seconds, peak memory."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", type=float, default=10e6)
    parser.add_argument("--models", nargs="+", default=MODELS)
    parser.add_argument("--ours", nargs="+", default=["ours=" + ROOT], help="LABEL=CHECKOUT (its gpu_kernels runs)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for model in args.models:
            qrate, rrate, own, shared = model.split(":")
            prefix = os.path.join(folder, "pair")
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "simulate.py"), "--model", "heavy", "--length",
                            str(args.length), "--rates", qrate, rrate, "--n-gaps", own, "--shared-gaps", shared,
                            "--truth", "--out", prefix], check=True)
            query, reference = prefix + "_a.fa", prefix + "_b.fa"
            truth = Truth(prefix + "_truth.npz", (query, reference))
            apart = 100 * (float(qrate) + float(rrate))
            runs = []
            for item in args.ours:
                label, _, checkout = item.partition("=")
                env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
                out = os.path.join(folder, f"{label}.paf")
                # run from the checkout: `python -m` puts the working folder first on the path
                runs.append((label, out, run([sys.executable, "-m", "gpu_kernels", "align", query, reference, "-o", out,
                                              "--threads", str(args.threads), "--backend", "numpy"], env=env,
                                             cwd=os.path.abspath(checkout))))
            if shutil.which("minimap2"):
                out = os.path.join(folder, "mm2.paf")
                runs.append(("minimap2 asm20", out, run(["minimap2", "-x", "asm20", "-c", "--cs", "-t",
                                                         str(args.threads), reference, query], out=out)))
            for label, out, took in runs:
                got = score(truth, out, "tp:A:P")
                recall = 100 * sum(h.sum() for h in got["held"].values()) / max(1, truth.true_pairs())
                rows.append([f"{apart:g} % apart, N runs {own}+{shared}/Mbp", label,
                             f"{100 * got['correct'] / max(1, got['aligned']):.2f}", f"{recall:.2f}",
                             f"{took['cpu']:.1f}", f"{took['peak_mb']:.0f}"])
    print(table(["pair", "aligner", "precision %", "recall %", "CPU s", "peak MB"], rows))


if __name__ == "__main__":
    main()
