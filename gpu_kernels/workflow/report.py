"""The front page of the workflow's HTML report: what was compared, with which parameters and
backend, and how long the jobs took (from their benchmark files), as reStructuredText."""
from __future__ import annotations

import csv
import glob
import os

from ..params import GROUP_OF

# the parameters a mode does not read: the exact-match modes' own for seed and extend, every
# seed-and-extend group's for the exact-match modes (taken from params.py, never listed here)
SKIP_KEYS = {"hsp": {name for name, group in GROUP_OF.items() if group == "matching" and name != "mode"},
             "mem": {name for name, group in GROUP_OF.items() if group != "matching"}}
SKIP_KEYS["mum"] = SKIP_KEYS["mem"]


def mode_params(params: dict) -> dict:
    """The parameters that apply to a set's mode (min_match only for exact matches, k and the
    scores only for HSPs)."""
    skip = SKIP_KEYS.get(params.get("mode", "hsp"), set())
    return {key: value for key, value in params.items() if key not in skip}


def job_times(bench_dir: str) -> tuple[dict, float]:
    """({rule: (jobs, summed wall seconds)}, seconds from the first job's start to the last job's end)."""
    per_rule: dict[str, list] = {}
    first, last = None, None
    for path in glob.glob(os.path.join(bench_dir, "**", "*.tsv"), recursive=True):
        rule = os.path.relpath(path, bench_dir).split(os.sep)[0]
        rule = rule[:-4] if rule.endswith(".tsv") else rule
        try:
            with open(path) as handle:
                row = next(csv.DictReader(handle, delimiter="\t"))
            seconds, end = float(row["s"]), os.path.getmtime(path)
        except (OSError, StopIteration, KeyError, ValueError):
            continue
        jobs, total = per_rule.get(rule, (0, 0.0))
        per_rule[rule] = (jobs + 1, total + seconds)
        first = end - seconds if first is None else min(first, end - seconds)
        last = end if last is None else max(last, end)
    return per_rule, (last - first) if first is not None else 0.0


def run_description(config: dict, chromosomes: dict, pairs: list, params: dict, backend: str, bench_dir: str) -> str:
    """The report's opening section as reStructuredText."""
    lines = [f"Every chromosome of one genome compared with every chromosome of the other, both strands, "
             f"exhaustively, on the **{backend}** backend: {len(pairs)} genome pair{'s' * (len(pairs) != 1)}, "
             f"{len(params)} parameter set{'s' * (len(params) != 1)}. Results are grouped below by genome pair; "
             "**Summary** has one row per set and pair.", "", "Genomes", "", ""]
    lines += [".. list-table::", "   :header-rows: 1", "", "   * - genome", "     - records", "     - bp", "     - file"]
    for name, chroms in chromosomes.items():
        lines += [f"   * - {name}", f"     - {len(chroms):,}", f"     - {sum(c.length for c in chroms):,}",
                  f"     - ``{config['genomes'][name]}``"]
    lines += ["", "Pairs (query vs reference): " + ", ".join(f"{q} vs {r}" for q, r in pairs) + ".", ""]
    for name, p in params.items():
        values = ", ".join(f"{key} {value}" for key, value in mode_params(p.as_dict()).items())
        lines.append(f"Parameters{'' if len(params) == 1 else f' of set {name}'}: {values}.")
        lines.append("")
    per_rule, span = job_times(bench_dir)
    if per_rule:
        jobs = "; ".join(f"{rule} {n} job{'s' * (n != 1)}, {total:,.1f} s" for rule, (n, total) in sorted(per_rule.items()))
        lines += [f"Time: {span:,.1f} s from the first job's start to the last job's end; by rule (summed job wall "
                  f"times): {jobs}.", ""]
    return "\n".join(lines)
