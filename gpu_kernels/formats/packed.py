"""Named arrays in one file, compressed (zstd, through pyarrow): what one workflow job hands to
another and removes afterwards (a compare job's text parts, a part's texts). An alignment's column
ops are a byte a column, mostly matches, and its texts are CIGARs, cs strings and SNP lines: written
as they are, a human-sized pair's hand-overs weighed several times its FASTA on disk at once; packed,
a fiftieth (the ops) to a quarter (the texts).

A file: the magic line, a JSON line (each array's dtype, shape and its chunks' sizes), then the
chunks. Arrays are cut in CHUNK-byte chunks, each compressed alone, so that writing and reading go
on threads and no copy of a whole array is made beside the array itself.
"""
from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import InputError

MAGIC = b"gpu-genome-compare packed arrays 1\n"
CHUNK = 1 << 25
LEVEL = 1  # zstd's fastest level: the ops still pack fiftyfold, the texts about fourfold


def _codec():
    import pyarrow as pa

    return pa.Codec("zstd", compression_level=LEVEL)


def _chunks(array: np.ndarray) -> list:
    """The array's bytes in CHUNK-byte views."""
    raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    return [raw[at:at + CHUNK] for at in range(0, raw.size, CHUNK)]


def save_arrays(path: str, arrays: dict, threads: int = 4) -> None:
    """Arrays (name: any NumPy array) packed into one file at path, written atomically."""
    from .files import atomic_path

    codec = _codec()
    names = list(arrays)
    views = {name: _chunks(arrays[name]) for name in names}
    with ThreadPoolExecutor(max(1, threads)) as pool:
        packed = {name: list(pool.map(lambda chunk: codec.compress(chunk, asbytes=True), views[name]))
                  for name in names}
    header = {name: {"dtype": np.asarray(arrays[name]).dtype.str, "shape": list(np.shape(arrays[name])),
                     "chunks": [[int(view.size), len(data)] for view, data in zip(views[name], packed[name])]}
              for name in names}
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            handle.write(MAGIC)
            handle.write(json.dumps(header).encode() + b"\n")
            for name in names:
                for data in packed[name]:
                    handle.write(data)


def load_arrays(path: str, threads: int = 4, names=None) -> dict:
    """save_arrays' arrays (name: array; those named, where names are given), unpacked on threads."""
    codec = _codec()
    with open(path, "rb") as handle:
        if handle.readline() != MAGIC:  # a hand-over left by another version of the workflow, say
            raise InputError("not a file of packed arrays (left by another version? remove it and run again)", path)
        header = json.loads(handle.readline())
        at = handle.tell()
    mapped = np.memmap(path, dtype=np.uint8, mode="r") if at < os.path.getsize(path) else np.zeros(0, dtype=np.uint8)
    arrays, work = {}, []
    for name, entry in header.items():
        if names is not None and name not in names:
            at += sum(stored for _, stored in entry["chunks"])
            continue
        dtype = np.dtype(entry["dtype"])
        out = np.empty(int(np.prod(entry["shape"], dtype=np.int64)) * dtype.itemsize, dtype=np.uint8)
        written = 0
        for size, stored in entry["chunks"]:
            work.append((out[written:written + size], mapped[at:at + stored]))
            written += size
            at += stored
        arrays[name] = out.view(dtype).reshape(entry["shape"])

    def unpack(job):
        target, data = job
        target[:] = np.frombuffer(codec.decompress(data, decompressed_size=target.size), dtype=np.uint8)

    with ThreadPoolExecutor(max(1, threads)) as pool:
        list(pool.map(unpack, work))
    return arrays

