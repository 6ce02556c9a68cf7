"""What a process needs of its GPU around the stages: the early CUDA context, the probe for a device,
a device slot of its own (claim_device), page-locked host buffers, and a table's columns streamed
onto the device in batches.

GPU slots: each workflow job that uses a GPU binds to one device that no other running job holds.
It takes an exclusive, non-blocking flock on one lock file per device (named by the device's PCI
bus id, so remapped CUDA_VISIBLE_DEVICES lists still agree) and keeps the file open for its
lifetime. The kernel drops the lock when the process ends, however it ends, so a killed job never
leaks its GPU. Snakemake's `--resources gpu=N` keeps at most N such jobs running. With the
workflow's jobs_per_gpu above 1, a device has that many slots (a lock file each), N counts slots,
and the jobs of a device take turns on its kernels (turns.py).

Every function here is safe to import without CuPy; CuPy is imported when one is first called.
"""
from __future__ import annotations

import fcntl
import logging
import os
import threading
import time

import numpy as np

from .arrays import cupy
from .errors import InputError
from .formats import iter_hsps
from .hsps import concat
from .turns import share_device

log = logging.getLogger(__name__)


def early_context() -> threading.Thread | None:
    """Make CUDA's primary context of the first device through the driver (libcuda, by ctypes) on a
    thread, while CuPy is imported (about 0.4 s): CuPy's runtime then finds it made instead of making
    it (0.1 to 0.25 s). For a process that will use device 0, the command line's; a workflow job picks
    its device later (claim_device) and does not call this. Anything missing (no driver, no
    device) ends the thread quietly: the backend's own checks say so later. GPU_KERNELS_EARLY_CONTEXT=0
    turns it off."""
    import importlib.util

    if (os.environ.get("GPU_KERNELS_EARLY_CONTEXT") == "0" or os.environ.get("CUDA_VISIBLE_DEVICES") in ("", "-1")
            or importlib.util.find_spec("cupy") is None):  # no CuPy: the NumPy backend needs no context
        return None

    def make() -> None:
        import ctypes

        try:
            driver = ctypes.CDLL("libcuda.so.1")
            device, context = ctypes.c_int(), ctypes.c_void_p()
            if driver.cuInit(0) == 0 and driver.cuDeviceGet(ctypes.byref(device), 0) == 0:
                driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)  # kept to the process's end
        except (OSError, AttributeError):
            pass
    thread = threading.Thread(target=make, name="context", daemon=True)
    thread.start()
    return thread


def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    try:
        return cupy().cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device: all mean "no GPU"
        return False


_held = []  # open lock files of this process: closing one would release its device


def lock_dir() -> str:
    """Where the lock files live (GPU_KERNELS_LOCK_DIR, default the system temp directory)."""
    return os.environ.get("GPU_KERNELS_LOCK_DIR", "/tmp")


def open_lock(path: str):
    """A lock file opened (created where missing, mode 0666 less the umask) read-only, without
    following a symbolic link and never written: another user's lock file still locks (flock needs
    no write access), and a link planted at the name cannot lead a job to truncate its target
    (InputError names it)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    except OSError as error:
        if os.path.islink(path):
            raise InputError("the GPU lock file is a symbolic link: remove it, or set GPU_KERNELS_LOCK_DIR to a "
                             "directory of your own", path) from None
        raise InputError(f"cannot open the GPU lock file: {error.strerror}", path) from None
    return os.fdopen(fd, "rb")


def try_lock(path: str):
    """An exclusive lock on path (open_lock's file), or None where another process holds it."""
    handle = open_lock(path)
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def claim_device(wait_s: float = 600.0, poll_s: float = 0.5, jobs_per_gpu: int = 1, turns_per_gpu: int = 1) -> int:
    """Lock a free CUDA device slot, make its device CuPy's current device, and return its index.
    jobs_per_gpu: processes that may share a device (slots a device; the first slot of every device
    is taken before a second). Jobs sharing a device take turns on it (turns.py): a job takes its
    turn once its inputs are read and hands it on before its part's files are written.
    turns_per_gpu: turns held at once on a device (slot s takes turn s mod turns_per_gpu), for jobs
    whose device work is small beside its launches (many genomes: a small pair's kernels leave the
    device idle between them, which another job's kernels fill)."""
    cp = cupy()
    count = cp.cuda.runtime.getDeviceCount()
    deadline = time.monotonic() + wait_s
    slots = max(1, int(jobs_per_gpu))
    while True:
        for slot in range(slots):
            for index in range(count):
                bus = cp.cuda.runtime.deviceGetPCIBusId(index).replace(":", "_").replace(".", "_")
                name = f"gpu_kernels-{bus}.lock" if slot == 0 else f"gpu_kernels-{bus}.{slot}.lock"
                handle = try_lock(os.path.join(lock_dir(), name))
                if handle is None:
                    continue
                _held.append(handle)
                cp.cuda.Device(index).use()
                if slots > 1:
                    turn = slot % max(1, int(turns_per_gpu))
                    name = f"gpu_kernels-{bus}.turn.lock" if turn == 0 else f"gpu_kernels-{bus}.turn{turn}.lock"
                    share_device(open_lock(os.path.join(lock_dir(), name)))
                log.info("bound to GPU %d (%s) of %d, slot %d of %d", index, bus, count, slot + 1, slots)
                return index
        if time.monotonic() > deadline:
            raise RuntimeError(f"no free GPU among {count} after {wait_s:.0f} s (lock files in {lock_dir()})")
        time.sleep(poll_s)


class PinnedRing:
    """Page-locked host buffers taken in turn and kept for reuse: pinning memory costs about 0.7 s a
    GB when it is first allocated (cudaHostAlloc), so a writer that copies slice after slice off the
    device reuses a few buffers instead of pinning every slice anew. A buffer is taken again only
    once the futures it was held for are done."""

    def __init__(self, slots: int = 3):
        self.buffers: list = [None] * slots
        self.waits: list = [()] * slots
        self.next = 0

    def take(self, nbytes: int) -> tuple[int, np.ndarray]:
        """(slot, uint8 pinned array of nbytes): the next buffer, grown when too small."""
        from concurrent.futures import wait

        slot = self.next
        self.next = (slot + 1) % len(self.buffers)
        wait(self.waits[slot])
        self.waits[slot] = ()
        self._grow(slot, nbytes)
        return slot, self.buffers[slot][:nbytes]

    def reserve(self, nbytes: int) -> None:
        """Pin every slot's buffer to at least nbytes now (before the first take)."""
        for slot in range(len(self.buffers)):
            self._grow(slot, nbytes)

    def _grow(self, slot: int, nbytes: int) -> None:
        """The slot's buffer pinned anew when it is missing or smaller than nbytes."""
        from .arrays import empty_pinned

        if self.buffers[slot] is None or self.buffers[slot].size < nbytes:
            self.buffers[slot] = None  # the old buffer goes back before a larger one is pinned
            self.buffers[slot] = empty_pinned(max(nbytes, 1), np.uint8)

    def hold(self, slot: int, futures) -> None:
        """Keep the slot's buffer until these futures are done."""
        self.waits[slot] = tuple(futures)

    def release(self) -> None:
        """Unpin every buffer once the futures it is held for are done (about 0.14 s a GB, which an
        exit pays otherwise). The ring is empty after; a later take pins anew."""
        from concurrent.futures import wait

        import cupy

        for slot in range(len(self.buffers)):
            wait(self.waits[slot])
            self.waits[slot], self.buffers[slot] = (), None
        cupy.get_default_pinned_memory_pool().free_all_blocks()


def table_batches(path: str, columns, rows: int, narrow: bool = False, threads: int = 2):
    """A Parquet table's columns (of a record view) in batches of at least `rows` rows, the last may
    hold fewer (narrow and threads: see table_batches_cupy), read a row group ahead or two."""
    yield from batched(iter_hsps(path, columns, read_ahead=2), rows)


def table_batches_cupy(path: str, columns, rows: int, narrow: bool = False, threads: int = 2):
    """table_batches on the device: batches as batched_cupy gives them, read on `threads` threads that copy each row group into page-locked host
    memory, whence it goes to the device by DMA. narrow: int64 coordinates copied as int32 (every
    record shorter than 2^31), a third fewer bytes. (Copied from pageable memory on one thread, the
    columns of a 2.7 G HSP table took 16 s of its 44 s of coverage on an H200.)"""
    import queue

    from .arrays import empty_pinned

    cp = cupy()

    free: queue.Queue = queue.Queue()
    for _ in range(threads + 2):  # a buffer for each row group in flight (threads + 1) and the one being copied
        free.put(None)

    def stage(chunk: dict) -> tuple:
        buffer = free.get()
        n = _rows(chunk)
        kinds = {name: np.dtype(np.int32) if narrow and column.dtype == np.int64 else column.dtype
                 for name, column in chunk.items()}
        sizes = {name: n * kind.itemsize for name, kind in kinds.items()}
        spans = {name: (size + 255) // 256 * 256 for name, size in sizes.items()}  # each column aligned
        if buffer is None or buffer.size < sum(spans.values()):
            buffer = None  # the old one unpinned first
            buffer = empty_pinned(sum(spans.values()), np.uint8)
        staged, at = {}, 0
        for name, column in chunk.items():
            staged[name] = buffer[at:at + sizes[name]].view(kinds[name])
            np.copyto(staged[name], column, casting="unsafe")
            at += spans[name]
        return buffer, staged

    def to_device():
        for buffer, staged in iter_hsps(path, columns, read_ahead=threads, threads=threads, prepare=stage):
            yield staged
            # batched has queued its copies (asynchronous from page-locked memory): done before reuse
            cp.cuda.get_current_stream().synchronize()
            free.put(buffer)

    yield from batched_cupy(to_device(), rows)


def _rows(columns: dict) -> int:
    return len(next(iter(columns.values())))


def batched(chunks, rows: int):
    """Dicts of columns joined into batches of at least `rows` rows (the last may hold fewer)."""
    pending, held = [], 0
    for chunk in chunks:
        pending.append(chunk)
        held += _rows(chunk)
        if held >= rows:
            yield pending[0] if len(pending) == 1 else concat(pending, list(pending[0]))
            pending, held = [], 0
    if pending:
        yield pending[0] if len(pending) == 1 else concat(pending, list(pending[0]))


def batched_cupy(chunks, rows: int):
    """batched into device arrays: each chunk is copied into device arrays made once, at its place in
    the batch, so the host joins nothing (joining, then copying, took as long as reading the table);
    a batch's arrays are overwritten once the next one is asked for."""
    cp = cupy()
    buffers, at = {}, 0
    for chunk in chunks:
        n = _rows(chunk)
        if buffers and at + n > _rows(buffers):
            yield {name: buffer[:at] for name, buffer in buffers.items()}
            at = 0
        if not buffers or n > _rows(buffers):
            buffers = {name: cp.empty(max(rows, n), dtype=column.dtype) for name, column in chunk.items()}
        for name, column in chunk.items():
            buffers[name][at:at + n].set(np.ascontiguousarray(column))
        at += n
    if at:
        yield {name: buffer[:at] for name, buffer in buffers.items()}


