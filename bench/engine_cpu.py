"""CPU engine benchmark: `compare` beside GECKO, minimap2 -x asm5 (with and without -c) and nucmer, on the
bundled pair and repeat-rich simulated pairs (the heavy model of bench/simulate.py), each tool timed in this run.

    python bench/engine_cpu.py [--sizes 5 20] [--gecko-src DIR] [--workdir DIR] [--no-nucmer]

Prints one row per input and tool: CPU seconds (user + system, every process of the tool), wall
seconds, peak resident memory, the tool's output lines and, for the PAF writers, the share of query
bases inside an alignment (what the tool found). Ours writes PAF to stdout, as a user runs it. GECKO
is built from a clone of github.com/otorreno/gecko given by --gecko-src (make in a copy of it;
skipped without one), then run as its workflow.sh with the same length and word size and similarity
80. minimap2 and nucmer are used where they are installed.

minimap2 runs twice: `-x asm5` alone chains minimizers and reports approximate matches, no
base-level alignment; `-x asm5 -c` aligns base by base, as ours (exact identity per HSP) and nucmer
do. The CPU path issue's minimap2 figures (0.38 / 5.42 / 25.4 s) fit the second kind (0.46 / 7.1 /
41 s on a 2-core machine, 2026-11-24), not the first (0.14 / 0.37 / 2.0 s there).
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from common.measure import run, table, warm_python  # noqa: E402
from simulate import heavy_pair, write_fasta  # noqa: E402


def build_gecko(source: str, workdir: str) -> str | None:
    """GECKO's bin directory, built from a copy of its source tree (None when that fails)."""
    target = os.path.join(workdir, "gecko")
    if not os.path.exists(os.path.join(target, "bin", "words")):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(".git"))
        if subprocess.run(["make", "-C", os.path.join(target, "src")], capture_output=True).returncode:
            return None
    return os.path.join(target, "bin")


def inputs(sizes: list[float], workdir: str) -> list[tuple[str, str, str]]:
    """(label, query, reference) FASTA paths, uncompressed (GECKO reads plain FASTA)."""
    pairs = []
    real = []
    for name in ("Mhyopneumoniae_232.fa.gz", "Mhyopneumoniae_7422.fa.gz"):
        path = os.path.join(workdir, name[:-3])
        with open(path, "wb") as handle:
            handle.write(gzip.decompress(open(os.path.join(ROOT, "resources", name), "rb").read()))
        real.append(path)
    pairs.append(("Mycoplasma pair", real[0], real[1]))
    for size in sizes:
        query, reference = (os.path.join(workdir, f"heavy_{size:g}_{s}.fa") for s in "ab")
        if not (os.path.exists(query) and os.path.exists(reference)):
            first, second, fm, sm = heavy_pair(int(size * 1e6), 1, seed=11)
            write_fasta(query, ["chr1"], first, fm)
            write_fasta(reference, ["chr1"], second, sm)
        pairs.append((f"heavy {size:g} Mbp", query, reference))
    return pairs


def lines(path: str) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def paf_query_coverage(paf: str, total: int) -> str:
    """Percentage of the query's bases inside at least one PAF line's query interval (read in chunks;
    each chunk's intervals joined to the disjoint union of those before it)."""
    import pandas as pd

    from gpu_kernels.coverage import merge_intervals

    union = pd.DataFrame({0: pd.Series(dtype=str), 2: pd.Series(dtype="int64"), 3: pd.Series(dtype="int64")})
    for chunk in pd.read_csv(paf, sep="\t", header=None, usecols=[0, 2, 3], chunksize=2_000_000,
                             dtype={0: str, 2: "int64", 3: "int64"}):
        both = pd.concat([union, chunk], ignore_index=True)
        names = both[0].astype("category")
        group, start, end = merge_intervals(names.cat.codes.to_numpy().astype(np.int64), both[2].to_numpy(),
                                            both[3].to_numpy())
        union = pd.DataFrame({0: names.cat.categories[group], 2: start, 3: end})
    return f"{100 * int((union[3] - union[2]).sum()) / total:.2f}"


HEADER = ["input", "tool", "CPU s", "wall s", "peak MB", "rows", "query cov %", "CPU / ours"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="*", default=[5, 20])
    parser.add_argument("--gecko-src", help="a clone of github.com/otorreno/gecko")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "engine_cpu"))
    parser.add_argument("--no-nucmer", action="store_true", help="leave nucmer out (minutes at 20 Mbp)")
    args = parser.parse_args()
    warm_python(sys.executable)
    os.makedirs(args.workdir, exist_ok=True)
    from gpu_kernels import Params
    from gpu_kernels.fasta import load_fasta

    p = Params()
    k, min_len = p.seeding.k, p.reporting.min_len
    gecko = build_gecko(args.gecko_src, args.workdir) if args.gecko_src else None
    rows = []
    for label, query, reference in inputs(args.sizes, args.workdir):
        tools = [("ours", [sys.executable, "-m", "gpu_kernels", "compare", query, reference], None)]
        if gecko:
            folder = tempfile.mkdtemp(dir=args.workdir)
            tools.append(("GECKO", ["bash", os.path.join(gecko, "workflow.sh"), query, reference, str(min_len), "80",
                                    str(k), "1"], folder))
        if shutil.which("minimap2"):
            for extra in ([], ["-c"]):
                tools.append((" ".join(["minimap2 -x asm5", *extra]),
                              ["minimap2", "-x", "asm5", *extra, "-t", str(os.cpu_count()), reference, query], None))
        if shutil.which("nucmer") and not args.no_nucmer:
            folder = tempfile.mkdtemp(dir=args.workdir)
            tools.append(("nucmer", ["nucmer", "-p", os.path.join(folder, "out"), reference, query], None))
        ours_cpu = None
        total = int(load_fasta(query).lengths.sum())
        for tool, command, cwd in tools:
            out = os.path.join(args.workdir, "out.txt")
            got = run(command, out, cwd=cwd)
            if tool == "ours":
                ours_cpu = got["cpu"]
            paf = tool == "ours" or tool.startswith("minimap2")
            count = lines(out) if paf else ""
            coverage = paf_query_coverage(out, total) if paf and count else ("0.00" if paf else "")
            if tool == "GECKO":
                csv = [f for f in os.listdir(os.path.join(cwd, "results")) if f.endswith(".csv")] if got["rc"] == 0 else []
                count = lines(os.path.join(cwd, "results", csv[0])) - 17 if csv else "failed"
            rows.append([label, tool, f"{got['cpu']:.2f}", f"{got['wall']:.2f}", f"{got['peak_mb']:.0f}", str(count), coverage,
                         f"{got['cpu'] / ours_cpu:.2f}" if ours_cpu else ""])
            if cwd:
                shutil.rmtree(cwd, ignore_errors=True)
        print(table(HEADER, rows[-len(tools):]),
              flush=True)
    print()
    print(f"{os.cpu_count()} CPUs; ours: k={k}, min_len={min_len}, NumPy backend, PAF to stdout")
    print(table(HEADER, rows))


if __name__ == "__main__":
    main()
