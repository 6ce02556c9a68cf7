"""Where a compare job's share (workflow/shares.make_share) spends its time on each backend: a drawn HSP
table shaped like a close 2 x 3 Gbp pair's compare job (a 0.5 Gbp query bin of 4 records against 0.94 Gbp
of 8 reference records, about 13 M HSPs in chains), each step of make_share timed (the device synchronized
at each mark), then make_share whole.

    python bench/studies/share_profile.py [--hsps 13000000] [--backend cupy]

With --merge FOLDER: 28 shares drawn on the host into FOLDER (7 query bins of 4 records against 4 groups of 6
reference records, --hsps each, --repeats of them off the diagonal, as repeat copies lie), then
hsp_coverage's merge of them (shares.merge_shares, best of two), and a digest of what it gives.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from gpu_kernels.coverage import TableCoverage  # noqa: E402
from gpu_kernels.workflow import shares  # noqa: E402
from gpu_kernels.workflow.dots import HTML_LINES, max_cells  # noqa: E402
from gpu_kernels.workflow.gather import best_pairs  # noqa: E402


def drawn(n: int, qlens: np.ndarray, rlens: np.ndarray, seed: int = 1) -> dict:
    """HSPs along the diagonal of their record pairs (mostly the pair of the same index), in the canonical
    order (record pair, strand, query start)."""
    rng = np.random.default_rng(seed)
    qrec = np.sort(rng.integers(0, qlens.size, n))
    rrec = np.where(rng.random(n) < 0.8, qrec % rlens.size, rng.integers(0, rlens.size, n))
    strand = (rng.random(n) < 0.5).astype(np.int8)
    length = rng.integers(32, 2000, n)
    qstart = (rng.random(n) * (qlens[qrec] - length)).astype(np.int64)
    rstart = np.minimum(qstart, rlens[rrec] - length)
    order = np.lexsort((qstart, strand, rrec, qrec))
    table = {"qrec": qrec.astype(np.int32), "rrec": rrec.astype(np.int32), "strand": strand, "qstart": qstart,
             "qend": qstart + length, "rstart": rstart, "identities": (length * 0.97).astype(np.int64)}
    return {name: column[order] for name, column in table.items()}


def merge(folder: str, hsps: int, repeats: float) -> None:
    """The --merge study: 28 drawn shares written to folder (once), then their merge timed."""
    import glob
    import hashlib
    import types

    qlens, rlens = np.full(28, 125_000_000, dtype=np.int64), np.full(24, 120_000_000, dtype=np.int64)
    os.makedirs(folder, exist_ok=True)
    for k in range(28):
        path = os.path.join(folder, f"s{k:02d}.npz")
        if not os.path.exists(path):
            table = drawn(hsps, qlens[:4], rlens[:6], seed=k)
            rng = np.random.default_rng(100 + k)
            off = rng.random(table["qstart"].size) < repeats
            length = table["qend"] - table["qstart"]
            table["rstart"] = np.where(off, (rng.random(off.size) * (rlens[0] - length)).astype(np.int64),
                                       table["rstart"])
            table["qrec"] = table["qrec"] + 4 * (k // 4)
            table["rrec"] = table["rrec"] + 6 * (k % 4)
            shares.save_share(path, shares.make_share(table, qlens, rlens, True, True, 20))
    query, reference = (types.SimpleNamespace(names=[str(i) for i in range(lengths.size)], lengths=lengths)
                        for lengths in (qlens, rlens))
    paths, best = sorted(glob.glob(os.path.join(folder, "s*.npz"))), float("inf")
    for _ in range(2):
        started = time.perf_counter()
        numbers, merged = shares.merge_shares(paths, query, reference, 20)
        best = min(best, time.perf_counter() - started)
    digest = hashlib.blake2b(digest_size=8)
    for name, array in sorted({**numbers, **{"share." + k: v for k, v in merged.items()}}.items()):
        digest.update(name.encode() + np.ascontiguousarray(array).tobytes())
    print(f"{len(paths)} shares of {hsps} HSPs ({repeats:.0%} off the diagonal): merged in {best:.2f} s (best of "
          f"2); {len(numbers) + len(merged)} arrays, digest {digest.hexdigest()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hsps", type=int, default=13_000_000)
    parser.add_argument("--backend", default="cupy", choices=("cupy", "numpy"))
    parser.add_argument("--merge", metavar="FOLDER", help="draw 28 shares there and time their merge")
    parser.add_argument("--repeats", type=float, default=0.6, help="--merge: the share of HSPs off the diagonal")
    args = parser.parse_args()
    if args.merge:
        merge(args.merge, args.hsps, args.repeats)
        return
    qlens = np.array([125_000_000] * 4, dtype=np.int64)
    rlens = np.array([117_000_000] * 8, dtype=np.int64)
    host = drawn(args.hsps, qlens, rlens)
    if args.backend == "cupy":
        import cupy as xp
    else:
        xp = np
    hsps = {name: xp.asarray(column) for name, column in host.items()}
    sync = (lambda: xp.cuda.Device().synchronize()) if xp is not np else (lambda: None)
    for attempt in ("first (kernels compiled or loaded)", "second"):
        marks, last = [], time.perf_counter()

        def mark(stage: str) -> None:
            nonlocal last
            sync()
            now = time.perf_counter()
            marks.append(f"{stage} {now - last:.3f} s")
            last = now

        coverage = TableCoverage(qlens.size, rlens.size, xp)
        coverage.add(hsps)
        mark("coverage.add")
        share = shares.coverage_state(coverage)
        mark("coverage_state")
        rows = xp.arange(hsps["qstart"].size)
        lines, rest = shares._lines_and_rest(hsps, rows, HTML_LINES)
        mark("lines")
        cells = shares._whole_cells(xp, hsps, rest, qlens, rlens)
        mark("whole cells")
        max_cells(*cells)
        mark("max_cells")
        keys, _, per_pair, _ = coverage.pairs()
        mark("coverage.pairs")
        qindex, rindex = np.divmod(keys, rlens.size)
        best = best_pairs({"qindex": qindex, "rindex": rindex, "query_both": per_pair["query"]["both"]}, 50,
                          rlens.size)
        ended = shares._pairs_dots(hsps, best, qlens, rlens)
        mark(f"pair dots ({len(best)}) on the device")
        ended()
        mark("their Dots on the host")
        started = time.perf_counter()
        shares.make_share(hsps, qlens, rlens, True, True, 50)
        sync()
        print(f"{args.backend}, {args.hsps} HSPs, {attempt}: " + ", ".join(marks) +
              f"; make_share {time.perf_counter() - started:.3f} s")


if __name__ == "__main__":
    main()
