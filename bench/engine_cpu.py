"""CPU engine benchmark: `compare` beside GECKO, minimap2 -x asm5 and nucmer, on the bundled pair and
repeat-rich simulated pairs (the heavy model of bench/simulate.py), each tool timed in this run.

    python bench/engine_cpu.py [--sizes 5 20] [--gecko-src DIR] [--workdir DIR] [--no-nucmer]

Prints one row per input and tool: CPU seconds (user + system, every process of the tool), wall
seconds, peak resident memory, and the tool's output lines. Ours writes PAF to stdout, as a user runs
it; its stage times come from `-v`. GECKO is built from a clone of github.com/otorreno/gecko given by
--gecko-src (make in a copy of it; skipped without one), then run as its workflow.sh with the same
length and word size and similarity 80. minimap2 and nucmer are used where they are installed.
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from measure import run, table, warm_python  # noqa: E402
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
            tools.append(("minimap2 -x asm5", ["minimap2", "-x", "asm5", "-t", str(os.cpu_count()), reference, query],
                          None))
        if shutil.which("nucmer") and not args.no_nucmer:
            folder = tempfile.mkdtemp(dir=args.workdir)
            tools.append(("nucmer", ["nucmer", "-p", os.path.join(folder, "out"), reference, query], None))
        ours_cpu = None
        for tool, command, cwd in tools:
            out = os.path.join(args.workdir, "out.txt")
            got = run(command, out, cwd=cwd)
            if tool == "ours":
                ours_cpu = got["cpu"]
            count = lines(out) if tool in ("ours", "minimap2 -x asm5") else ""
            if tool == "GECKO":
                csv = [f for f in os.listdir(os.path.join(cwd, "results")) if f.endswith(".csv")] if got["rc"] == 0 else []
                count = lines(os.path.join(cwd, "results", csv[0])) - 17 if csv else "failed"
            rows.append([label, tool, f"{got['cpu']:.2f}", f"{got['wall']:.2f}", f"{got['peak_mb']:.0f}", str(count),
                         f"{got['cpu'] / ours_cpu:.2f}" if ours_cpu else ""])
            if cwd:
                shutil.rmtree(cwd, ignore_errors=True)
        print(table(["input", "tool", "CPU s", "wall s", "peak MB", "rows", "CPU / ours"], rows[-len(tools):]),
              flush=True)
    print()
    print(f"{os.cpu_count()} CPUs; ours: k={k}, min_len={min_len}, NumPy backend, PAF to stdout")
    print(table(["input", "tool", "CPU s", "wall s", "peak MB", "rows", "CPU / ours"], rows))


if __name__ == "__main__":
    main()
