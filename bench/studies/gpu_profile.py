"""Where the GPU time goes inside the seed and HSP stages: each step of one strand, timed alone.

    python bench/studies/gpu_profile.py A.fa B.fa

Each step runs once for warm-up, then three times; the median is printed (CUDA events).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)



def timed(name: str, fn):
    """Run fn four times; print the median of the last three; return its last result."""
    import cupy as cp

    out = fn()
    times = []
    for _ in range(3):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        out = fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    print(f"  {name:<28} {statistics.median(times):8.2f} ms")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query", help="query FASTA")
    parser.add_argument("reference", help="reference FASTA")
    args = parser.parse_args()
    import cupy as cp

    from gpu_kernels import Params
    from gpu_kernels import hsps as H
    from gpu_kernels.backend import CupyBackend
    from gpu_kernels.diagonals import decode_keys, filter_keys, key_width
    from gpu_kernels.fasta import load_pair
    from gpu_kernels.seeds import seed_group_index, seed_groups

    backend = CupyBackend()
    params = Params()
    k = params.seeding.k
    q, r = load_pair(args.query, args.reference)
    q.codes, r.codes = backend.to_device(q.codes), backend.to_device(r.codes)
    print(f"query {q.total:,} codes, reference {r.total:,} codes")
    wq = timed("words (query)", lambda: backend.words(q.codes, k))
    wr = timed("words (reference)", lambda: backend.words(r.codes, k))
    timed("seed_groups (generic CuPy)", lambda: seed_groups(wq[0], wr[0]))
    groups = timed("seed_groups (kernel)", lambda: backend.seed_groups(wq[0], wr[0]))
    timed("seed_group_index", lambda: seed_group_index(groups))
    width = key_width(q.total, k)
    keys = timed("seed_keys (kernel + sort)", lambda: backend.seed_keys(groups, wq[1], wr[1], r.total, width))
    print(f"  {keys.size:,} seeds")
    kept = timed("filter_keys", lambda: filter_keys(keys, k))
    sq, sr = timed("decode_keys", lambda: decode_keys(kept, r.total, width))
    print(f"  {sq.size:,} kept seeds")
    qs, qe, sc, ids = timed("extend", lambda: backend.extend(q.codes, r.codes, sq, sr, k, params.extension))
    raw = {"qstart": qs, "qend": qe, "rstart": sr - (sq - qs), "rend": sr + (qe - sq), "score": sc, "identities": ids}
    mask = timed("passes", lambda: H.passes(raw, params.reporting.min_len, params.extension.min_identity))
    raw = timed("take", lambda: H.take(raw, mask))
    diag = raw["qstart"] - raw["rstart"]
    timed("sort_order", lambda: H.sort_order(diag, raw["qstart"], raw["qend"]))
    final = timed("drop_contained", lambda: backend.drop_contained(dict(raw)))  # it reorders its table in place
    print(f"  {final['qstart'].size:,} HSPs")
    timed("to host, pageable (6 columns)", lambda: {n: cp.asnumpy(c) for n, c in final.items()})
    timed("to host, pinned (6 columns)", lambda: {n: backend.to_host(c) for n, c in final.items()})


if __name__ == "__main__":
    main()
