"""The dry run's output size estimates beside the outputs a run then writes: each genome pair's
families (HSPs, chains, alignments, variants, tables and figures) and all, and their ratio.

    python bench/size_estimate.py --case bundled [--case heavy20] [--all-outputs] [--cores 2]

Cases: `bundled` (the two Mycoplasma genomes of config/config.yaml), `heavy20` (the repeat-rich 2 x 4 x
5 Mbp pair of bench/workflow_heavy.py, 12 % apart), `heavy2` (the same model 2 % apart, another seed),
`young5` (bench/simulate.py's default model: 2 x 2 x 5 Mbp, 5 % apart, younger repeats), and pairs of
your own (--fasta A B). --all-outputs turns every output on (HSP texts
always: outputs.hsps true). Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from gpu_kernels.workflow.estimate import FAMILIES  # noqa: E402
from gpu_kernels.workflow.outputs import PAIR_OUTPUTS  # noqa: E402

ALL_OUTPUTS = ("outputs: {hsps: true, paf: true, gecko_csv: true, delta: true, alignments_sam: true, "
               "alignments_maf: true, alignments_psl: true, vcf: true, alignments_chain: true}")
UNITS = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}


def genomes(case: str, workdir: str) -> tuple[str, str]:
    """The case's two FASTA files (simulated into workdir where they are not there yet)."""
    if case == "bundled":
        return (os.path.join(ROOT, "resources", "Mhyopneumoniae_232.fa.gz"),
                os.path.join(ROOT, "resources", "Mhyopneumoniae_7422.fa.gz"))
    a, b = os.path.join(workdir, "A.fa"), os.path.join(workdir, "B.fa")
    if os.path.exists(a) and os.path.exists(b):
        return a, b
    from simulate import heavy_pair, simulate_pair, write_fasta

    if case == "heavy20":
        first, second, fm, sm = heavy_pair(20_000_000, 4, seed=7)
        names = [f"chr{i + 1}" for i in range(4)]
        write_fasta(a, names, first, fm)
        write_fasta(b, names, second, sm)
    elif case == "heavy2":
        first, second, fm, sm = heavy_pair(20_000_000, 4, seed=8, rates=(0.0, 0.02))
        names = [f"chr{i + 1}" for i in range(4)]
        write_fasta(a, names, first, fm)
        write_fasta(b, names, second, sm)
    elif case == "young5":
        first, second = simulate_pair(10_000_000, 2, seed=3)
        write_fasta(a, ["chr1", "chr2"], first)
        write_fasta(b, ["chr1", "chr2"], second)
    else:
        raise SystemExit(f"unknown case {case}")
    return a, b


def snakemake(workdir: str, config: str, cores: int, *extra: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", os.path.join(ROOT, "workflow", "Snakefile"),
                           "-d", workdir, "--cores", str(cores), "--configfile", config, *extra],
                          capture_output=True, text=True)
    if proc.returncode:
        print(proc.stdout[-2000:], proc.stderr[-4000:])
        raise SystemExit("snakemake failed")
    return proc


def estimates(text: str) -> dict[str, dict[str, float]]:
    """pair -> family -> bytes, from the table a dry run prints."""
    out = {}
    for line in text.splitlines():
        cells = re.findall(r"(\S+ [kMG]?B|-)(?=\s|$)", line)
        name = line.split()[0] if line.startswith("  ") and line.split() else ""
        if "_vs_" not in name or len(cells) < len(FAMILIES) + 1:
            continue
        values = [0.0 if c == "-" else float(c.split()[0]) * UNITS[c.split()[1]] for c in cells]
        out[name] = dict(zip(list(FAMILIES) + ["all"], values))
    return out


def written(pair_dir: str) -> dict[str, float]:
    """family -> bytes of the outputs in a pair's folder (a delta's plain FASTA copies with it)."""
    sizes = {}
    for family, kinds in FAMILIES.items():
        total = 0
        for kind in kinds:
            path = os.path.join(pair_dir, PAIR_OUTPUTS[kind])
            if os.path.isdir(path):
                total += sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
            elif os.path.exists(path):
                total += os.path.getsize(path)
                total += sum(os.path.getsize(path + s) for s in (".query.fa", ".reference.fa")
                             if os.path.exists(path + s))
        sizes[family] = total
    sizes["all"] = sum(sizes.values())
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", default=[])
    parser.add_argument("--fasta", nargs=2, action="append", default=[], metavar=("A", "B"))
    parser.add_argument("--all-outputs", action="store_true")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--workdir", default="/tmp/size_estimate")
    args = parser.parse_args()
    cases = [(c, None) for c in args.case or ["bundled"]] + [(f"fasta{i}", pair) for i, pair in enumerate(args.fasta)]
    print(f"{'case':<10s}{'family':<17s}{'estimated':>12s}{'written':>12s}{'ratio':>8s}")
    for case, pair in cases:
        workdir = os.path.join(args.workdir, case + ("_all" if args.all_outputs else ""))
        os.makedirs(workdir, exist_ok=True)
        a, b = pair or genomes(case, os.path.join(args.workdir, case))
        config = os.path.join(workdir, "config.yaml")
        with open(config, "w") as handle:
            handle.write(f"genomes:\n  A: {os.path.abspath(a)}\n  B: {os.path.abspath(b)}\nbackend: {args.backend}\n"
                         f"results: {workdir}/results\n" + (ALL_OUTPUTS + "\n" if args.all_outputs else ""))
        dry = snakemake(workdir, config, args.cores, "-n")
        guessed = estimates(dry.stderr + dry.stdout)
        snakemake(workdir, config, args.cores)
        for name, families in guessed.items():
            real = written(os.path.join(workdir, "results", name))
            for family, value in families.items():
                if value or real[family]:
                    ratio = value / real[family] if real[family] else float("inf")
                    print(f"{case:<10s}{family:<17s}{value / 1e6:>10.3f}MB{real[family] / 1e6:>10.3f}MB{ratio:>8.2f}")


if __name__ == "__main__":
    main()
