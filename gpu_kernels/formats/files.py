"""File safety: every output appears under its final name only when complete, and an earlier run's
output is cleared early; plus the writers of ordered pieces (to a file at their offsets, or to a stream)."""
from __future__ import annotations

import errno
import logging
import os
import stat
import sys
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from .threads import default_threads, ordered_map

log = logging.getLogger(__name__)

WRITERS = 4  # threads writing a text file's pieces


def named(error: OSError, path: str, tmp: str | None = None) -> OSError:
    """error naming path where it names no file (a full disk's "No space left on device" from a write
    or a close), or names tmp, the hidden file that stands for path."""
    if error.filename is None or (tmp is not None and error.filename == tmp):
        return OSError(error.errno, error.strerror or str(error), path)
    return error


@contextmanager
def atomic_path(path: str):
    """Yield a temporary path beside path; rename it to path only when the block succeeds.

    The temporary file is not made here: the caller's open creates it (with the permissions the
    umask gives). A file made empty by an open that truncates (mkstemp, then open(..., "wb")) is
    flushed to disk by ext4 when it is closed, about a second a few GB written."""
    if os.path.isdir(path) or not os.path.basename(path):  # a path ending in / names a directory
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file name", path)
    if is_special(path):  # /dev/null, /dev/stdout, a FIFO: written into, never replaced by a file
        try:
            yield path
        except OSError as error:
            raise named(error, path) from None
        return
    folder = os.path.dirname(os.path.abspath(path))
    existing = folder
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):  # makedirs would say "File exists", which misleads
        raise NotADirectoryError(errno.ENOTDIR, "is a file, not a directory", existing)
    os.makedirs(folder, exist_ok=True)
    # a hidden name that does not end like the target, so no glob for finished files matches it
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.urandom(6).hex()}.part")
    PENDING.add(tmp)
    begun = time.time()
    try:
        try:
            yield tmp
        except OSError as error:
            raise named(error, path, tmp) from None
        _remove_stale(path, begun)
        if os.path.lexists(path):
            # Renamed over an existing file, ext4 writes the new one to disk before rename returns
            # (its replace-by-rename safeguard: 1.3 to 2 s for a 2.6 GB table). The old file is moved
            # aside instead and removed once the new one is in place.
            old = f"{tmp[:-len('.part')]}.old"
            os.rename(path, old)
            os.rename(tmp, path)
            os.remove(old)
        else:
            os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
        PENDING.discard(tmp)


# Temporary files of the outputs being written: what a process ended at once (Ctrl-C while a
# compiled stage runs, __main__.interrupted) removes, as atomic_path's own cleanup would.
PENDING: set[str] = set()


def save_arrays(path: str, **arrays) -> None:
    """Named arrays as an .npz file (numpy.savez), written whole or not at all."""
    import numpy as np

    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            np.savez(handle, **arrays)


def _remove_stale(path: str, begun: float) -> None:
    """The temporary files an earlier write of path left (a process killed with -9 while it wrote)
    removed once this one is complete: those untouched since before it began (a write still under
    way elsewhere keeps touching its own)."""
    import glob

    base = glob.escape(os.path.join(os.path.dirname(os.path.abspath(path)), f".{os.path.basename(path)}."))
    for stale in glob.glob(base + "[0-9a-f]*[0-9a-f].part") + glob.glob(base + "[0-9a-f]*[0-9a-f].old"):
        try:
            if os.stat(stale).st_mtime < begun - 1:
                os.remove(stale)
        except OSError:
            pass


def remove_pending() -> None:
    """Every output still being written removed: none is left half-written under any name."""
    for tmp in list(PENDING):
        try:
            os.remove(tmp)
        except OSError:
            pass


# Temporary copies of standard input (a sequence given as -; __main__ makes and removes them): an output
# that names its inputs' files (the delta's header) keeps a copy of its own beside it.
STDIN_COPIES: set[str] = set()


def is_special(path: str) -> bool:
    """Whether path names something that is there and is neither a regular file nor a directory (a
    device, a FIFO, a socket): an output written into as it is."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def write_pieces(path: str, header: bytes, pieces, unit: str = "rows") -> int:
    """(rows, bytes) pieces written after header, atomically to path or to standard output ("-"), or
    in order into a special file (a device or a FIFO has no offsets); returns the rows written. unit:
    what a piece's rows are, for the log (a delta or SNPs file's rows are alignments of many lines).
    A path ending in .gz is written gzipped: each piece a gzip member of its own, compressed on threads
    (gzip readers read the members as one stream)."""
    if path == "-":
        return _write_stream(sys.stdout.buffer, header, pieces, unit)
    try:
        if is_special(path):
            with open(path, "wb") as stream:
                return _write_stream(stream, header, pieces, unit)
        if path.endswith(".gz"):
            import gzip

            zipped = ordered_map(lambda piece: (piece[0], gzip.compress(piece[1], 6, mtime=0)),
                                 pieces, default_threads())
            header = gzip.compress(header, 6, mtime=0)  # a member even when empty: an empty file is no gzip
            return _write_file(path, header, zipped, unit)
        return _write_file(path, header, pieces, unit)
    except OSError as error:  # os.pwrite's errors (a full disk) name no file
        raise named(error, path) from error


def _write_file(path: str, header: bytes, pieces, unit: str) -> int:
    """Pieces written at their places in a file, by WRITERS threads."""
    rows = 0
    with atomic_path(path) as tmp, open(tmp, "wb") as handle, ThreadPoolExecutor(WRITERS) as disk:
        # Each piece's place in the file is known once the pieces before it are formatted: several
        # threads write them there at once (one thread alone writes tens of GB at half the disk's speed).
        handle.write(header)
        handle.flush()
        offset, writes = len(header), deque()
        for count, (n, text) in enumerate(pieces, 1):
            writes.append(disk.submit(_write_at, handle.fileno(), text, offset))
            offset += len(text)
            while len(writes) > 2 * WRITERS:
                writes.popleft().result()
            rows += n
            if count % 64 == 0:
                log.info("%s: %d %s written, %.1f MB", path, rows, unit, offset / 1e6)
        while writes:
            writes.popleft().result()
    log.info("%s: %d %s written, %.1f MB", path, rows, unit, offset / 1e6)
    return rows


def _write_stream(stream, header: bytes, pieces, unit: str) -> int:
    """Pieces written one after another to a stream (a pipe has no offsets)."""
    rows, size = 0, len(header)
    stream.write(header)
    for n, text in pieces:
        stream.write(text)
        rows += n
        size += len(text)
    stream.flush()
    log.info("standard output: %d %s written, %.1f MB", rows, unit, size / 1e6)
    return rows


def _write_at(fd: int, data, offset: int) -> None:
    """All of data at offset of the open file fd (os.pwrite may write less than asked)."""
    view = memoryview(data).cast("B")
    while view:
        written = os.pwrite(fd, view, offset)
        view, offset = view[written:], offset + written


def write_parts(path: str | None, parts, threads: int = 0) -> None:
    """Pieces of bytes written one after another, atomically to path, or to standard output (None).
    parts are the pieces, or callables that make them: those are called on `threads` threads (all
    the cores by default), at most a few ahead of the writer."""
    pieces = ordered_map(lambda part: part() if callable(part) else part, parts, threads or default_threads())
    if path is None:
        out = sys.stdout.buffer
        for piece in pieces:
            out.write(piece)
        out.flush()
        return
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            for count, piece in enumerate(pieces, 1):
                handle.write(piece)
                if count % 256 == 0:  # an output of unforeseen size (MEMs in repeats): its growth in the log
                    log.info("%s: %.1f MB written", path, handle.tell() / 1e6)
