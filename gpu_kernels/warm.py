"""CuPy's kernels made ready before a comparison's first stage, several at once.

Our own kernels (the .cu files) are built at install and only loaded. CuPy's (its sorts' helpers,
scans, reductions, casts) are compiled by NVRTC the first time a stage calls each one, one after
another on the comparing thread: about 25 of them, a tenth of a second each, on a fresh machine
(bench/kernel_compile.py lists them and their callers). Here every GPU stage of compare and of the
Parquet write runs once on a small input, the stages on threads at once, while the caller reads its
FASTA files: the compilations then overlap (on the 150 Mbp pair a fresh machine's compare took
6.8 s with them and 8.2 s without). With CuPy's kernel cache filled they are only loaded from it.

CuPy compiles a kernel again for arrays past 2 GB (64-bit indexing), which no small input can
rehearse: the engine's steps on whole HSP tables and seed lists use kernels built at install
(select.cu, scan.cu, hsps.cu) rather than CuPy's array operations for that reason too.

Each rehearsal calls the stage functions compare calls, with the types compare gives them.
tests/test_gpu.py checks, in a fresh process, that a comparison and its Parquet write after the
rehearsals load no kernel of CuPy's that the rehearsals did not.
"""
from __future__ import annotations

import functools
import logging
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import hsps as H
from .diagonals import key_width
from .encode import GAP
from .pages import table_pages
from .params import Params
from .seeds import count_seeds
from .seqset import make_seqset, reverse_complement
from .spaced import seed_pattern, spaced_index, spaced_raw
from .words import drop_frequent, words

log = logging.getLogger(__name__)

# Bases of the rehearsals' sequence and rows of their HSP tables: enough blocks that CuPy's scans and
# reductions take the branches (a second and third level of block sums) they take on real inputs,
# still a few milliseconds of device time.
SIZE = 1 << 19
ROWS = 1 << 18
EXTEND_SIZE = 4096  # the extension's own sequence: identical copies are walked to their ends
SPACED_SIZE = 1 << 16  # the spaced seeds' own: its random seeds against itself, a few thousand, kept few


@functools.lru_cache(maxsize=None)
def _seqset(size: int = SIZE):
    """One record of random bases (codes 0-3), the same at every call, laid out as compare lays out
    its input: BORDER codes around it, on which the extension stops."""
    return make_seqset(["a"], [np.random.default_rng(7).integers(0, 4, size, dtype=np.uint8)])


def _raw(xp) -> dict:
    """_raw_columns on module xp's device, as a RAW table."""
    return {name: xp.asarray(column) for name, column in zip(H.HSP.view("raw"), _raw_columns())}


@functools.lru_cache(maxsize=None)
def _raw_columns() -> tuple:
    """The columns (RAW, int64, read-only: every rehearsal shares them) of a raw HSP table of ROWS
    HSPs on a few thousand diagonals (many inside others), all inside the rehearsal sequence's record
    (it starts after GAP border codes)."""
    rng = np.random.default_rng(11)
    length = rng.integers(40, 400, ROWS)
    qstart = GAP + rng.integers(0, SIZE - 400, ROWS)
    diagonal = rng.integers(-SIZE // 8, SIZE // 8, ROWS) // 64 * 64
    rstart = np.clip(qstart - diagonal, GAP, GAP + SIZE - 400)
    columns = (qstart, qstart + length, rstart, rstart + length, length, length)
    for column in columns:
        column.setflags(write=False)
    return columns


def _records(backend) -> tuple:
    """A one-record query and reference (the rehearsal sequence) and a final table of both strands."""
    seqs = _seqset()
    raw = _raw(backend.xp)
    tables = [backend.to_records(raw, strand, seqs, seqs) for strand in (0, 1)]
    return seqs, H.concat(tables, H.HSP.stored, backend.xp)


def rehearse_words(backend, params: Params) -> None:
    """words, a tile's words, the reverse strand (and drop_frequent in fast mode)."""
    codes = backend.to_device(_seqset().codes)
    keys, pos = backend.words(codes, params.seeding.k)
    backend.words_in(keys, pos, SIZE // 4, SIZE // 2, int(codes.size))
    if params.seeding.max_freq:
        drop_frequent(keys, pos, np.zeros(1, dtype=np.int64), params.seeding.max_freq)
    reverse_complement(codes)


def rehearse_seeds(backend, params: Params) -> None:
    """Seed groups, their count, the sorted seed keys, the kept seeds (words made on the host, as the
    device makes them: positions int64)."""
    k = params.seeding.k
    total = _seqset().total
    keys, pos = words(_seqset().codes, k)
    keys, pos = backend.to_device(keys), backend.to_device(pos.astype(np.int64))
    groups = backend.seed_groups(keys, keys)
    count_seeds(groups)
    width = key_width(total, k)
    backend.kept_seeds(backend.seed_keys(groups, pos, pos, total, width), k, 0, 0, total, width)


def rehearse_extend(backend, params: Params) -> None:
    """Extension and the HSPs that pass."""
    codes = backend.to_device(_seqset(EXTEND_SIZE).codes)
    seeds = backend.to_device(GAP + np.arange(0, EXTEND_SIZE - 100, 100, dtype=np.int64))
    qstart, qend, score, ids = backend.extend(codes, codes, seeds, seeds, params.seeding.k, params.extension)
    backend.passing(qstart, qend, score, ids, seeds, seeds, params.reporting.min_len, params.extension.min_identity)


def rehearse_spaced(backend, params: Params) -> None:
    """Spaced seeds (where the parameters take them: the distant preset): the reference index, the
    windows' seeds counted and written, extended, the HSPs kept, as engine.search_spaced calls them
    (which this module may not import: the engine's backend starts the rehearsals)."""
    seeding, extension = params.seeding, params.extension
    if seeding.seed == "exact":
        return
    care, span = seed_pattern(seeding.seed)
    codes = backend.to_device(_seqset(SPACED_SIZE).codes)
    made = backend.spaced_words(codes, care, span)
    index = spaced_index(*drop_frequent(*made, np.zeros(1, dtype=np.int64), seeding.max_freq), care)
    n, transition = int(codes.size), bool(seeding.transitions)
    xp = backend.xp
    ends = xp.cumsum(backend.spaced_counts(codes, 0, n, care, span, transition, index))
    offsets = xp.concatenate((xp.zeros(1, dtype=xp.int64), ends))
    sq, sr = backend.spaced_fill(codes, 0, n, care, span, transition, index, offsets)
    hsp = backend.spaced_extend(codes, codes, (codes, codes), sq, sr, care, span, transition, index,
                                extension.hsp_xdrop, bool(extension.entropy))
    backend.drop_contained(spaced_raw(*hsp, sq, sr, extension.hsp_threshold))


def rehearse_deduplicate(backend, params: Params) -> None:
    """Raw tables of two tiles joined and deduplicated."""
    backend.drop_contained(H.concat([_raw(backend.xp), _raw(backend.xp)], H.HSP.view("raw")))


def rehearse_order(backend, params: Params) -> None:
    """Record coordinates of both strands, joined, in the canonical order."""
    _, table = _records(backend)
    H.sort_rows(table, 1, 1)


def rehearse_summary(backend, params: Params) -> None:
    """The final table's counts (coverage by union of intervals)."""
    _, table = _records(backend)
    H.summarize(table, 1, backend)


def rehearse_write(backend, params: Params) -> None:
    """The Parquet write's pages of a slice: full row groups and a short last one."""
    _, table = _records(backend)
    table_pages({name: column[1:] for name, column in table.items()}, backend, ROWS // 4)


def _on_device(device: int | None, run, backend, params: Params) -> None:
    if device is None:
        run(backend, params)
        return
    with backend.xp.cuda.Device(device):
        run(backend, params)


REHEARSALS = (rehearse_words, rehearse_seeds, rehearse_extend, rehearse_spaced, rehearse_deduplicate, rehearse_order,
              rehearse_summary, rehearse_write)


def rehearse(backend, params: Params | None = None, device: int | None = None) -> float:
    """Every rehearsal, each on its own thread (on this CUDA device, where one is given: a thread
    starts on device 0); returns the seconds taken. An error of one is raised."""
    params = params or Params()
    start = time.perf_counter()
    with ThreadPoolExecutor(len(REHEARSALS), thread_name_prefix="rehearse") as pool:
        for future in [pool.submit(_on_device, device, run, backend, params) for run in REHEARSALS]:
            future.result()
    took = time.perf_counter() - start
    log.debug("kernels ready in %.2f s", took)
    return took


def rehearsal_records(backend) -> tuple[np.ndarray, dict]:
    """(the record lengths, the final table) of the rehearsals: a one-record pair's HSPs of both strands, as
    compare gives them, on the backend's device (workflow/shares.rehearse_share's input)."""
    seqs, table = _records(backend)
    return np.asarray(seqs.lengths, dtype=np.int64), table


# ---------------------------------------------------------------------------------------------
# The chains of a chromosome-sized table, for the warm command (warm_command.py)


def rehearse_large_chains(backend, params: Params | None = None, least_rows: int = 1 << 28) -> int:
    """The chains' device stage on a table whose int64 columns pass 2 GB, as a chromosome pair's do
    (the 150 Mbp pair's 363 M HSPs): CuPy compiles its array operations again for arrays that large
    (64-bit indexing), about 30 kernels and 2 s on a fresh machine. The rehearsal table (_records,
    sorted), then least_rows HSPs on a second query record, each too far from the next to link and
    scoring too little to chain alone: every row passes the stages that read the whole table, and
    the chains are the rehearsal table's. About 20 GB of device memory for a moment. Returns the
    chains made."""
    cp = backend.xp
    params = params or Params()
    seqs, table = _records(backend)
    table = H.sort_rows(table, 1, 1)
    spread = 2 * params.chaining.max_gap + 100
    at = cp.arange(least_rows, dtype=cp.int64) * spread
    lone = {"qrec": 1, "rrec": 0, "qstart": at, "qend": at + 50, "rstart": at, "strand": 0, "score": 1,
            "identities": 50}
    big = {}
    for name, column in table.items():
        extra = cp.empty(least_rows, dtype=column.dtype)
        extra[...] = lone[name]
        big[name] = cp.concatenate((column, extra))
        del extra
    del table, at
    span = least_rows * spread + spread
    chains, _, _ = backend.chain_hsps(big, np.array([seqs.lengths[0], span]), np.array([span]), params, ordered=True)
    backend.synchronize()
    return int(np.asarray(chains["qrec"]).size)
