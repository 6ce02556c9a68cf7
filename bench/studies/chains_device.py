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
    from gpu_kernels.chains import chain_hsps, chain_hsps_cupy

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
    kept, best, pred, component, hbest, hpred, cols = dp_both(table, rlens, params)
    has = hpred >= 0
    bad = np.flatnonzero((hbest != best) | (hpred != pred))
    print(f"DP: {bad.size} of {kept.size} HSPs a chain can hold differ in best or predecessor; "
          f"{int(component.max(initial=-1)) + 1} components; "
          f"host links across device components: {int((component[hpred[has]] != component[has]).sum())}")
    for i in bad[:5]:
        print(f"  HSP {i} (x {cols[0][i]}-{cols[1][i]}, y {cols[2][i]}-{cols[3][i]}): host best {hbest[i]} "
              f"pred {hpred[i]}, device best {best[i]} pred {pred[i]}, component {component[i]}")
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


def dp_both(table: dict, rlens, params) -> tuple:
    """The device's DP (component_dp) and the host's (chain_dp) over the HSPs a chain can hold: (kept,
    device best, pred and component, host best and pred, their x, xe, y, ye), on the host."""
    import cupy as cp

    from gpu_kernels.chains import chain_coords, chain_dp, component_dp
    from gpu_kernels.hsps import complete

    h = complete(table)
    x, xe, y, ye = chain_coords(h, rlens)
    group = (h["qrec"].astype(cp.int64) * max(1, len(rlens)) + h["rrec"]) * 2 + h["strand"]
    bucket = cp.floor_divide(x - y, params.chaining.max_shift)
    kept, best, pred, component, _, _ = component_dp(x, xe, y, ye, h["score"], group, bucket, params)
    cols = [cp.asnumpy(v[kept]) for v in (x, xe, y, ye, group, bucket)]
    score = cp.asnumpy(h["score"][kept]).astype(np.int64)
    hbest, hpred, _ = chain_dp(*cols[:4], score, cols[4], cols[5], params)
    return (cp.asnumpy(kept), cp.asnumpy(best), cp.asnumpy(pred), cp.asnumpy(component), hbest, hpred, cols[:4])

if __name__ == "__main__":
    main()
