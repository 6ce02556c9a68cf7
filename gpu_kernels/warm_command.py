"""The warm command (`gpu-genome-compare warm`): every kernel a GPU run compiles, compiled once into
CuPy's kernel cache, on a small simulated pair (warm_pair), a workflow compare job's share
(workflow/shares.rehearse_share) and the chains' stage on a table past 2 GB a column (warm.rehearse_large_chains)."""
from __future__ import annotations

import sys
import time

import numpy as np

from .backend import get_backend
from .encode import COMPLEMENT
from .warm import rehearse_large_chains

BASES = np.frombuffer(b"ACGT", dtype=np.uint8)  # a code's letter


def warm_pair(directory: str, length: int = 1 << 21, prefix: str = "") -> tuple[str, str]:
    """Two FASTA files in directory: a random reference of two records and a query descended from it
    (substitutions, small indels, an inverted stretch and a stretch moved to the other record), so
    that every stage of align has work: chains on both strands, fills, splits, ends, variants."""
    rng = np.random.default_rng(5)
    records = [rng.integers(0, 4, length // 2, dtype=np.uint8) for _ in range(2)]
    families = [rng.integers(0, 4, 400, dtype=np.uint8) for _ in range(8)]
    for record in records:  # interspersed repeats: hundreds of thousands of HSPs, as real genomes give
        for at in rng.choice(record.size - 400, record.size // 2000, replace=False):
            copy = families[int(rng.integers(len(families)))].copy()
            hit = rng.random(copy.size) < 0.04
            copy[hit] = rng.integers(0, 4, int(hit.sum()), dtype=np.uint8)
            record[at:at + copy.size] = copy
    query = []
    for record in records:
        seq = record.copy()
        hit = rng.random(seq.size) < 0.02
        seq[hit] = (seq[hit] + rng.integers(1, 4, int(hit.sum()), dtype=np.uint8)) % 4
        keep = rng.random(seq.size) > 0.002
        seq = seq[keep]
        mid = seq.size // 2
        seq[mid:mid + 20_000] = COMPLEMENT[seq[mid:mid + 20_000][::-1]]  # an inversion
        query.append(seq)
    moved = query[0][100_000:130_000].copy()
    query[0] = np.concatenate((query[0][:100_000], query[0][130_000:]))
    query[1] = np.concatenate((query[1][:50_000], moved, query[1][50_000:]))
    paths = []
    for name, seqs in (("query", query), ("reference", records)):
        path = f"{directory}/{prefix}{name}.fa"
        with open(path, "wb") as handle:
            for k, seq in enumerate(seqs):
                handle.write(b">%s%d\n%s\n" % (name.encode(), k + 1, BASES[seq].tobytes()))
        paths.append(path)
    return paths[0], paths[1]


def run_warm(args, main, share_rehearsal=None) -> int:
    """`gpu-genome-compare warm`: align (every output), compare and mems run once on the GPU on a small
    simulated pair (warm_pair), so that CuPy compiles the kernels of every stage into its kernel cache
    (~/.cupy/kernel_cache, or CUPY_CACHE_DIR): a fresh machine's or container's first comparison then
    loads them instead of compiling them one by one. main: the command line's (its commands run);
    share_rehearsal: the workflow's (shares.rehearse_share, called with the backend)."""
    import tempfile

    from .device import gpu_available

    if not gpu_available():
        print("error: warm: CuPy finds no CUDA device (the CPU backend compiles nothing when it runs)",
              file=sys.stderr)
        return 2
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gpu-genome-compare-warm-") as tmp:
        query, reference = warm_pair(tmp)
        outputs = {"-o": "a.paf", "--sam": "a.sam", "--delta": "a.delta", "--snps": "a.snps", "--vcf": "a.vcf",
                   "--table": "a.parquet", "--hsps": "h.parquet", "--chains": "c.paf", "--chain-file": "c.chain",
                   "--chains-table": "c.parquet"}
        runs = [["align", query, reference, "--backend", "cupy",
                 *[x for option, name in outputs.items() for x in (option, f"{tmp}/{name}")]],
                ["align", query, reference, "--backend", "cupy", "--secondary", "-o", f"{tmp}/s.paf"],
                ["compare", query, reference, "--backend", "cupy", "-o", f"{tmp}/h.paf"],
                ["mems", query, reference, "--backend", "cupy", "-o", f"{tmp}/m.txt"],
                ["mums", query, reference, "--backend", "cupy", "-o", f"{tmp}/u.txt"]]
        small = warm_pair(tmp, 1 << 18, "small")  # reductions over few rows compile kernels of their own
        runs += [["align", *small, "--backend", "cupy", *[x for option, name in outputs.items()
                                                           for x in (option, f"{tmp}/small_{name}")]]]
        for argv in runs:
            status = main(argv)
            if status:
                print(f"error: warm: {argv[0]} on the warm-up pair exited with status {status}", file=sys.stderr)
                return status
    backend = get_backend("cupy")
    if share_rehearsal is not None:  # a workflow compare job's share, which none of the commands above makes
        share_rehearsal(backend)
    try:
        rehearse_large_chains(backend)
    except backend.xp.cuda.memory.OutOfMemoryError:  # a smaller GPU: a first whole-genome run compiles these
        print("warm: too little device memory to rehearse the chains of a chromosome-sized HSP table",
              file=sys.stderr)
    finally:
        backend.xp.get_default_memory_pool().free_all_blocks()
    font_cache()
    print(f"kernels compiled and cached in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


def font_cache() -> None:
    """matplotlib's font list built and saved (once a machine, in its cache folder), which the workflow's
    first pictures would otherwise build in their job (1.6 s of a whole-genome run's last job)."""
    import matplotlib.font_manager  # noqa: F401 (the list is built and saved as the module loads)
