"""Backends: the array module and the stage implementations one comparison runs with.

The NumPy backend runs the generic stage functions. The CuPy backend (gpu_kernels.cuda) runs
the same functions on device arrays and swaps in raw kernels for the hot stages.
"""
from __future__ import annotations

import logging
import os

import numpy as np

from .errors import InputError
from .extend import extend
from .words import words

log = logging.getLogger(__name__)


class Backend:
    """The NumPy backend; subclasses override the stages they run differently."""

    name = "numpy"
    xp = np

    def words(self, codes, k: int):
        """Sorted words of a code array."""
        return words(codes, k)

    def extend(self, qcodes, rcodes, sq, sr, k: int, tables, match: int, xdrop: int = 0):
        """HSP spans of seeds."""
        return extend(qcodes, rcodes, sq, sr, k, tables, match, xdrop)

    def to_device(self, array):
        """Move a host array to where this backend computes."""
        return array

    def to_host(self, array) -> np.ndarray:
        """Move an array back to the host."""
        return array

    def synchronize(self) -> None:
        """Wait for queued device work (nothing to wait for on the CPU)."""

    def free_bytes(self) -> int | None:
        """Free device memory, where there is a device."""
        return None


def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device: all mean "no GPU"
        return False


def get_backend(name: str = "numpy") -> Backend:
    """The backend called name: numpy, cupy, or auto (CuPy when a GPU is present)."""
    if name == "auto":
        name = "cupy" if gpu_available() else "numpy"
    if name == "numpy":
        return Backend()
    if name == "cupy":
        if not gpu_available():
            raise InputError("backend cupy asked for, but CuPy finds no CUDA device")
        from .cuda import CupyBackend

        return CupyBackend()
    raise InputError(f"unknown backend {name!r} (auto, numpy or cupy)")
