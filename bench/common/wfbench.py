"""Shared by the workflow benchmarks: run Snakemake on a config, then read its benchmark tables by rule."""
from __future__ import annotations

import csv
import glob
import os
import subprocess
import sys
import time
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_workflow(workdir: str, config: str, cores: int, extra: list[str] | tuple = (), memory: list | None = None,
                 root: str = ROOT) -> float:
    """Wall seconds of one Snakemake run of the repository's workflow; exits with its log tail on failure.
    memory: a list given the host's peak used memory in bytes over the run (sampled every 0.2 s). root:
    another checkout of the repository whose workflow and package run (extra follows config: more
    config files, then options)."""
    import threading

    start = time.perf_counter()
    done = threading.Event()

    def sample():
        import psutil

        peak = 0
        while not done.wait(0.2):
            peak = max(peak, psutil.virtual_memory().used)
        memory.append(peak)

    sampler = threading.Thread(target=sample, daemon=True) if memory is not None else None
    if sampler:
        sampler.start()
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")} if root != ROOT else None
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", os.path.join(root, "workflow", "Snakefile"), "-d", workdir,
                           "--cores", str(cores), "--configfile", config, *extra], capture_output=True, text=True,
                          env=env, cwd=root if root != ROOT else None)
    wall = time.perf_counter() - start
    done.set()
    if sampler:
        sampler.join()
    if proc.returncode:
        print(proc.stdout[-2000:], proc.stderr[-4000:])
        raise SystemExit(f"snakemake failed after {wall:.1f} s")
    return wall


def rule_times(results: str) -> dict[str, list[tuple[float, float, float]]]:
    """rule -> [(seconds, peak resident MB, end)] of every job, from Snakemake's benchmark tables (end: the
    table's modification time, written as the job ends)."""
    rules = defaultdict(list)
    root = os.path.join(results, "logs", "benchmarks")
    for path in glob.glob(os.path.join(root, "**", "*.tsv"), recursive=True):
        with open(path) as handle:
            row = next(csv.DictReader(handle, delimiter="\t"))
        rule = os.path.relpath(path, root).split(os.sep)[0].removesuffix(".tsv")
        peak = float(row["max_rss"]) if row["max_rss"] not in ("NA", "-", "") else 0.0
        rules[rule].append((float(row["s"]), peak, os.path.getmtime(path)))
    return rules


def print_rules(rules: dict) -> None:
    """One line a rule: jobs, summed and longest run time, largest peak memory, and when its first job
    started and its last ended, in seconds after the first job of the run started."""
    origin = min((end - t for jobs in rules.values() for t, _, end in jobs), default=0.0)
    print(f"{'rule':<12} {'jobs':>5} {'sum s':>8} {'max s':>8} {'max RSS MB':>11} {'from s':>7} {'to s':>7}")
    known = ("index", "compare", "part_texts", "merge", "stats", "texts", "assemble", "alignments", "hsp_coverage",
             "dots", "coverage", "plots", "mummer_text", "summary")
    for rule in known + tuple(sorted(set(rules) - set(known))):  # every rule that ran, the known ones in flow order
        if rule in rules:
            times = [t for t, _, _ in rules[rule]]
            print(f"{rule:<12} {len(times):5d} {sum(times):8.1f} {max(times):8.1f} "
                  f"{max(m for _, m, _ in rules[rule]):11.0f} "
                  f"{min(end - t for t, _, end in rules[rule]) - origin:7.1f} "
                  f"{max(end for _, _, end in rules[rule]) - origin:7.1f}")


def final_outputs(workdir: str) -> dict[str, str]:
    """{path under results/: content digest} of a finished run's outputs: logs, benchmark and stats
    tables (they hold times) left out, Parquet tables by their rows (their metadata holds times)."""
    import hashlib

    import pyarrow.parquet as pq

    out = {}
    results = os.path.join(workdir, "results")
    for folder, _, files in os.walk(results):
        for name in files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, results)
            if rel.startswith("logs") or name.startswith(".") or "stats" in name or name.startswith("summary") or name.endswith(".json"):
                continue
            data = pq.read_table(path).to_pandas().to_csv().encode() if name.endswith(".parquet") else \
                open(path, "rb").read()
            out[rel] = hashlib.sha1(data).hexdigest()
    return out
