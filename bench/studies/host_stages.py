"""A compare job's host stages on the CPU, apart from its comparison: one query FASTA against one reference
FASTA compared once (the HSP table saved to SAVED, read back on later runs), then the homology pipeline
from those HSPs (chains, placement, alignments, the part's ranks and first round) ROUNDS times, each
round's time printed with the process's page faults and system time. Run it under different environments
(GLIBC_TUNABLES, thread counts) to see what the stages a GPU job runs on its host cost.

    python bench/studies/host_stages.py QUERY.fa REFERENCE.fa SAVED.pkl [--rounds 1]

The close pair's chromosomes 7-9 against its chromosomes 13-18 (`bench/human_sized.py --model close`) are
10.7 M HSPs and 21.5 K alignments, about 0.6 of a whole-genome compare job's.
"""
from __future__ import annotations

import argparse
import logging
import os
import pickle
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from gpu_kernels import pipeline  # noqa: E402
from gpu_kernels.backend import get_backend  # noqa: E402
from gpu_kernels.engine import compare  # noqa: E402
from gpu_kernels.fasta import load_fasta  # noqa: E402
from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.result import Result  # noqa: E402


def usage() -> tuple[int, float]:
    """(minor page faults, system seconds) of this process so far."""
    got = resource.getrusage(resource.RUSAGE_SELF)
    return got.ru_minflt, got.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query")
    parser.add_argument("reference")
    parser.add_argument("saved", help="the comparison's HSP table, written on the first run")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    query, reference = load_fasta(args.query), load_fasta(args.reference)
    params, backend = Params(preset="close", max_freq=20), get_backend("numpy")
    if not os.path.exists(args.saved):
        started = time.perf_counter()
        result = compare(query, reference, params, backend=backend)
        print(f"compared in {time.perf_counter() - started:.2f} s")
        with open(args.saved, "wb") as handle:
            pickle.dump(({name: np.asarray(v) for name, v in result.table.items() if v is not None}, result.stats),
                        handle)
    with open(args.saved, "rb") as handle:
        table, stats = pickle.load(handle)
    print(f"GLIBC_TUNABLES {os.environ.get('GLIBC_TUNABLES', 'unset')}")
    for round_ in range(args.rounds):
        result = Result(dict(table), query, reference, params, dict(stats), backend)
        faults, system = usage()
        started = time.perf_counter()
        part = pipeline.homology(query, reference, params, backend, result=result, pieces=False, text_parts=True)
        now_faults, now_system = usage()
        print(f"round {round_ + 1}: the host stages {time.perf_counter() - started:.2f} s, {now_faults - faults} page "
              f"faults, {now_system - system:.2f} system s; {part.chains['chain'].size} chains, "
              f"{part.alignments['chain'].size} alignments")


if __name__ == "__main__":
    main()
