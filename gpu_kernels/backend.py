"""Backends: the array module and the stage implementations one comparison runs with.

The NumPy backend runs the generic stage functions. The CuPy backend (gpu_kernels.cuda) runs
the same functions on device arrays and swaps in raw kernels for the hot stages.
"""
from __future__ import annotations

import logging
import os

import numpy as np

from .errors import InputError
from .diagonals import diagonal_keys
from .extend import extend
from .fasta import read_fasta
from .seeds import seed_groups, seeds
from .seqset import SeqSet, seqset_of
from .tiles import SEED_BYTES
from .words import words

log = logging.getLogger(__name__)


class Backend:
    """The NumPy backend; subclasses override the stages they run differently."""

    name = "numpy"
    xp = np
    oom_errors: tuple = (MemoryError,)

    def words(self, codes, k: int):
        """Sorted words of a code array."""
        return words(codes, k)

    def load_fasta(self, path: str) -> SeqSet:
        """A FASTA file's records, checked, encoded and laid end to end."""
        return seqset_of(read_fasta(path))

    def seed_groups(self, qk, rk):
        """Keys present on both sides and where their words lie."""
        return seed_groups(qk, rk)

    def tile_keys(self, groups, qp, rp, rtotal: int, width: int):
        """Sorted diagonal keys of a tile's seeds."""
        return diagonal_keys(*seeds(groups, qp, rp), rtotal, width)

    def extend(self, qcodes, rcodes, sq, sr, k: int, tables, params):
        """(seeds walked, their HSP spans): every seed is walked here."""
        qstart, qend, score, ids = extend(qcodes, rcodes, sq, sr, k, tables, params.match, params.xdrop)
        return sq, sr, qstart, qend, score, ids

    def seed_budget(self, tile_bytes: int) -> int:
        """Seeds one tile may hold (tile_bytes 0: 1 GiB)."""
        return max(1, (tile_bytes or 1 << 30) // SEED_BYTES)

    def counters(self) -> dict:
        """Counts only the backend keeps (none on the CPU)."""
        return {}

    def release(self) -> None:
        """Give memory back after an out-of-memory error (nothing cached on the CPU)."""

    def to_device(self, array):
        """Move a host array to where this backend computes."""
        return array

    def to_host(self, array) -> np.ndarray:
        """Move an array back to the host."""
        return array

    def synchronize(self) -> None:
        """Wait for queued device work (nothing to wait for on the CPU)."""



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
