"""The HSP path end to end, through the command line: FASTA in, Parquet out (fresh kernel cache and
warm), then PAF from the Parquet table; wall time and peak host memory of each process.

    python bench/hsp_path.py --size 150 [--backend cupy] [--model heavy] [--workdir /tmp/hsp]
        [--warm-runs N] [--no-paf] [--without-rehearsal] [--teardown]
        [--variants "name=VAR=value VAR=value" ...]

Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from simulate import heavy_pair, simulate_pair, write_fasta  # noqa: E402


def measured(command: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak resident memory in GB, standard output) of one process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=err, env={**os.environ, **(env or {})})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            raise SystemExit(f"{' '.join(command)} failed:\n{err.read()[-3000:]}")
        # the command line's summary line goes to standard error (standard output carries PAF)
        summary = out.read().strip() or (err.read().strip().splitlines() or [""])[-1]
        return wall, usage.ru_maxrss / 1e6, summary


def count_lines(path: str) -> int:
    lines = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 24):
            lines += chunk.count(b"\n")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=150, help="Mbp a side")
    parser.add_argument("--model", choices=("heavy", "young"), default="heavy")
    parser.add_argument("--backend", default="cupy")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "hsp_path"))
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--once", action="store_true", help="one compare run (no fresh/warm pair): for the CPU")
    parser.add_argument("--warm-runs", type=int, default=2, help="warm compare runs after the fresh one")
    parser.add_argument("--no-paf", action="store_true", help="leave out the PAF step")
    parser.add_argument("--teardown", action="store_true",
                        help="also warm runs that exit through the interpreter's teardown (main(), not cli())")
    parser.add_argument("--without-rehearsal", action="store_true",
                        help="first the same runs with warm.py's rehearsals off (GPU_KERNELS_REHEARSE=0), own cache")
    parser.add_argument("--variants", nargs="+", default=[],
                        help='warm runs taken in turn with these environments ("name=VAR=value VAR=value"; '
                             '"default=" for none), --warm-runs rounds, after the fresh run; a median each')
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    qa = os.path.join(args.workdir, f"{args.model}_{args.size:g}_a.fa")
    qb = os.path.join(args.workdir, f"{args.model}_{args.size:g}_b.fa")
    if not (os.path.exists(qa) and os.path.exists(qb)):
        t0 = time.perf_counter()
        if args.model == "heavy":
            first, second, fm, sm = heavy_pair(int(args.size * 1e6), 1, seed=11)
        else:
            (first, second), fm, sm = simulate_pair(int(args.size * 1e6), 1, seed=11), None, None
        write_fasta(qa, ["chr1"], first, fm)
        write_fasta(qb, ["chr1"], second, sm)
        print(f"simulated {args.model} {args.size:g} Mbp pair in {time.perf_counter() - t0:.1f} s", flush=True)
    table = os.path.join(args.workdir, "out.parquet")
    paf = os.path.join(args.workdir, "out.paf")
    compare = [sys.executable, "-m", "gpu_kernels", "compare", qa, qb, "--backend", args.backend, "--hsps", table]
    cache = tempfile.mkdtemp(prefix="cupy-cache-")
    print(f"\n{args.model} {args.size:g} Mbp pair, backend {args.backend}, {os.cpu_count()} cores")
    print(f"{'step':<30} {'wall s':>8} {'peak GB':>8}  output", flush=True)

    def row(name: str, command: list[str], env: dict | None = None) -> float:
        # each row as it is measured: a later step that fails leaves the earlier ones printed
        if command is compare and os.path.exists(table):
            # a new file each time, as Snakemake removes a job's outputs before running it (on ext4,
            # renaming over an existing file also flushes the new one to disk)
            os.remove(table)
        wall, peak, out = measured(command, env)
        print(f"{name:<30} {wall:8.2f} {peak:8.2f}  {out[:110]}", flush=True)
        return wall

    if args.once:
        row("compare", compare)
    else:
        if args.without_rehearsal:
            off = {"CUPY_CACHE_DIR": tempfile.mkdtemp(prefix="cupy-cache-"), "GPU_KERNELS_REHEARSE": "0"}
            row("fresh, no rehearsal", compare, off)
            for run in range(args.warm_runs):
                row(f"warm, no rehearsal ({run + 1})", compare, off)
        row("compare, fresh kernel cache", compare, {"CUPY_CACHE_DIR": cache})
        teardown = [sys.executable, "-c", "import sys; from gpu_kernels.__main__ import main; sys.exit(main())",
                    *compare[3:]]
        variants = [(text.split("=", 1)[0], dict(v.split("=", 1) for v in text.split("=", 1)[1].split()))
                    for text in args.variants]
        walls: dict = {}
        for run in range(args.warm_runs):
            if variants:  # in turn, so that a host that slows down or speeds up weighs on each alike
                for name, env in variants:
                    walls.setdefault(name, []).append(
                        row(f"warm, {name} ({run + 1})", compare, {"CUPY_CACHE_DIR": cache, **env}))
                continue
            row("compare, warm" + (f" ({run + 1})" if args.warm_runs > 1 else ""), compare, {"CUPY_CACHE_DIR": cache})
            if args.teardown:
                row(f"warm, with teardown ({run + 1})", teardown, {"CUPY_CACHE_DIR": cache})
        for name, values in walls.items():
            print(f"{'median, ' + name:<30} {sorted(values)[len(values) // 2]:8.2f}  of {len(values)}: "
                  + " ".join(f"{v:.2f}" for v in values), flush=True)
    if args.no_paf:
        return
    paf_cmd = [sys.executable, "-m", "gpu_kernels", "paf", table, "-o", paf]
    if args.threads:
        paf_cmd += ["--threads", str(args.threads)]
    row("PAF from Parquet", paf_cmd)
    import pyarrow.parquet as pq

    n = pq.ParquetFile(table).metadata.num_rows
    print(f"Parquet rows {n:,} ({os.path.getsize(table) / 1e9:.2f} GB), PAF lines {count_lines(paf):,} "
          f"({os.path.getsize(paf) / 1e9:.2f} GB)")
    os.remove(paf)  # tens of GB: leave the disk to the next benchmark


if __name__ == "__main__":
    main()
