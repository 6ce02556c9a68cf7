"""GPU benchmark: simulated pairs end to end (FASTA in, Parquet HSP table out), with a floor per stage.

    python bench/gpu_pair.py --sizes 5 50 150 --heavy 150 [--runs 3] [--budget-check]

--sizes are pairs of the `young` repeat model, --heavy pairs of the repeat-rich `heavy` model
(bench/simulate.py). The stage table includes everything after extension (`hsps`: records,
deduplication, order, coverage on the device) and the Parquet write (`write`).

Ceilings are measured first in the same run (device copy bandwidth, uint64 radix sort and
argsort rates); each stage's floor is its items over the sort rate plus its bytes over the copy
bandwidth. Times are medians of --runs runs after a warm-up; stage times come from the engine's
synchronized timers around each stage.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

try:
    import cupy as cp
    import cupyx
except ImportError:  # --help works without CuPy; a run needs it
    cp = cupyx = None

from gpu_kernels import Params, compare  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from simulate import heavy_pair, simulate_pair, write_fasta  # noqa: E402

STAGES = ("load", "words", "seeds", "diagonals", "extend", "hsps", "write")


def timed(fn, repeat: int = 5) -> float:
    """Median seconds of fn() with CUDA events, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return statistics.median(times)


def copy_rates(nbytes: int = 1 << 30) -> tuple[float, float]:
    """(device copy bytes read + written per second, device to pinned host bytes per second)."""
    src = cp.empty(nbytes, dtype=cp.uint8)
    dst = cp.empty_like(src)
    host = cupyx.empty_pinned(src.shape, src.dtype)
    copy = timed(lambda: dst.__setitem__(slice(None), src))
    d2h = timed(lambda: src.get(out=host), 3)
    return 2 * nbytes / copy, nbytes / d2h


def sort_rates(n: int = 200_000_000) -> tuple[float, float]:
    """(uint64 sort keys per second, uint64 argsort keys per second)."""
    keys = cp.random.randint(0, 2**62, size=n, dtype=cp.int64).astype(cp.uint64)
    return n / timed(lambda: cp.sort(keys), 3), n / timed(lambda: cp.argsort(keys), 3)


def ceilings() -> dict:
    """The ceilings the floors are computed from, measured now."""
    copy, d2h = copy_rates()
    sort, argsort = sort_rates()
    cp.get_default_memory_pool().free_all_blocks()
    return {"copy_Bps": copy, "sort_kps": sort, "argsort_kps": argsort, "d2h_Bps": d2h}


def floors(stats: dict, bases: int, ceil: dict) -> dict:
    """Lower bounds per stage from the counts of one run."""
    bw, sort, argsort = ceil["copy_Bps"], ceil["sort_kps"], ceil["argsort_kps"]
    words, seeds, kept = stats["words"], stats["seeds"], stats["kept_seeds"]
    hsps = stats["hsps"]
    # words: read codes, write keys + valid flags (9 B a window), gather 16 B a word, argsort the words
    # (three sequences: query, reference forward and reverse)
    return {
        "load": bases * 2 / 25e9,  # host to device over PCIe at a nominal 25 GB/s
        "words": words / argsort + (10 * bases * 1.5 + 32 * words) / bw,
        "seeds": seeds / sort + 16 * seeds / bw,
        "diagonals": (8 * seeds + 16 * kept) / bw,
        "extend": 2 * stats.get("hsp_bases", 0) / bw,  # every reported HSP base read once on each sequence
        # two stable argsorts of the walked seeds' HSPs (deduplication) and two of the HSPs (order)
        "hsps": 2 * stats.get("extended_seeds", hsps) / argsort + 2 * hsps / argsort,
        "write": 62 * hsps / ceil["d2h_Bps"],  # the columns back to the host (encoding not counted)
    }


def run_once(qa: str, qb: str, out: str, params: Params) -> tuple[float, dict]:
    """End to end: FASTA in, Parquet HSP table out; returns wall seconds and the engine's stats."""
    start = time.perf_counter()
    result = compare(qa, qb, params, backend="cupy")
    mid = time.perf_counter()
    result.write_parquet(out)
    stats = dict(result.stats, write_s=time.perf_counter() - mid)
    return time.perf_counter() - start, stats


def make_pair(model: str, size: float, workdir: str, args) -> tuple[str, str]:
    """The FASTA files of a simulated pair of `size` Mbp a side."""
    qa = os.path.join(workdir, f"{model}_{size:g}_a.fa")  # the names bench/hsp_path.py uses: shared
    qb = os.path.join(workdir, f"{model}_{size:g}_b.fa")
    if os.path.exists(qa) and os.path.exists(qb):
        return qa, qb
    if model == "heavy":
        first, second, first_mask, second_mask = heavy_pair(int(size * 1e6), 1, seed=11)
    else:
        first, second = simulate_pair(int(size * 1e6), 1, seed=11, repeat_divergence=args.repeat_divergence,
                                      repeat_fraction=args.repeat_fraction)
        first_mask = second_mask = None
    write_fasta(qa, ["chr1"], first, first_mask)
    write_fasta(qb, ["chr1"], second, second_mask)
    return qa, qb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="*", default=[5, 50, 150], help="Mbp per genome, young model")
    parser.add_argument("--heavy", type=float, nargs="*", default=[150], help="Mbp per genome, heavy model")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--budget-check", action="store_true", help="also run the largest pair with a 4 GB budget")
    parser.add_argument("--workdir", default=tempfile.gettempdir())
    parser.add_argument("--repeat-divergence", type=float, default=0.03,
                        help="repeat copies' divergence from their family (young repeats: many seeds)")
    parser.add_argument("--repeat-fraction", type=float, default=0.2, help="fraction of each genome in repeat copies")
    args = parser.parse_args()
    params = Params(k=32, min_len=64, min_identity=80)
    print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, CuPy {cp.__version__}")
    ceil = ceilings()
    print(f"ceilings: copy {ceil['copy_Bps'] / 1e12:.2f} TB/s, sort {ceil['sort_kps'] / 1e9:.2f} G keys/s, "
          f"argsort {ceil['argsort_kps'] / 1e9:.2f} G keys/s, device to pinned host {ceil['d2h_Bps'] / 1e9:.1f} GB/s")
    rows = []
    warm = False
    cases = [("young", size) for size in args.sizes] + [("heavy", size) for size in args.heavy]
    for model, size in cases:
        t0 = time.perf_counter()
        qa, qb = make_pair(model, size, args.workdir, args)
        print(f"simulated {model} {size:g} Mbp pair in {time.perf_counter() - t0:.1f} s", flush=True)
        out = os.path.join(args.workdir, f"gpu_{model}_{size:g}.parquet")
        if not warm:
            run_once(qa, qb, out, params)
            warm = True
        runs = [run_once(qa, qb, out, params) for _ in range(args.runs)]
        wall = statistics.median(w for w, _ in runs)
        stats = runs[0][1]
        stage = {s: statistics.median(r[1].get(f"{s}_s", 0.0) for r in runs) for s in STAGES}
        floor = floors(stats, int(2 * size * 1e6), ceil)
        rows.append((f"{model} {size:g}", wall, stats, stage, floor, os.path.getsize(out)))
        if args.budget_check and (model, size) == cases[-1]:
            small = Params(k=32, min_len=64, min_identity=80, tile_bytes=4 << 30)
            w4, s4 = run_once(qa, qb, out + ".4g.parquet", small)
            same = pq.read_table(out).equals(pq.read_table(out + ".4g.parquet"))
            print(f"4 GB budget: {s4['tiles']} tiles (unlimited: {stats['tiles']}), {w4:.2f} s, same HSPs: {same}")
    for size, wall, stats, stage, floor, nbytes in rows:
        print(f"\n{size} Mbp pair: wall {wall:.2f} s end to end, {stats['hsps']:,} HSPs "
              f"({stats['hsps_forward']:,} forward), {nbytes / 1e6:.0f} MB out, {stats['tiles']} tiles")
        print(f"  {'stage':<10} {'time s':>8} {'floor s':>8} {'x floor':>8}  items")
        items = {"words": f"{stats['words']:,} words", "seeds": f"{stats['seeds']:,} seeds",
                 "diagonals": f"{stats['kept_seeds']:,} kept seeds",
                 "extend": f"{stats.get('extended_seeds', 0):,} seeds walked",
                 "hsps": f"{stats['hsps']:,} HSPs"}
        for s in STAGES:
            ratio = stage[s] / floor[s] if floor[s] else float("nan")
            print(f"  {s:<10} {stage[s]:8.3f} {floor[s]:8.3f} {ratio:8.1f}  {items.get(s, '')}")
        gpu = sum(stage[s] for s in STAGES if s not in ("load", "write"))
        fl = sum(floor[s] for s in STAGES if s not in ("load", "write"))
        print(f"  {'GPU sum':<10} {gpu:8.3f} {fl:8.3f} {gpu / fl:8.1f}")


if __name__ == "__main__":
    main()
