"""How fast one file takes a Parquet write's pieces: one thread in order, several threads at their offsets.

    python bench/disk_write.py [FOLDER ...] [--gb 2.6] [--piece-mb 15] [--threads 1 4 8 16]

The HSP table's writer hands its row groups (about 15 MB each on the 150 Mbp pair) to one disk thread
that writes them in order: this prints what that costs against pwrite and mmap from several threads,
each into a new file in each folder, the page cache only (no fsync: the command line does none).
Not a test.
"""
from __future__ import annotations

import argparse
import mmap
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np


def sequential(path: str, pieces: list, threads: int) -> None:
    with open(path, "wb") as handle:
        for piece in pieces:
            handle.write(piece)


def offsets_of(pieces: list) -> np.ndarray:
    """Where each piece starts in the file, and the file's size last."""
    return np.concatenate([[0], np.cumsum([p.size for p in pieces])])


def pwrite(path: str, pieces: list, threads: int) -> None:
    offsets = offsets_of(pieces)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda i: os.pwrite(fd, pieces[i], int(offsets[i])), range(len(pieces))))
    finally:
        os.close(fd)


def mapped(path: str, pieces: list, threads: int) -> None:
    offsets = offsets_of(pieces)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.ftruncate(fd, int(offsets[-1]))
        with mmap.mmap(fd, int(offsets[-1])) as view:
            target = np.frombuffer(view, dtype=np.uint8)

            def copy(i: int) -> None:
                target[offsets[i]:offsets[i + 1]] = pieces[i]
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(copy, range(len(pieces))))
            target = None  # the mmap closes only when no array views it
    finally:
        os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", default=["."])
    parser.add_argument("--gb", type=float, default=2.6)
    parser.add_argument("--piece-mb", type=float, default=15)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 4, 8, 16])
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    size = int(args.piece_mb * 1e6)
    pieces = [rng.integers(0, 256, size, dtype=np.uint8) for _ in range(int(args.gb * 1e9 // size))]
    total = sum(p.size for p in pieces) / 1e9
    print(f"{len(pieces)} pieces of {args.piece_mb} MB, {total:.2f} GB a file")
    print(f"{'folder':<24} {'how':<10} {'threads':>7} {'s':>6} {'GB/s':>6}")
    for folder in args.folders:
        path = os.path.join(folder, "disk_write.bin")
        for name, fn in (("write", sequential), ("pwrite", pwrite), ("mmap", mapped)):
            for threads in ([1] if fn is sequential else args.threads):
                for _ in range(2):  # the second run finds the file's pages freed by the unlink
                    start = time.perf_counter()
                    fn(path, pieces, threads)
                    spent = time.perf_counter() - start
                    os.remove(path)
                print(f"{folder:<24} {name:<10} {threads:>7} {spent:6.2f} {total / spent:6.2f}", flush=True)


if __name__ == "__main__":
    main()
