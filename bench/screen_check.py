"""The many-genomes screen's choices and what it saves: the README's many-genomes command run as written
(the screen on) and with `comparisons: {screen: 0}` (every pair aligned), in turn on this host, then
each screened pair beside what aligning it gave and, with --fastani, beside FastANI.

    python bench/screen_check.py GENOMES.yaml [--cores 2] [--fastani] [--list]

Prints the two runs' wall times and host peaks, the pairs screened, the highest ANI, aligned share of the
smaller genome and FastANI among them, the lowest containment ANI among the pairs aligned, and whether
every aligned pair's row equals the unscreened run's. --list: every screened pair a line. Not a test.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ani_agreement import fastani_values, genome_name  # noqa: E402
from common.measure import table  # noqa: E402
from common.wfbench import ROOT, run_workflow  # noqa: E402


def one_run(genomes: str, cores: int, screen_off: bool) -> tuple[float, int, pd.DataFrame]:
    """(wall seconds, host peak bytes over the start's, ani.tsv) of the README's many-genomes command."""
    import psutil

    results = tempfile.mkdtemp(prefix="screen_check_")
    config = os.path.join(results, "run.yaml")
    with open(config, "w") as handle:
        handle.write(f"results: {results}\n" + ("comparisons: {screen: 0}\n" if screen_off else ""))
    base, memory = psutil.virtual_memory().used, []
    wall = run_workflow(results, os.path.join(ROOT, "config", "many_genomes.yaml"), cores, [genomes, config, "-q"],
                        memory)
    rows = pd.read_csv(os.path.join(results, "default", "ani.tsv"), sep="\t", keep_default_na=False,
                       na_values={"ani": ["NA"]}, dtype={"query": str, "reference": str})
    shutil.rmtree(results)
    return wall, memory[0] - base, rows


def fastani(genomes: str, cores: int) -> dict:
    """FastANI's values of every pair of the set (fastani_values', keyed by the set's names)."""
    import yaml

    with open(genomes) as handle:
        named = {str(name): path for name, path in yaml.safe_load(handle)["genomes"].items()}
    paths, name_of = list(named.values()), {genome_name(path): name for name, path in named.items()}
    folder = tempfile.mkdtemp(prefix="screen_fastani_")
    listed = os.path.join(folder, "list")
    with open(listed, "w") as handle:
        handle.write("\n".join(os.path.abspath(p) for p in paths) + "\n")
    out = os.path.join(folder, "fastani.txt")
    subprocess.run(["fastANI", "--ql", listed, "--rl", listed, "-t", str(cores), "-o", out], check=True,
                   capture_output=True)
    values = {frozenset(name_of[n] for n in pair): ani for pair, ani in fastani_values(out).items()}
    shutil.rmtree(folder)
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("genomes", help="a YAML file listing the genomes (genomes: name: FASTA)")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--fastani", action="store_true", help="FastANI's value of each screened pair too")
    parser.add_argument("--list", action="store_true", help="every screened pair a line")
    args = parser.parse_args()
    genomes = os.path.abspath(args.genomes)
    runs = {}
    for label, off in (("screen on (as written)", False), ("screen: 0", True)):
        runs[label] = one_run(genomes, args.cores, off)
    print(f"{genomes}, --cores {args.cores}")
    print(table(["run", "wall", "host peak", "pairs", "screened"],
                [[label, f"{wall:.1f} s", f"{peak / 2**30:.2f} GiB", str(len(rows)),
                  str(int((rows["status"] == "screened").sum()))] for label, (wall, peak, rows) in runs.items()]))
    (_, _, on), (_, _, off) = runs.values()
    both = on.merge(off, on=["query", "reference"], suffixes=("", "_all"))
    both["shared_all"] = both[["aligned_fraction_query_all", "aligned_fraction_reference_all"]].max(axis=1)
    if args.fastani:
        values = fastani(genomes, args.cores)
        both["fastani"] = [values.get(frozenset((q, r)), float("nan")) for q, r in zip(both["query"], both["reference"])]
    screened, kept = both[both["status"] == "screened"], both[both["status"] == "aligned"]
    columns = [c for c in on.columns if c not in ("query", "reference", "status")]
    same = all(kept[c].astype(str).equals(kept[f"{c}_all"].astype(str)) for c in columns if f"{c}_all" in kept)
    rows = [["pairs screened", f"{len(screened)} of {len(both)}"],
            ["screened: highest ANI once aligned", f"{screened['ani_all'].max():.2f} %" if len(screened) else "-"],
            ["screened: most of the smaller genome aligned", f"{screened['shared_all'].max():.4f}" if len(screened) else "-"],
            ["screened: highest containment ANI", f"{screened['screen_ani'].max():.2f} %" if len(screened) else "-"],
            ["aligned: lowest containment ANI", f"{kept['screen_ani'].min():.2f} %" if len(kept) else "-"],
            ["aligned pairs' rows as in the unscreened run", "yes" if same else "no"]]
    if args.fastani:
        known = screened["fastani"].dropna()
        rows.append(["screened: FastANI reports", f"{len(known)} (highest {known.max():.2f} %)" if len(known) else "none"])
    print(table(["the screen's choices", ""], rows))
    if args.list:
        shown = ["query", "reference", "screen_ani", "ani_all", "shared_all"] + (["fastani"] if args.fastani else [])
        print(screened.sort_values("screen_ani", ascending=False)[shown].to_string(index=False))


if __name__ == "__main__":
    main()
