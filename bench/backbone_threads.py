"""The backbone's rounds (gpu_kernels/backbone.py) on a compare job's chains, on 1 to N threads: the first
round within each record pair and one round over every chain (the second round's shape), each the
best of a few runs, with the chains each keeps (the same on any number of threads).

    python bench/backbone_threads.py QUERY.fa REFERENCE.fa [--backend cupy] [--max-freq 20]
        [--threads 1 2 4 8 16] [--runs 3]

Prints a table; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gpu_kernels import chains as chains_module  # noqa: E402
from gpu_kernels.backbone import BIG_PAIR, backbone  # noqa: E402
from gpu_kernels.engine import compare  # noqa: E402
from gpu_kernels.params import Params  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query")
    parser.add_argument("reference")
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--max-freq", type=int, default=20)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    params = Params(preset="close", max_freq=args.max_freq)
    started = time.perf_counter()
    result = compare(args.query, args.reference, params, args.backend)
    seen = {}

    def spy(table, blocks, qlens, rlens, *rest, **named):  # the chains' table and blocks, as chaining hands them
        seen.update(table=table, blocks=blocks, qlens=np.asarray(qlens), rlens=np.asarray(rlens))
        return backbone(table, blocks, qlens, rlens, *rest, **named)

    chains_module.backbone = spy
    hsps, chain = result.hsps, chains_module.chain_hsps
    if args.backend == "cupy":  # chained on the device, as a compare job chains them
        import cupy

        hsps, chain = {name: cupy.asarray(column) for name, column in hsps.items()}, chains_module.chain_hsps_cupy
    chain(hsps, result.query.lengths, result.reference.lengths, params, ordered=True)
    table, blocks, qlens, rlens = seen["table"], seen["blocks"], seen["qlens"], seen["rlens"]
    print(f"{args.query} vs {args.reference}: {int(table['chain'].size)} chains of {int(blocks['chain'].size)} blocks "
          f"in {len(qlens)} x {len(rlens)} records ({time.perf_counter() - started:.1f} s to chain)")
    print(f"{'rounds':<44}{'threads':>8}{'best s':>10}{'kept':>8}")
    # big: a record pair of as many chains is taken by every thread (the default), else by one (2**62)
    for name, pairs, big in (("two (the default)", True, BIG_PAIR),
                             ("two, every record pair on one thread", True, 2**62),
                             ("one over every chain (the second's shape)", False, BIG_PAIR)):
        want = None
        for threads in args.threads:
            times = []
            for _ in range(args.runs):
                begun = time.perf_counter()
                got = backbone(table, blocks, qlens, rlens, pairs=pairs, threads=threads, big=big)
                times.append(time.perf_counter() - begun)
            want = got if want is None else want
            assert np.array_equal(got, want), f"{threads} threads chose other chains"
            print(f"{name:<44}{threads:>8}{min(times):>10.3f}{int(got.sum()):>8}")


if __name__ == "__main__":
    main()
