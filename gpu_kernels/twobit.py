"""A genome's codes at two bits a base: the workflow's index (workflow/genome.py) a quarter of the
bytes of a code a byte (a 3 Gbp genome 0.75 GB, not 3 GB).

A file: the magic line, a JSON line (the bases, the runs of N), the bases packed four to a byte (base i
at bits 2 (i % 4) of byte i / 4: an N or a border packed as its low two bits), then the runs of N's
starts and ends (int64). The packed bases are memory-mapped and a record's codes unpacked where a
caller lays it (`PackedCodes.into`), its runs of N written over them; the borders between records
are the caller's layout's (seqset.make_seqset's). The packing and unpacking run on threads (twobit.c).
"""
from __future__ import annotations

import json

import numpy as np

from . import native
from .encode import BORDER, N_CODE
from .errors import InputError

MAGIC = b"gpu-genome-compare codes, 2 bits a base 1\n"


def save_codes(path: str, codes: np.ndarray, threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Codes (a byte a base: 0..3, N, borders) packed into path, written whole or not at all; returns
    the runs of N (starts, ends) it found."""
    from .formats import atomic_path

    threads = native.threads() if threads is None else threads
    cpu = native.cpu()
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    packed = np.empty((codes.size + 3) // 4, dtype=np.uint8)
    cpu.pack_codes(packed, codes, threads)
    starts, ends = cpu.value_runs(codes, N_CODE, threads)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            handle.write(MAGIC)
            handle.write(json.dumps({"bases": int(codes.size), "runs": len(starts) // 8}).encode() + b"\n")
            handle.write(memoryview(packed))
            handle.write(starts)
            handle.write(ends)
    return np.frombuffer(starts, dtype=np.int64), np.frombuffer(ends, dtype=np.int64)


class PackedCodes:
    """A codes file of save_codes', its packed bases memory-mapped."""

    def __init__(self, path: str):
        with open(path, "rb") as handle:
            if handle.readline() != MAGIC:  # an index of another version: the index rule writes it again
                raise InputError("not a file of codes at two bits a base (left by another version? remove it and "
                                 "run again)", path)
            header = json.loads(handle.readline())
            at = handle.tell()
            self.path, self.size = path, int(header["bases"])
            packed_bytes, runs = (self.size + 3) // 4, int(header["runs"])
            handle.seek(at + packed_bytes)
            self.n_starts = np.fromfile(handle, dtype="<i8", count=runs).astype(np.int64)
            self.n_ends = np.fromfile(handle, dtype="<i8", count=runs).astype(np.int64)
        if self.n_starts.size != runs or self.n_ends.size != runs:
            raise InputError("a file of codes cut short (remove it and run again)", path)
        self.packed = np.memmap(path, dtype=np.uint8, mode="r", offset=at, shape=(packed_bytes,)) \
            if packed_bytes else np.zeros(0, dtype=np.uint8)

    def into(self, out: np.ndarray, start: int, length: int, at: int, threads: int | None = None) -> None:
        """Bases start .. start + length of the file's layout written to out[at .. at + length)."""
        threads = native.threads() if threads is None else threads
        if start < 0 or start + length > self.size:
            raise InputError(f"bases {start}..{start + length} past the codes' end ({self.size})", self.path)
        cpu = native.cpu()
        cpu.unpack_codes(out[at:at + length], self.packed, int(start), threads)
        lo = int(np.searchsorted(self.n_ends, start, side="right"))
        hi = int(np.searchsorted(self.n_starts, start + length, side="left"))
        if hi > lo:
            first = np.maximum(self.n_starts[lo:hi], start)
            last = np.minimum(self.n_ends[lo:hi], start + length)
            cpu.fill_spans(out, np.ascontiguousarray(first - start + at), np.ascontiguousarray(last - first),
                           N_CODE, threads)

    def layout(self, starts, lengths) -> np.ndarray:
        """The whole file's layout again: these records (starts and lengths in the file) between borders."""
        starts, lengths = np.asarray(starts, dtype=np.int64), np.asarray(lengths, dtype=np.int64)
        out = np.empty(self.size, dtype=np.uint8)  # first touched by the unpacking threads
        order = np.argsort(starts, kind="stable")
        ends = np.concatenate(([0], (starts + lengths)[order]))
        gaps = np.concatenate((starts[order], [self.size])) - ends
        native.cpu().fill_spans(out, np.ascontiguousarray(ends), np.ascontiguousarray(np.maximum(gaps, 0)), BORDER, 1)
        for start, length in zip(starts.tolist(), lengths.tolist()):
            self.into(out, start, length, start)
        return out
