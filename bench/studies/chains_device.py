"""The device chainer against the host one on a simulated heavy pair (a GPU machine): the chains,
and where they differ, the DP's best and predecessor of the first HSP that differs.

    python bench/studies/chains_device.py [--size 30] [--workdir /tmp/cd]

Prints what it finds; not a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from simulate import heavy_pair, write_fasta  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=30, help="Mbp a side")
    parser.add_argument("--workdir", default="/tmp/chains_device")
    args = parser.parse_args()
    import cupy as cp

    from gpu_kernels import Params, compare
    from gpu_kernels.arrays import to_host
    from gpu_kernels.chains import chain_coords, chain_dp, component_dp, chain_hsps, chain_hsps_cupy
    from gpu_kernels.hsps import complete

    a, b = (os.path.join(args.workdir, f"heavy_{args.size:g}_{side}.fa") for side in "ab")
    if not os.path.exists(b):
        first, second, fm, sm = heavy_pair(int(args.size * 1e6), 1, seed=11)
        write_fasta(a, ["a1"], first, fm)
        write_fasta(b, ["b1"], second, sm)
    result = compare(a, b, backend="cupy")
    params = Params()
    qlens, rlens = result.query.lengths, result.reference.lengths
    table = result.table
    print(f"{int(table['qstart'].size)} HSPs")
    h = complete(table)
    x, xe, y, ye = chain_coords(h, rlens)
    nr = max(1, len(rlens))
    group = (h["qrec"].astype(cp.int64) * nr + h["rrec"]) * 2 + h["strand"]
    bucket = cp.floor_divide(x - y, params.chaining.max_shift)
    kept, best, pred, component, starts, work = component_dp(x, xe, y, ye, h["score"], group, bucket, params)
    kept, best, pred, component = (cp.asnumpy(v) for v in (kept, best, pred, component))
    cols = [cp.asnumpy(v[cp.asarray(kept)]) for v in (x, xe, y, ye, group, bucket)]
    score = cp.asnumpy(h["score"])[kept].astype(np.int64)
    hbest, hpred, _ = chain_dp(*cols[:4], score, cols[4], cols[5], params)
    has = hpred >= 0
    print(f"host preds in another device component: {int((component[hpred[has]] != component[has]).sum())}; "
          f"device components in the DP order: {bool(np.all(np.diff(np.flatnonzero(has)) > 0))}")
    bad = np.flatnonzero((hbest != best) | (hpred != pred))
    print(f"{bad.size} of {kept.size} kept HSPs differ in best or pred; {int(starts.size) - 1} components")
    for i in bad[:3]:
        print(f"  i {i}: host {hbest[i]} {hpred[i]} device {best[i]} {pred[i]} component {component[i]} "
              f"size {int(np.count_nonzero(component == component[i]))}")
    start = time.perf_counter()
    got = chain_hsps_cupy(table, qlens, rlens, params, ordered=True)
    print(f"device: {got[0]['chain'].size} chains, {int(got[0]['backbone'].sum())} backbone, "
          f"{time.perf_counter() - start:.2f} s")
    host = {name: to_host(column) for name, column in table.items()}
    start = time.perf_counter()
    want = chain_hsps(host, qlens, rlens, params, ordered=True)
    print(f"host: {want[0]['chain'].size} chains, {int(want[0]['backbone'].sum())} backbone, "
          f"{time.perf_counter() - start:.2f} s")
    same = np.array_equal(cp.asnumpy(got[1]), want[1]) and all(np.array_equal(got[0][k], want[0][k]) for k in want[0])
    print("chains equal:", same)
    if same:
        return
    h = complete(table)
    x, xe, y, ye = chain_coords(h, rlens)
    nr = max(1, len(rlens))
    group = (h["qrec"].astype(cp.int64) * nr + h["rrec"]) * 2 + h["strand"]
    bucket = cp.floor_divide(x - y, params.chaining.max_shift)
    kept, best, pred, component, starts, work = component_dp(x, xe, y, ye, h["score"], group, bucket, params)
    kept, best, pred, component = (cp.asnumpy(v) for v in (kept, best, pred, component))
    cols = [cp.asnumpy(v[cp.asarray(kept)]) for v in (x, xe, y, ye, group, bucket)]
    score = cp.asnumpy(h["score"])[kept].astype(np.int64)
    hbest, hpred, _ = chain_dp(*cols[:4], score, cols[4], cols[5], params)
    bad = np.flatnonzero((hbest != best) | (hpred != pred))
    print(f"{bad.size} of {kept.size} kept HSPs differ in best or pred; {int(starts.size) - 1} components")
    for i in bad[:5]:
        p = hpred[i]
        print(f"  i {i}: host best {hbest[i]} pred {p}, device best {best[i]} pred {pred[i]}; "
              f"component {component[i]}, host pred's {component[p] if p >= 0 else None}; "
              f"x {cols[0][i]}-{cols[1][i]} y {cols[2][i]}-{cols[3][i]} bucket {cols[5][i]}")
        for who, p in (("host", hpred[i]), ("device", pred[i])):
            if p >= 0:
                dx, dy = cols[0][i] - cols[1][p], cols[2][i] - cols[3][p]
                print(f"     {who} pred {p}: x {cols[0][p]}-{cols[1][p]} y {cols[2][p]}-{cols[3][p]} bucket "
                      f"{cols[5][p]} component {component[p]} host best {hbest[p]} device best {best[p]}; "
                      f"dx {dx} dy {dy} group {cols[4][p]} vs {cols[4][i]}")
    across = (pred >= 0) & (component[np.maximum(pred, 0)] != component)
    print(f"device preds in another component: {int(across.sum())}; device preds after their HSP: "
          f"{int((pred >= np.arange(pred.size)).sum())}")


if __name__ == "__main__":
    main()
