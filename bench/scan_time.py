"""The workflow's genome scan, step by step, on FASTA files (what Snakemake's start spends before the
job graph): the file read, the records' layout, the content digest and the sketch, each timed alone
on one genome, then workflow.genome.scan_genomes on all of them side by side as the Snakefile runs it.

    python bench/scan_time.py A.fa B.fa
"""
import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from gpu_kernels import native  # noqa: E402
from gpu_kernels.fasta import read_bytes  # noqa: E402
from gpu_kernels.workflow import genome  # noqa: E402
from gpu_kernels.workflow.sketch import make_sketch, sketch_shift  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fasta", nargs="+")
    args = parser.parse_args()
    print(f"{native.threads()} threads")
    print(f"{'genome':30} {'GB':>6} {'read s':>7} {'layout s':>8} {'digest s':>8} {'sketch s':>8}")
    for path in args.fasta:
        clock = time.perf_counter()
        data = read_bytes(path)
        read = time.perf_counter() - clock
        clock = time.perf_counter()
        chromosomes, spans, _ = genome._scan(data, path)
        layout = time.perf_counter() - clock
        clock = time.perf_counter()
        genome.content_digest(data)
        digest = time.perf_counter() - clock
        clock = time.perf_counter()
        make_sketch(data, spans, sketch_shift(sum(c.length for c in chromosomes)))
        sketch = time.perf_counter() - clock
        print(f"{os.path.basename(path):30} {len(data) / 1e9:6.2f} {read:7.2f} {layout:8.2f} {digest:8.2f} {sketch:8.2f}")
        del data
    with tempfile.TemporaryDirectory() as folder:
        clock = time.perf_counter()
        genome.scan_genomes({str(i): (path, os.path.join(folder, f"{i}.json"), os.path.join(folder, f"{i}.npz"), False)
                             for i, path in enumerate(args.fasta)})
        print(f"scan_genomes, all side by side (the Snakefile's): {time.perf_counter() - clock:.2f} s")


if __name__ == "__main__":
    main()
