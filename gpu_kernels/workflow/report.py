"""The front page of the workflow's HTML report: what was compared, with which parameters and
backend, and how long the jobs took (from their benchmark files), as reStructuredText."""
from __future__ import annotations

import csv
import glob
import os

import numpy as np

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


def headline(pair_dir: str) -> dict | None:
    """A finished genome pair's headline numbers from its folder: HSPs (stats.tsv), one-to-one
    alignments (alignments.parquet), and the share of each genome they cover and their identity
    (coverage_genomes.tsv: by alignments where they were made, else by backbone chains, else by HSPs).
    None where the pair has not run."""
    genomes = os.path.join(pair_dir, "coverage_genomes.tsv")
    if not os.path.exists(genomes):
        return None
    with open(genomes) as handle:
        rows = {row["side"]: row for row in csv.DictReader(handle, delimiter="\t")}
    out = {"hsps": None, "alignments": None}
    try:
        with open(os.path.join(pair_dir, "stats.tsv")) as handle:
            out["hsps"] = sum(int(row["hsps"]) for row in csv.DictReader(handle, delimiter="\t"))
    except (OSError, KeyError, ValueError):
        pass
    table = os.path.join(pair_dir, "alignments.parquet")
    if os.path.exists(table):
        import pyarrow.parquet as pq

        # counted, not summed: Python's sum over an int8 column wraps at 128 under NumPy 2
        out["alignments"] = int(np.count_nonzero(pq.read_table(table, columns=["backbone"]).column("backbone").to_numpy()))
    kind = next((k for k in ("aligned", "backbone", "both") if rows["query"].get(f"coverage_{k}") not in (None, "")
                 and (k != "aligned" or out["alignments"])), "both")
    out["by"] = {"aligned": "one-to-one alignments", "backbone": "backbone chains", "both": "HSPs"}[kind]
    out["query"], out["reference"] = (100 * float(rows[side][f"coverage_{kind}"]) for side in ("query", "reference"))
    identity = rows["query"].get("identity_aligned")
    out["identity"] = 100 * float(identity) if kind == "aligned" and identity not in (None, "") else None
    return out


def headline_table(pair_dirs: list[tuple[str, str]]) -> list[str]:
    """The front page's table of headline numbers, a row per (label, pair folder) that has run. Its
    columns are few and short: Snakemake's report draws the rule graph beside the text, over anything
    wider (what the coverage is of goes in a sentence under it)."""
    rows = [(label, headline(folder)) for label, folder in pair_dirs]
    rows = [(label, h) for label, h in rows if h]
    if not rows:
        return []
    lines = ["Headline numbers", "", "", ".. list-table::", "   :header-rows: 1", "",
             "   * - pair", "     - HSPs", "     - one-to-one", "     - query covered", "     - reference covered",
             "     - identity"]
    for label, h in rows:
        lines += [f"   * - {label}", f"     - {h['hsps']:,}" if h["hsps"] is not None else "     - ",
                  f"     - {h['alignments']:,}" if h["alignments"] is not None else "     - ",
                  f"     - {h['query']:.2f} %", f"     - {h['reference']:.2f} %",
                  f"     - {h['identity']:.2f} %" if h["identity"] is not None else "     - "]
    by = sorted({h["by"] for _, h in rows})
    covered = (f"the {by[0]}" if len(by) == 1 else
               "; ".join(f"{label}: the {h['by']}" for label, h in rows))
    return lines + ["", f"Pairs are query vs reference; one-to-one: the one-to-one alignments; covered and "
                        f"identity: by {covered}.", ""]


def run_description(config: dict, chromosomes: dict, pairs: list, params: dict, backend: str, bench_dir: str,
                    pair_dirs: list[tuple[str, str]] = ()) -> str:
    """The report's opening section as reStructuredText; pair_dirs: (label, folder) of each genome
    pair and set, whose headline numbers open it once they have run."""
    lines = [f"Every chromosome of one genome compared with every chromosome of the other, both strands, "
             f"exhaustively, on the **{backend}** backend: {len(pairs)} genome pair{'s' * (len(pairs) != 1)}, "
             f"{len(params)} parameter set{'s' * (len(params) != 1)}. Results are grouped below by genome pair; "
             "**Summary** has one row per set and pair.", ""]
    lines += headline_table(list(pair_dirs))
    lines += ["Genomes", "", ""]
    lines += [".. list-table::", "   :header-rows: 1", "", "   * - genome", "     - records", "     - bp", "     - file"]
    for name, chroms in chromosomes.items():
        lines += [f"   * - {name}", f"     - {len(chroms):,}", f"     - {sum(c.length for c in chroms):,}",
                  f"     - ``{os.path.basename(str(config['genomes'][name]))}``"]
    # the paths in full as text, which wraps (a table of long paths runs under the rule graph)
    lines += ["", "Files: " + "; ".join(f"{name} ``{config['genomes'][name]}``" for name in chromosomes) + "."]
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
