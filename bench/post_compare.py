"""The rules after the compare jobs, on a finished genome pair: the coverage rules and the plots rule run
as the workflow runs them (same library calls), each in its own process, timed, with its HSP rate and
host memory peak. Where the seconds of a whole-genome run go once its GPUs are done.

    python bench/post_compare.py RESULTS/SET/QUERY_vs_REFERENCE [--backend cupy] [--threads 8]
        [--profile DIR]   # each step under py-spy (collapsed stacks, native frames) into DIR
        [--root DIR]      # another checkout's gpu_kernels timed instead (two versions side by side)

The pair's folder must hold hsps.parquet (a run with `--until merge` leaves it); the record tables come
from its metadata. Outputs go to a scratch folder beside it. Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from common.measure import run  # noqa: E402

STEP = """
import logging, sys
sys.path.insert(0, {root!r})
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stdout)
from gpu_kernels.formats import read_meta
from gpu_kernels.workflow.genome import Genome
from gpu_kernels.workflow.pictures import pair_pictures
from gpu_kernels.workflow.tables import coverage_tables, hsp_coverage
meta = read_meta({hsps!r})
q = Genome.of({query!r}, meta["query"]["names"], meta["query"]["lengths"])
r = Genome.of({reference!r}, meta["reference"]["names"], meta["reference"]["lengths"])
out = {out!r}
if {step!r} == "hsp_coverage":
    if {backend!r} == "cupy":
        from gpu_kernels.device import claim_device
        claim_device()
    hsp_coverage({hsps!r}, q, r, out + "/hsp_coverage.npz", {backend!r}, {threads})
elif {step!r} == "coverage":
    coverage_tables(out + "/hsp_coverage.npz", q, r, out + "/coverage_pairs.tsv", out + "/coverage_query.tsv",
                    out + "/coverage_reference.tsv", out + "/coverage_genomes.tsv")
else:
    pair_pictures({hsps!r}, out + "/hsp_coverage.npz", q, r, out + "/grid_dotplot.png", out + "/coverage_heatmap.png",
                  out + "/pair_dotplots", {pairs}, out + "/dotplot.html", "reference", {threads})
"""

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pair", help="RESULTS/SET/QUERY_vs_REFERENCE")
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--threads", type=int, default=8, help="the coverage and plots rules' threads")
    parser.add_argument("--profile", help="a folder for py-spy's collapsed stacks of each step")
    parser.add_argument("--pairs", type=int, default=50, help="pair dotplots (the workflow's max_pair_dotplots)")
    parser.add_argument("--root", default=ROOT, help="the checkout whose gpu_kernels runs")
    args = parser.parse_args()
    pair = os.path.abspath(args.pair.rstrip("/"))
    query, reference = os.path.basename(pair).split("_vs_")
    hsps = os.path.join(pair, "hsps.parquet")
    out = pair + ".post_compare"
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    import pyarrow.parquet as pq

    rows = pq.ParquetFile(hsps).metadata.num_rows
    print(f"{hsps}: {rows:,} HSPs, {os.path.getsize(hsps) / 1e9:.1f} GB, backend {args.backend}, threads {args.threads}, "
          f"package of {args.root}")
    print(f"{'step':<12} {'wall s':>7} {'CPU s':>7} {'M HSPs/s':>9} {'peak MB':>8}")
    for step in ("hsp_coverage", "coverage", "plots"):
        code = STEP.format(root=os.path.abspath(args.root), query=query, reference=reference, step=step, backend=args.backend, hsps=hsps,
                           threads=args.threads, pairs=args.pairs, out=out)
        command = [sys.executable, "-c", code]
        if args.profile:
            os.makedirs(args.profile, exist_ok=True)
            command = ["py-spy", "record", "--native", "-r", "50", "-f", "raw", "-o",
                       os.path.join(args.profile, f"{step}.txt"), "--", *command]
        got = run(command, out=os.path.join(out, f"{step}.log"))
        if got["rc"]:
            subprocess.run(["tail", "-5", os.path.join(out, f"{step}.log")])
            raise SystemExit(f"{step} failed (rc {got['rc']})")
        print(f"{step:<12} {got['wall']:7.1f} {got['cpu']:7.1f} {rows / got['wall'] / 1e6:9.1f} {got['peak_mb']:8.0f}")


if __name__ == "__main__":
    main()
