"""GPU slots: each compare job binds to one device that no other running job holds.

A job takes an exclusive, non-blocking flock on one lock file per device (named by the
device's PCI bus id, so remapped CUDA_VISIBLE_DEVICES lists still agree) and keeps the file open
for its lifetime. The kernel drops the lock when the process ends, however it ends, so a killed
job never leaks its GPU. Snakemake's `--resources gpu=N` keeps at most N such jobs running.
"""
from __future__ import annotations

import fcntl
import logging
import os
import time

log = logging.getLogger(__name__)

_held = []  # open lock files of this process: closing one would release its device


def lock_dir() -> str:
    """Where the lock files live (GPU_KERNELS_LOCK_DIR, default the system temp directory)."""
    return os.environ.get("GPU_KERNELS_LOCK_DIR", "/tmp")


def claim_device(wait_s: float = 600.0, poll_s: float = 0.5) -> int:
    """Lock a free CUDA device, make it CuPy's current device, and return its index."""
    import cupy as cp

    count = cp.cuda.runtime.getDeviceCount()
    deadline = time.monotonic() + wait_s
    while True:
        for index in range(count):
            bus = cp.cuda.runtime.deviceGetPCIBusId(index).replace(":", "_").replace(".", "_")
            handle = open(os.path.join(lock_dir(), f"gpu_kernels-{bus}.lock"), "a+")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
            _held.append(handle)
            cp.cuda.Device(index).use()
            log.info("bound to GPU %d (%s) of %d", index, bus, count)
            return index
        if time.monotonic() > deadline:
            raise RuntimeError(f"no free GPU among {count} after {wait_s:.0f} s (lock files in {lock_dir()})")
        time.sleep(poll_s)
