"""Distant pairs beside LASTZ and LAST: precision, recall and CPU seconds of each tool on the same
simulated pairs, run in turn on one machine.

    python bench/distant_tools.py --out /tmp/dt                      # 500 kb pairs at D 0.15, 0.20, 0.25
    python bench/distant_tools.py --out /tmp/dt --indel-mean 1 3     # both indel models

Pairs: `bench/simulate.py --model heavy --length SIZE --rates 0.02 D --truth --seed 7` (about 82, 77
and 73 % identity; --indel-mean 3: indels of geometric length). Tools, each on the pair as its users
run it:
- ours: `align --preset distant --psl` (the one-to-one alignments; the PSL scored, which also checks it);
- LASTZ (Debian's lastz) with its defaults, every row (its general format with cigarx);
- LAST (Debian's last-align) as its documentation pairs two genomes: `lastdb -uNEAR -R01`, `last-train
  -P2 --revsym -E0.05 -C2`, then `lastal -P2 -p TRAINED` through `last-split`, `maf-swap`, `last-split`,
  `maf-swap` (one-to-one), its MAF read through `maf-convert psl`.
CPU seconds: user + system of the whole run (LAST's steps together). Scores: bench/score_alignments.py's
(aligned column pairs against the simulator's truth). Prints a table.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common.measure import run, table  # noqa: E402
from common.truth import Truth, score  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LASTZ_FORMAT = "--format=general:name1,start1,end1,name2,start2,end2,strand2,nmatch,nmismatch,cigarx"


def tools(prefix: str, threads: int) -> dict:
    """Each tool's command (reference {prefix}_b.fa, query {prefix}_a.fa) and the file it scores."""
    a, b = f"{prefix}_a.fa", f"{prefix}_b.fa"
    last = (f"lastdb -P{threads} -uNEAR -R01 {prefix}.lastdb {b} && "
            f"last-train -P{threads} --revsym -E0.05 -C2 {prefix}.lastdb {a} > {prefix}.train && "
            f"lastal -P{threads} -p {prefix}.train {prefix}.lastdb {a} | last-split | maf-swap | last-split | "
            f"maf-swap > {prefix}.last.maf && maf-convert psl {prefix}.last.maf > {prefix}.last.psl")
    return {
        "ours": ([sys.executable, "-m", "gpu_kernels", "align", a, b, "--preset", "distant", "--backend", "numpy",
                  "--psl", f"{prefix}.ours.psl"], f"{prefix}.ours.psl"),
        "LASTZ": (["bash", "-c", f"lastz {b} {a} {LASTZ_FORMAT} > {prefix}.general"], f"{prefix}.general"),
        "LAST": (["bash", "-c", "set -o pipefail; " + last], f"{prefix}.last.psl"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/out/distant_tools", help="folder of the pairs and outputs")
    parser.add_argument("--size", type=float, default=5e5)
    parser.add_argument("--rates", type=float, nargs="+", default=[0.15, 0.20, 0.25])
    parser.add_argument("--indel-mean", type=float, nargs="+", default=[1.0])
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args()
    missing = [tool for tool in ("lastz", "lastal", "maf-convert") if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"not on the PATH: {', '.join(missing)} (Debian's lastz and last-align)")
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for mean in args.indel_mean:
        for d in args.rates:
            prefix = os.path.join(args.out, f"d{d}_m{mean:g}")
            if not os.path.exists(f"{prefix}_truth.npz"):
                subprocess.run([sys.executable, os.path.join(ROOT, "bench", "simulate.py"), "--model", "heavy",
                                "--length", str(args.size), "--rates", "0.02", str(d), "--truth", "--seed", "7",
                                "--indel-mean", str(mean), "--out", prefix], check=True, stdout=subprocess.DEVNULL)
            truth = Truth(f"{prefix}_truth.npz")
            for name, (command, scored) in tools(prefix, args.threads).items():
                measured = run(command, cwd=ROOT, err=f"{prefix}.{name}.log")
                if measured["rc"]:
                    raise SystemExit(f"{name} failed on {prefix}: see {prefix}.{name}.log")
                s = score(truth, scored)
                precision = 100 * s["correct"] / max(s["aligned"], 1)
                recall = 100 * sum(int(h.sum()) for h in s["held"].values()) / max(truth.true_pairs(), 1)
                rows.append([f"D {d:g}, indels mean {mean:g}", name, f"{precision:.2f}", f"{recall:.2f}",
                             f"{measured['cpu']:.1f}", f"{measured['wall']:.1f}", f"{measured['peak_mb']:.0f}"])
                print("\t".join(rows[-1]), file=sys.stderr, flush=True)
    print(table(["pair", "tool", "precision %", "recall %", "CPU s", "wall s", "peak MB"], rows))


if __name__ == "__main__":
    main()
