"""Turns on a shared device: the workflow's GPU jobs bound to one device (device.claim_device's slots)
run their kernels one job at a time, and step aside while their host stages run (the backbone, the
alignments' ends and pieces, the part's files), so that another job's kernels keep the device busy
meanwhile.

A turn is an exclusive flock on one file per device (`gpu_kernels-<bus>.turn.lock` in the lock
directory, opened by claim_device), taken when the job's inputs are read and its device work begins
(take_turn), held until that work is done (end_turn). Stepping aside
(host_stage) waits for the job's queued kernels, hands its memory pool's free blocks back to the
device (the next job's budgets read the device's free memory), and drops the lock; the block's end
takes it again, waiting for the other job's turn to end. The kernel drops a killed job's lock.

A process that shares no device (the command line; a job alone on its device) runs every stage as
if these were not here: take_turn, host_stage and end_turn do nothing.
"""
from __future__ import annotations

import contextlib
import fcntl
import logging
import time

log = logging.getLogger(__name__)

_turn = {"handle": None, "held": False}


def share_device(handle) -> None:
    """This process shares its device with other jobs: handle is the device's turn lock file, open."""
    _turn["handle"], _turn["held"] = handle, False


def take_turn() -> None:
    """Wait for the device's turn (where this process shares its device), and keep taking it again
    after each host stage until end_turn."""
    if _turn["handle"] is None or _turn["held"]:
        return
    clock = time.monotonic()
    fcntl.flock(_turn["handle"].fileno(), fcntl.LOCK_EX)
    _turn["held"] = True
    log.info("the device's turn after %.2f s", time.monotonic() - clock)


def _settle() -> None:
    """This job's queued kernels done (every stream's) and its pool's free blocks back to the device."""
    from .arrays import cupy

    cp = cupy()
    cp.cuda.Device().synchronize()
    cp.get_default_memory_pool().free_all_blocks()


def _step_aside() -> None:
    _settle()
    fcntl.flock(_turn["handle"].fileno(), fcntl.LOCK_UN)
    _turn["held"] = False


@contextlib.contextmanager
def host_stage():
    """A block of host work: the device's turn goes to another job meanwhile, and is taken again
    after it (a no-op where this process holds no turn)."""
    if not _turn["held"]:
        yield
        return
    _step_aside()
    try:
        yield
    finally:
        fcntl.flock(_turn["handle"].fileno(), fcntl.LOCK_EX)
        _turn["held"] = True


def end_turn() -> None:
    """This job's device work is done: the turn goes to the next job for good (its files are written
    meanwhile)."""
    if _turn["held"]:
        _step_aside()
    if _turn["handle"] is not None:
        _turn["handle"].close()
        _turn["handle"] = None
