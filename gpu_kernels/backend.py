"""Backends: which twin of each stage one comparison runs, chosen once by get_backend.

Every stage module holds a NumPy function and its CuPy twin (`words` and `words_cupy`, same
signature, same result columns). A backend is the table of the twins it runs plus the few things
that differ by device: copies, memory budget, out-of-memory errors, synchronization. Nothing
else in the engine asks which backend it runs on.
"""
from __future__ import annotations

import contextlib
import logging
import os
import threading
import time

import numpy as np

from . import align, arrays, chains, coverage, device, diagonals, extend, fasta, hsps, matches, matches_runs, pages, placement, seeds, spaced, words
from .device import PinnedRing, early_context, gpu_available  # noqa: F401  (the command line and the workflow take them from here)
from .errors import InputError

# (device, parameters) pairs whose rehearsals this process has run (CupyBackend.warm_up)
_REHEARSED: set = set()

log = logging.getLogger(__name__)

# Bytes a seed occupies while a tile is processed: on the CPU positions, group indices and the
# diagonal key; on the GPU the group index and its markers (8), the key (8), the radix sort's
# buffers (16), the filter mask and compaction (9).
CPU_SEED_BYTES = 48
GPU_SEED_BYTES = 48
# Bytes a row's delta-encoded pages take, guessed before the table is encoded (about 9-10 on heavy
# pairs), and the smallest table whose pinned buffers are readied ahead of its write.
PAGE_BYTES_GUESS = 12
PREPIN_MIN_ROWS = 1 << 20
# Bytes a reference base takes at most while the exact-match modes build its words: on the CPU keys
# and positions (16) and the radix sort's copies (16), the codes and slack; on the GPU keys, symbols
# before and positions, their stable sorts' orders and buffers (about 65), the codes and slack.
CPU_MATCH_BYTES = 40
GPU_MATCH_BYTES = 72


class NumpyBackend:
    """Every stage on the host with NumPy."""

    name = "numpy"
    xp = np
    # Seeds filtered and extended as they are enumerated (seeds.SeedHsps), never stored: no tiles.
    seeds_fused = True
    # Parquet pages encoded where the table lives (pages.py) rather than by pyarrow on the host
    encodes_pages = False
    on_host = True  # computes on the host: host buffers may be kept from one word set to the next
    oom_errors: tuple = (MemoryError,)
    words_in = staticmethod(words.words_in)
    words = staticmethod(words.words)
    seed_groups = staticmethod(seeds.seed_groups)
    seed_keys = staticmethod(seeds.seed_keys)
    kept_seeds = staticmethod(diagonals.kept_seeds)
    extend = staticmethod(extend.extend)
    spaced_words = staticmethod(spaced.spaced_words)
    spaced_counts = staticmethod(spaced.spaced_counts)
    spaced_fill = staticmethod(spaced.spaced_fill)
    spaced_extend = staticmethod(spaced.spaced_extend)
    passing = staticmethod(hsps.passing)
    drop_contained = staticmethod(hsps.drop_contained)
    to_records = staticmethod(hsps.to_records)
    union_length = staticmethod(coverage.union_length)
    delta_pages = staticmethod(pages.delta_pages)
    reference_words = staticmethod(matches.reference_words)
    strand_mems = staticmethod(matches.strand_mems)
    whole_index = staticmethod(matches_runs.whole_index)
    whole_record_matches = staticmethod(matches_runs.whole_record_matches)
    table_batches = staticmethod(device.table_batches)
    chain_hsps = staticmethod(chains.chain_hsps)
    refine_blocks = staticmethod(placement.refine_blocks)
    align_chains = staticmethod(align.align_chains)
    encode_fasta = staticmethod(fasta.encode_fasta)
    batch_rows = 1 << 21  # rows a pass over a table takes at once: a row group or two (measured fastest)

    def seed_budget(self, tile_bytes: int) -> int:
        """Seeds a tile (tiled path) or a batch of query words (the CPU's fused search) may hold (tile_bytes 0: 256 MiB)."""
        return max(1, (tile_bytes or 1 << 28) // CPU_SEED_BYTES)

    def match_tile_bases(self) -> int:
        """Reference bases whose words the exact-match modes build at once (matches.reference_tiles): half
        the host memory not in use, at CPU_MATCH_BYTES a base."""
        try:
            free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError):
            free = 16 << 30
        return max(1 << 20, free // 2 // CPU_MATCH_BYTES)

    def warm_up(self, params=None):
        """Start what the device needs before its first stage (for a comparison with these
        parameters), on threads, while the caller reads its input; returns a future to wait on, or
        None (nothing to start on the CPU)."""
        return None

    def release(self) -> None:
        """Give memory back after an out-of-memory error (nothing cached on the CPU)."""

    def to_device(self, array):
        """A host array where this backend computes."""
        return arrays.to_device(array, self.xp)

    def copy_soon(self, data: bytes):
        """A file's bytes copied to where this backend computes, on a thread, while the caller goes on:
        a future of the uint8 array for encode_fasta's on_device (None on the CPU: nothing to copy)."""
        return None

    def to_host(self, array) -> np.ndarray:
        """An array back on the host."""
        return arrays.to_host(array)

    def pages_to_host(self, pages: dict) -> tuple[dict, object]:
        """Pages made by delta_pages (a tuple of arrays a column) on the host, and a token for
        release_after: on the CPU they are there already."""
        return pages, None

    def release_after(self, token, futures) -> None:
        """Let the host buffers of pages_to_host be reused once futures are done (nothing held on the CPU)."""

    def reserve_pages(self, rows: int) -> None:
        """Start readying the host buffers that pages_to_host will copy slices of `rows` rows into
        (nothing to ready on the CPU)."""

    def release_pages(self) -> None:
        """Start giving back the host buffers of pages_to_host once the writes using them are done
        (nothing held on the CPU)."""

    def host_slices(self, table: dict, rows: int):
        """A table's rows on the host, `rows` at a time (a dict of NumPy arrays per slice)."""
        n = int(next(iter(table.values())).size)
        for at in range(0, n, rows):
            yield {name: np.asarray(column[at:at + rows]) for name, column in table.items()}

    def synchronize(self) -> None:
        """Wait for queued device work (nothing to wait for on the CPU)."""

    def urgent(self):
        """A context whose device work goes before on_own_stream's (nothing to order on the CPU)."""
        return contextlib.nullcontext()

    def on_own_stream(self, fn, *args):
        """A future of fn(*args): on a device, run on a thread and a stream of its own, beside the caller's
        work; on the CPU, run before this returns (the cores are busy either way)."""
        from concurrent.futures import Future

        future = Future()
        try:
            future.set_result(fn(*args))
        except BaseException as failure:
            future.set_exception(failure)
        return future


class CupyBackend(NumpyBackend):
    """Every stage on the current CUDA device (CUDA_VISIBLE_DEVICES decides which)."""

    name = "cupy"
    seeds_fused = False  # tiles of sorted seed keys: thousands of threads need the seeds laid out
    encodes_pages = True  # only the packed bytes come back over PCIe
    on_host = False
    words_in = staticmethod(words.words_in_cupy)
    words = staticmethod(words.words_cupy)
    seed_groups = staticmethod(seeds.seed_groups_cupy)
    seed_keys = staticmethod(seeds.seed_keys_cupy)
    kept_seeds = staticmethod(diagonals.kept_seeds_cupy)
    extend = staticmethod(extend.extend_cupy)
    spaced_words = staticmethod(spaced.spaced_words_cupy)
    spaced_counts = staticmethod(spaced.spaced_counts_cupy)
    spaced_fill = staticmethod(spaced.spaced_fill_cupy)
    spaced_extend = staticmethod(spaced.spaced_extend_cupy)
    passing = staticmethod(hsps.passing_cupy)
    drop_contained = staticmethod(hsps.drop_contained_cupy)
    to_records = staticmethod(hsps.to_records_cupy)
    union_length = staticmethod(coverage.union_length_cupy)
    delta_pages = staticmethod(pages.delta_pages_cupy)
    reference_words = staticmethod(matches.reference_words_cupy)
    strand_mems = staticmethod(matches.strand_mems_cupy)
    whole_index = staticmethod(matches_runs.whole_index_cupy)
    whole_record_matches = staticmethod(matches_runs.whole_record_matches_cupy)
    table_batches = staticmethod(device.table_batches_cupy)
    chain_hsps = staticmethod(chains.chain_hsps_cupy)
    refine_blocks = staticmethod(placement.refine_blocks_cupy)
    align_chains = staticmethod(align.align_chains_cupy)
    encode_fasta = staticmethod(fasta.encode_fasta_cupy)
    batch_rows = 1 << 26

    def __init__(self):
        cp = arrays.cupy()
        self.xp = cp
        self.oom_errors = (cp.cuda.memory.OutOfMemoryError,)
        self._ring = None  # pinned host buffers of the Parquet writer (reserve_pages, or on first use)
        self._reserving = None  # the future of reserve_pages' pinning
        self._releasing = None  # the thread of release_pages' unpinning
        self._stream = None  # on_own_stream's
        self._urgent = None  # urgent's

    def seed_budget(self, tile_bytes: int) -> int:
        """Seeds a tile may hold: tile_bytes, or half the free device memory (pool included) if smaller or 0."""
        free = self.free_memory() // 2
        return max(1, min(tile_bytes or free, free) // GPU_SEED_BYTES)

    def match_tile_bases(self) -> int:
        """Reference bases whose words fit the device at once: its free memory (pool included) less 4 GiB
        for a query batch's words and the MEMs, at GPU_MATCH_BYTES a base."""
        free = self.free_memory()
        return max(1 << 20, (free - (4 << 30)) // GPU_MATCH_BYTES)

    def pages_to_host(self, pages: dict) -> tuple[dict, object]:
        """The pages' bytes copied into one reused pinned buffer (arrays.PinnedRing), the small
        arrays (bounds, first, minimum, maximum of each row group) into fresh ones."""
        if self._reserving is not None:
            self._reserving.result()
            self._reserving = None
        if self._ring is None:
            self._ring = PinnedRing()
        slot, buffer = self._ring.take(sum(int(encoded[0].size) for encoded in pages.values()))
        hosts, at = {}, 0
        for name, (data, *_) in pages.items():
            hosts[name] = buffer[at:at + data.size]
            data.get(out=hosts[name], blocking=False)
            at += data.size
        arrays.settle()  # the copies waited for without the GIL (CuPy holds it in a blocking copy)
        return {name: (hosts[name], *(a.get() for a in small)) for name, (_, *small) in pages.items()}, slot

    def release_after(self, token, futures) -> None:
        self._ring.hold(token, futures)

    def release_pages(self) -> None:
        """Unpin the writer's buffers on a thread as the writes holding them finish: the last write of
        a process (the command line's) then overlaps with the compression still running, not the exit."""
        if self._ring is None:
            return
        ring, self._ring = self._ring, None
        self._releasing = threading.Thread(target=ring.release, name="unpin", daemon=True)
        self._releasing.start()

    def reserve_pages(self, rows: int) -> None:
        """Pin the writer's ring buffers for slices of `rows` rows on a thread, while the device puts the
        table in order: pinning costs about 0.7 s a GB, which a first write paid slice after slice
        (GPU_KERNELS_PREPIN=0 leaves it to the write). Sized by PAGE_BYTES_GUESS; a slice that needs
        more grows its buffer then."""
        if rows < PREPIN_MIN_ROWS or self._reserving is not None or os.environ.get("GPU_KERNELS_PREPIN") == "0":
            return
        if self._ring is None:
            self._ring = PinnedRing()
        self._reserving = self._on_thread("pin", self._ring.reserve, rows * PAGE_BYTES_GUESS)

    def host_slices(self, table: dict, rows: int):
        """A table's rows copied to the host `rows` at a time, each slice in fresh host arrays."""
        n = int(next(iter(table.values())).size)
        for at in range(0, n, rows):
            yield {name: column[at:at + rows].get() for name, column in table.items()}

    def copy_soon(self, data: bytes):
        return self._on_thread("copy", self.to_device, np.frombuffer(data, dtype=np.uint8))

    def warm_up(self, params=None):
        """On a thread, hidden behind the FASTA reading: the CUDA context and a first copy to the device
        (the driver sets up its staging buffers; about 0.3 s), then CuPy's kernels of every stage
        compiled or loaded on threads at once (warm.rehearse; on the 150 Mbp pair a fresh machine's
        compare took 6.8 s with it, 8.2 s without). The comparison waits for it before its first
        stage: let to start beside the rehearsals, it compiled many of their kernels again, holding
        the interpreter's lock they need (12.5 s on a fresh machine, 11.1 s without rehearsals)."""
        return self._on_thread("warm", self._warm_up, params)

    def _warm_up(self, params) -> None:
        from . import warm

        start = time.perf_counter()
        self.xp.asarray(np.zeros(1 << 20, dtype=np.uint8))
        self.synchronize()
        log.debug("CUDA context and a first copy in %.2f s", time.perf_counter() - start)
        device = self.xp.cuda.runtime.getDevice()
        key = (device, tuple(getattr(params, group) for group in type(params).__slots__) if params else None)
        if os.environ.get("GPU_KERNELS_REHEARSE", "1") != "0" and key not in _REHEARSED:
            warm.rehearse(self, params, device)
            self.synchronize()
            _REHEARSED.add(key)  # CuPy keeps what they loaded for the process: a later comparison skips them

    def free_memory(self) -> int:
        """Bytes free on the device, the memory pool's free blocks included, within the pool's limit
        where it has one (set_limit; a job sharing its device takes turns on it instead: turns.py)."""
        cp = self.xp
        pool = cp.get_default_memory_pool()
        free = int(cp.cuda.runtime.memGetInfo()[0] + pool.free_bytes())
        return min(free, max(0, pool.get_limit() - pool.used_bytes())) if pool.get_limit() else free

    @contextlib.contextmanager
    def urgent(self):
        """The caller's device work in this block on a non-blocking stream of the device's highest
        priority (kept for the process), begun once its earlier work is done: the scheduler gives free
        multiprocessors to its kernels' blocks before those of on_own_stream's work beside it (the HSP
        table's pages while the HSPs are chained: their write crawled behind the chain kernels)."""
        cp = self.xp
        if self._urgent is None:
            # CUDA clamps a priority past the device's range to its highest (CuPy does not give the range)
            self._urgent = cp.cuda.Stream(non_blocking=True, priority=-1000)
        cp.cuda.get_current_stream().synchronize()
        with self._urgent:
            try:
                yield
            finally:
                self._urgent.synchronize()

    def on_own_stream(self, fn, *args):
        """fn(*args) on a thread and a non-blocking stream of its own (kept for the process), once the
        work already queued by the caller is done; the stream is waited for before the future is. CuPy's
        memory pool keeps each stream's freed blocks apart, and gives them all back before failing."""
        self.xp.cuda.get_current_stream().synchronize()
        if self._stream is None:
            self._stream = self.xp.cuda.Stream(non_blocking=True)
        pool = self.xp.get_default_memory_pool()
        log.debug("a stream of its own: %.1f GB of device memory free, the memory pool holds %.1f GB (%.1f GB in use)",
                  self.xp.cuda.runtime.memGetInfo()[0] / 1e9, pool.total_bytes() / 1e9, pool.used_bytes() / 1e9)

        def run():
            with self._stream:
                out = fn(*args)
                self._stream.synchronize()
            return out
        return self._on_thread("stream", run)

    def _on_thread(self, name: str, fn, *args):
        """fn(*args) on a thread of its own, on the caller's current device; a future of it. A new
        thread starts on device 0, and the caller's may be another (a workflow job bound to another
        GPU by device.claim_device), which cudaGetDevice reads without making a context."""
        from concurrent.futures import ThreadPoolExecutor

        device = self.xp.cuda.runtime.getDevice()

        def run():
            with self.xp.cuda.Device(device):
                return fn(*args)
        pool = ThreadPoolExecutor(1, thread_name_prefix=name)
        future = pool.submit(run)
        pool.shutdown(wait=False)
        return future

    def release(self) -> None:
        """Return cached blocks to the device (after an out-of-memory error)."""
        self.xp.get_default_memory_pool().free_all_blocks()

    def synchronize(self) -> None:
        self.xp.cuda.Device().synchronize()


def get_backend(name: str = "numpy") -> NumpyBackend:
    """The backend called name: numpy, cupy, or auto (CuPy when a GPU is present)."""
    if name == "auto":
        name = "cupy" if gpu_available() else "numpy"
    if name == "numpy":
        return NumpyBackend()
    if name == "cupy":
        if not gpu_available():
            raise InputError("backend cupy asked for, but CuPy finds no CUDA device")
        return CupyBackend()
    raise InputError(f"unknown backend {name!r} (auto, numpy or cupy)")
