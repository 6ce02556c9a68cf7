"""Where a small pair's device turn goes: a set's first genomes aligned pair after pair in one
process, as a many-genomes row job does (pairs.align_loaded, placed and aligned on the host once
chained), timing each pair's turn (from its load to its device work done) and the host's part after
it, and profiling the turns' Python (cProfile, the functions with the most time).

    python bench/many_profile.py /tmp/set100 --genomes 12 --backend cupy
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time

import numpy as np
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from gpu_kernels.backend import get_backend  # noqa: E402
from gpu_kernels.engine import Loaded  # noqa: E402
from gpu_kernels.fasta import load_fasta  # noqa: E402
from gpu_kernels.pairs import align_loaded  # noqa: E402
from gpu_kernels.params import Params  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", help="a folder of bench/simulate_set.py (its genomes.yaml)")
    parser.add_argument("--genomes", type=int, default=12)
    parser.add_argument("--backend", default="cupy")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--host", action="store_true", help="profile the host's part after each turn instead")
    parser.add_argument("--synced", action="store_true",
                        help="each stage's time synchronized with the device (a row job's turns are not)")
    args = parser.parse_args()
    with open(os.path.join(args.set, "genomes.yaml")) as handle:
        listed = yaml.safe_load(handle)["genomes"]
    names = list(listed)[: args.genomes]
    seqsets = {name: load_fasta(listed[name] if isinstance(listed[name], str) else listed[name]["fasta"])
               for name in names}
    device, params = get_backend(args.backend), Params()
    ready = device.warm_up(params)
    pairs = [(names[j], names[i]) for j in range(len(names)) for i in range(j)]
    turns, hosts, profile = [], [], cProfile.Profile()
    with tempfile.TemporaryDirectory() as out:
        paths = {"alignments_paf": os.path.join(out, "a.paf"), "snps": os.path.join(out, "s.tsv")}
        for number, (q, r) in enumerate(pairs):
            start = time.perf_counter()
            done = []

            def device_done():
                device.synchronize()
                if number:
                    profile.disable() if not args.host else profile.enable()
                done.append(time.perf_counter())

            loaded = Loaded(seqsets[q], seqsets[r], device, ready, {}, start, synced_times=args.synced)
            ready = None
            if number and not args.host:  # the first pair's turn holds the kernels' compilation
                profile.enable()
            align_loaded(loaded, params, paths, device_done=device_done, host_after_hsps=True)
            if number:
                profile.disable()
                turns.append(done[0] - start)
                hosts.append(time.perf_counter() - done[0])
    bases = np.mean([seqsets[n].lengths.sum() for n in names]) / 1e6
    print(f"{len(turns)} pairs of {len(names)} genomes ({bases:.1f} Mbp on average), backend {device.name}: "
          f"turn {np.mean(turns) * 1e3:.1f} ms (median {np.median(turns) * 1e3:.1f}), "
          f"host after it {np.mean(hosts) * 1e3:.1f} ms a pair")
    stats = pstats.Stats(profile)
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
