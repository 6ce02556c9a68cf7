"""Turns on a shared device: the workflow's GPU jobs bound to one device (device.claim_device's slots)
use it one job at a time, from the moment the job's inputs are read (take_turn) until its device
work is done and its device memory let go (end_turn). The next job's start (Python, CuPy, its
inputs read) and the last job's host stages after its device work (its part's tables, its files)
run meanwhile, so the device goes from one job's kernels to the next's without waiting for either.

A job copies its bins' codes to the device before it takes its turn (1.5 GB for a 0.5 Gbp query bin
against 0.9 Gbp of reference, within the half of the free memory a job's seeds leave free), hands
the turn on for the copies of its chains to the host and the backbone's first round there (host_stage:
the device memory it holds then, its HSPs and chains, a few GB, stays held; the next job's seeds
budget the memory free as they begin, and a tile that finds too little is split), takes it again as
its placement's device work begins (the host's work before it done outside the turn), and hands it
on once its alignments' pieces are found and their ends extended (pipeline.homology's device_done),
before the part's host stages, holding then only the bins' codes its callers still name.

A turn is an exclusive flock on one file per device (`gpu_kernels-<bus>.turn.lock` in the lock
directory, opened by claim_device). The kernel drops a killed job's lock. A process that shares no
device (the command line; a job alone on its device) has no turn to take: both calls do nothing.
"""
from __future__ import annotations

import fcntl
import logging
import time
from contextlib import contextmanager

log = logging.getLogger(__name__)

_turn = {"handle": None, "held": False}


def share_device(handle) -> None:
    """This process shares its device with other jobs: handle is the device's turn lock file, open."""
    _turn["handle"], _turn["held"] = handle, False


def take_turn() -> None:
    """Wait for the device's turn (where this process shares its device)."""
    if _turn["handle"] is None or _turn["held"]:
        return
    clock = time.monotonic()
    fcntl.flock(_turn["handle"].fileno(), fcntl.LOCK_EX)
    _turn["held"] = True
    log.info("the device's turn after %.2f s", time.monotonic() - clock)


def _settle(free: bool = True) -> int:
    """This job's queued kernels done (every stream's) and, where `free`, its pool's free blocks back
    to the device, for the next job's budgets (they read the device's free memory): the bytes it
    still holds."""
    from .arrays import cupy

    cp = cupy()
    cp.cuda.Device().synchronize()
    pool = cp.get_default_memory_pool()
    if free:
        pool.free_all_blocks()
    return int(pool.used_bytes())


def _free_blocks() -> None:
    """This job's pool's free blocks back to the device."""
    from .arrays import cupy

    cupy().get_default_memory_pool().free_all_blocks()


def _hand_on(free: bool) -> int:
    """The turn let go, this job's device work settled first (_settle's): the bytes it still holds."""
    held = _settle(free=free)
    fcntl.flock(_turn["handle"].fileno(), fcntl.LOCK_UN)
    _turn["held"] = False
    return held


@contextmanager
def host_stage(long: bool = True):
    """A host stage between a job's kernels (the copies of its chains to the host and the backbone's
    first round): the turn handed on for it (the job's queued kernels done, its pool's free blocks
    given back) and not taken again here: the job's next device step takes it (take_turn), so that
    the host's work between the two is not done in the turn either. The device memory the job holds
    stays its own; what the stage lets go (the chains' device copies) goes back to the device as it
    ends. long False: the stage is too short to be worth a hand-over (a small pair of a many-genomes
    job, whose pool keeps its blocks from pair to pair)."""
    if not _turn["held"] or not long:
        yield
        return
    _hand_on(free=True)
    try:
        yield
    finally:
        _free_blocks()


def end_turn(last: bool = True) -> None:
    """This job's device work is done and its arrays there dropped: the turn goes to the next job
    (this one's files are written meanwhile). last=False: the job takes another turn later (a
    many-genomes job, a turn a genome pair: its pool keeps its blocks, for its next pair, since freeing
    and allocating them again each pair made the turns' hand-overs most of a small pair's time)."""
    if _turn["held"]:
        held = _hand_on(free=last)
        if last:
            log.info("the device handed on (%.2f GB of it still held)", held / 1e9)
    if last and _turn["handle"] is not None:
        _turn["handle"].close()
        _turn["handle"] = None
