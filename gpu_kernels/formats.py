"""Every file format the project writes or reads, in one place: the HSP table (Apache Parquet),
PAF, GECKO CSV, MUMmer's text and TSV tables.

Writers take columns, record names and lengths (never workflow objects) and are atomic: each
writes to a temporary name beside its target and renames it only when complete. The HSP table is
written row group by row group and the text formats are made from it a row group at a time with
Arrow's vectorized string kernels (no Python call per row), in parallel over row groups, so host
memory is bounded by a few row groups, never by the output.
"""
from __future__ import annotations

import csv
import errno
import json
import logging
import os
import sys
import threading
from collections import deque
from functools import partial
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from . import native
from .errors import InputError
from .hsps import COLUMNS, complete
from .pages import physical_bits
from .params import Params

log = logging.getLogger(__name__)

ROW_GROUP_ROWS = 1 << 21  # HSPs a Parquet row group holds (about 130 MB of columns in memory, 15 MB on disk)


def clear_output(path: str, inputs: tuple = ()) -> threading.Thread | None:
    """Start removing an output file left by an earlier run, on a thread, so that its pages and
    blocks are freed while the new one is computed (minimap2 truncates its -o file when it parses the
    option) rather than after it is written. Nothing is removed that is not
    a regular file, or that is one of the inputs, or while an input is missing (a mistyped name
    leaves the earlier output as it was)."""
    if not path or path == "-" or not os.path.isfile(path) or os.path.islink(path):
        return None
    for other in inputs:
        try:
            if isinstance(other, (str, os.PathLike)) and os.path.samefile(path, other):
                return None
        except OSError:  # an input that is not there: the run will stop on it
            return None

    def remove() -> None:
        try:
            os.remove(path)
        except OSError:  # gone already, or not ours to remove: the write replaces it as before
            pass
    thread = threading.Thread(target=remove, name="clear", daemon=True)
    thread.start()
    return thread


@contextmanager
def atomic_path(path: str):
    """Yield a temporary path beside path; rename it to path only when the block succeeds.

    The temporary file is not made here: the caller's open creates it (with the permissions the
    umask gives). A file made empty by an open that truncates (mkstemp, then open(..., "wb")) is
    flushed to disk by ext4 when it is closed, about a second a few GB written."""
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file name", path)
    folder = os.path.dirname(os.path.abspath(path))
    existing = folder
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):  # makedirs would say "File exists", which misleads
        raise NotADirectoryError(errno.ENOTDIR, "is a file, not a directory", existing)
    os.makedirs(folder, exist_ok=True)
    # a hidden name that does not end like the target, so no glob for finished files matches it
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.urandom(6).hex()}.part")
    try:
        yield tmp
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


# ---------------------------------------------------------------------------------------------
# The HSP table: Apache Parquet

def hsp_schema():
    """Column types on disk: record indices int32, strand int8, positions and counts int64; no nulls."""
    import pyarrow as pa

    types = {"qrec": pa.int32(), "rrec": pa.int32(), "strand": pa.int8()}
    return pa.schema([pa.field(name, types.get(name, pa.int64()), nullable=False) for name in COLUMNS])


ZSTD_LEVEL = -1        # zstd's fast level: twice the speed of level 1 on packed deltas, 0.4 % larger
SAMPLE_BYTES = 1 << 18  # bytes of a page compressed first, to tell whether the page is worth compressing
# Parquet's enum values (parquet.thrift)
_INT32, _INT64 = 1, 2
_UNCOMPRESSED, _ZSTD = 0, 6
_RLE, _DELTA_BINARY_PACKED = 3, 5
_DATA_PAGE = 0


class HspWriter:
    """An HSP table written to Parquet row group by row group: every column DELTA_BINARY_PACKED, one
    page a row group, zstd where it pays, min/max statistics.

    The pages are made by pages.delta_pages (NumPy, on the writer's threads) or handed over already
    encoded by a backend (write_pages: on the GPU, every row group of a slice at once), compressed on
    the writer's threads, and written in order with their headers; the footer is written last
    (thrift.py), from a template pyarrow makes for the schema. Host memory is bounded by the row
    groups in flight. The file's key-value metadata holds `gpu_kernels` (JSON): the query and
    reference record tables (names, lengths), the parameters, and any extra fields given. Use as a
    context manager: the file appears under its final name only when the block ends without an error.
    """

    def __init__(self, path: str, qnames, qlens, rnames, rlens, params: Params | None = None,
                 extra: dict | None = None, row_group_rows: int = ROW_GROUP_ROWS, threads: int = 0):
        self.path, self.row_group_rows, self.rows, self.groups = path, row_group_rows, 0, 0
        self.threads = threads or default_threads()
        meta = {"query": {"names": [str(n) for n in qnames], "lengths": [int(x) for x in qlens]},
                "reference": {"names": [str(n) for n in rnames], "lengths": [int(x) for x in rlens]},
                "params": params.as_dict() if params is not None else None, **(extra or {})}
        self.schema = hsp_schema().with_metadata({"gpu_kernels": json.dumps(meta)})
        self._atomic = atomic_path(path)
        self._pending: deque = deque()
        self._row_groups: list = []

    def __enter__(self) -> "HspWriter":
        self._tmp = self._atomic.__enter__()
        self._handle = open(self._tmp, "wb")  # created, not truncated: see atomic_path
        self._handle.write(b"PAR1")
        self._pool = ThreadPoolExecutor(self.threads)
        # One thread writes the packed row groups in order, so the caller (on the GPU path, the
        # thread that keeps the device encoding) never waits on the disk.
        self._disk = ThreadPoolExecutor(1)
        self._slots = threading.BoundedSemaphore(2 * self.threads)  # row groups in flight
        return self

    def write(self, hsps: dict) -> None:
        """Append rows (host arrays of the COLUMNS, or of hsps.STORED), in row groups of at most
        row_group_rows, each encoded on a worker thread (at most `threads` in flight when this returns)."""
        n = int(np.asarray(hsps["qstart"]).size)
        for at in range(0, n, self.row_group_rows):
            self._submit(self._encode, {name: column[at:at + self.row_group_rows] for name, column in hsps.items()})

    def write_pages(self, pages: dict, rows: int) -> list:
        """Append rows already encoded by a backend's delta_pages (host arrays; one tuple per column
        of COLUMNS, row groups of row_group_rows): the pages are compressed on the worker threads.
        Returns the futures of that work: the pages' arrays are read until they are done."""
        futures = []
        for g in range(-(-rows // self.row_group_rows)):
            count = min(self.row_group_rows, rows - g * self.row_group_rows)
            futures.append(self._submit(self._pack, {name: _group(column, g) for name, column in pages.items()}, count))
        return futures

    def copy_row_groups(self, path: str) -> None:
        """Append every row group of another HSP table made by HspWriter, byte for byte: its pages are
        neither decoded nor encoded again (the workflow's merge of its bin-pair tables)."""
        self._slots.acquire()
        self._pending.append(self._disk.submit(self._copy, path))

    def _copy(self, path: str) -> None:
        from . import thrift as T

        try:
            with open(path, "rb") as source:
                source.seek(-8, os.SEEK_END)
                size = int.from_bytes(source.read(4), "little")
                if source.read(4) != b"PAR1":
                    raise InputError("not a Parquet file", path)
                source.seek(-8 - size, os.SEEK_END)
                footer = T.Reader(source.read(size)).struct()
                for group in T.field(footer, 4)[2][1]:
                    start, size = T.field(group, 5)[2], T.field(group, 6)[2]
                    chunks = [T.field(chunk, 3)[2] for chunk in T.field(group, 1)[2][1]]
                    if [T.field(meta, 3)[2][1][0].decode() for meta in chunks] != list(COLUMNS):
                        raise InputError("not an HSP table of this version (columns differ)", path)
                    for meta in chunks:  # offsets from the start of the row group, as _splice takes them
                        T.field(meta, 9)[2] -= start
                    source.seek(start)
                    self._splice(([source.read(size)], size, chunks, T.field(group, 3)[2]))
        finally:
            self._slots.release()

    def _submit(self, fn, *args):
        self._slots.acquire()
        packed = self._pool.submit(fn, *args)
        self._pending.append(self._disk.submit(self._write, packed))
        while self._pending and self._pending[0].done():
            self._pending.popleft().result()  # a failed row group stops the caller here
        return packed

    def _write(self, packed) -> None:
        try:
            self._splice(packed.result())
        finally:
            self._slots.release()

    def _encode(self, part: dict) -> tuple:
        """One row group, encoded and compressed (on a worker thread)."""
        from .pages import delta_pages

        part = complete(part)
        rows = int(np.asarray(part["qstart"]).size)
        return self._pack({name: _group(delta_pages(part[name], rows, physical_bits(name)), 0) for name in COLUMNS},
                          rows)

    def _pack(self, pages: dict, rows: int) -> tuple:
        """(pieces, their total size, column chunk entries with offsets from the start of the pieces, rows)
        of one row group. Runs on a worker thread: the large buffers are copied and compressed by
        NumPy and Arrow, which release the GIL, and never joined into one bytes object."""
        import pyarrow as pa

        from . import thrift as T
        from .pages import page_header

        codec = pa.Codec("zstd", compression_level=ZSTD_LEVEL)
        pieces, size, chunks = [], 0, []
        for name in COLUMNS:
            data, first, low, high = pages[name]
            head = page_header(rows, first)
            raw = np.empty(len(head) + data.size, dtype=np.uint8)
            raw[:len(head)] = np.frombuffer(head, dtype=np.uint8)
            raw[len(head):] = data
            # Packed deltas of near-random values (scores, identities) do not shrink: a sample says so
            # before the whole page is compressed for nothing.
            sample = raw[:SAMPLE_BYTES]
            worth = raw.size <= SAMPLE_BYTES or codec.compress(sample).size < 0.9 * sample.size
            packed = codec.compress(raw) if worth else raw
            kind = _ZSTD if worth and packed.size < 0.95 * raw.size else _UNCOMPRESSED
            stored = packed if kind == _ZSTD else raw
            header = T.encode_struct([[1, T.I32, _DATA_PAGE], [2, T.I32, raw.size], [3, T.I32, stored.size],
                                      [5, T.STRUCT, [[1, T.I32, rows], [2, T.I32, _DELTA_BINARY_PACKED],
                                                     [3, T.I32, _RLE], [4, T.I32, _RLE]]]])
            width = physical_bits(name) // 8
            stats = [[3, T.I64, 0], [5, T.BINARY, int(high).to_bytes(width, "little", signed=True)],
                     [6, T.BINARY, int(low).to_bytes(width, "little", signed=True)], [7, T.TRUE, True], [8, T.TRUE, True]]
            meta = [[1, T.I32, _INT64 if width == 8 else _INT32], [2, T.LIST, [T.I32, [_RLE, _DELTA_BINARY_PACKED]]],
                    [3, T.LIST, [T.BINARY, [name.encode()]]], [4, T.I32, kind], [5, T.I64, rows],
                    [6, T.I64, len(header) + raw.size], [7, T.I64, len(header) + stored.size],
                    [9, T.I64, size], [12, T.STRUCT, stats],
                    [13, T.LIST, [T.STRUCT, [[[1, T.I32, _DATA_PAGE], [2, T.I32, _DELTA_BINARY_PACKED], [3, T.I32, 1]]]]]]
            chunks.append(meta)
            pieces += [header, stored]
            size += len(header) + stored.size
        return pieces, size, chunks, rows

    def _splice(self, encoded: tuple) -> None:
        """Write one row group's pages and keep its footer entry (offsets made absolute)."""
        from . import thrift as T

        pieces, size, chunks, rows = encoded
        at = self._handle.tell()
        for piece in pieces:
            self._handle.write(piece)
        for meta in chunks:
            T.field(meta, 9)[2] += at
        self._row_groups.append([
            [1, T.LIST, [T.STRUCT, [[[2, T.I64, 0], [3, T.STRUCT, meta]] for meta in chunks]]],
            [2, T.I64, sum(T.field(meta, 6)[2] for meta in chunks)], [3, T.I64, rows], [5, T.I64, at],
            [6, T.I64, size], [7, T.I16, len(self._row_groups)]])
        self.rows += rows
        self.groups += 1
        if self.groups % 16 == 0:
            log.info("%s: %d rows written (%d row groups)", self.path, self.rows, self.groups)

    def __exit__(self, kind, error, trace) -> None:
        try:
            if kind is None:
                while self._pending:
                    self._pending.popleft().result()
                self._handle.write(self._footer())
                log.info("%s: %d rows written (%d row groups)", self.path, self.rows, self.groups)
        except BaseException as failure:  # a row group failed late: the file must not appear either
            kind, error, trace = type(failure), failure, failure.__traceback__
            raise
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._disk.shutdown(wait=True, cancel_futures=True)
            self._handle.close()
            self._atomic.__exit__(kind, error, trace)

    def _footer(self) -> bytes:
        """The file's footer: pyarrow's for this schema and no rows, with the row groups written."""
        import io

        import pyarrow as pa
        import pyarrow.parquet as pq

        from . import thrift as T

        buffer = io.BytesIO()
        # from_batches, not schema.empty_table(): that one imports pandas (0.2 s at the end of a write)
        pq.write_table(pa.Table.from_batches([], schema=self.schema), buffer, compression="zstd", use_dictionary=False,
                       column_encoding="DELTA_BINARY_PACKED")
        data = buffer.getvalue()
        size = int.from_bytes(data[-8:-4], "little")
        footer = T.Reader(data[-8 - size:-8]).struct()
        T.field(footer, 3)[2] = self.rows
        T.field(footer, 4)[2] = [T.STRUCT, self._row_groups]
        encoded = T.encode_struct(footer)
        return encoded + len(encoded).to_bytes(4, "little") + b"PAR1"


def _group(column: tuple, g: int) -> tuple:
    """Row group g of a column encoded by delta_pages: (bytes, first value, minimum, maximum)."""
    data, bounds, firsts, lows, highs = column
    return data[int(bounds[g]):int(bounds[g + 1])], int(firsts[g]), int(lows[g]), int(highs[g])


def write_hsps(path: str, hsps: dict, qnames, qlens, rnames, rlens, params: Params | None = None,
               extra: dict | None = None, row_group_rows: int = ROW_GROUP_ROWS) -> None:
    """Write a whole HSP table (host arrays) as Parquet."""
    with HspWriter(path, qnames, qlens, rnames, rlens, params, extra, row_group_rows) as writer:
        writer.write(hsps)


def read_meta(path: str) -> dict:
    """The `gpu_kernels` metadata of an HSP table: record tables, parameters, extra fields."""
    import pyarrow.parquet as pq

    return json.loads(pq.read_schema(path).metadata[b"gpu_kernels"])


def columns_of(table) -> dict:
    """An Arrow table of HSP columns (no nulls) as NumPy arrays, without a copy where a column is one
    chunk. Arrow's own to_numpy imports pandas (0.2 s of a command line's start-up) to do the same."""
    out = {}
    for name, column in zip(table.column_names, table.columns):
        dtype = np.dtype(column.type.to_pandas_dtype())
        parts = [np.frombuffer(chunk.buffers()[1], dtype, len(chunk), chunk.offset * dtype.itemsize)
                 for chunk in column.chunks]
        out[name] = parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.empty(0, dtype)
    return out


def iter_hsps(path: str, columns=None, read_ahead: int = 0, threads: int = 2, prepare=None):
    """The HSP table a row group at a time: dicts of NumPy arrays of their stored types (the file is
    opened, and its footer read, once a reading thread). read_ahead: row groups read on `threads`
    threads while the caller works on earlier ones; prepare: a function of each row group's columns
    run on the reading thread, whose results are yielded instead."""
    import pyarrow.parquet as pq

    local = threading.local()  # a ParquetFile read from two threads at once fails ("ReadRangeCache")

    def read(index: int) -> dict:
        if not hasattr(local, "handle"):
            local.handle = pq.ParquetFile(path)
        chunk = columns_of(local.handle.read_row_group(index, columns=columns))
        return chunk if prepare is None else prepare(chunk)

    groups = pq.ParquetFile(path).num_row_groups
    yield from ordered_map(read, range(groups), 1 if read_ahead <= 0 else threads, read_ahead + 1)


def read_hsps(path: str, columns=None) -> tuple[dict, dict]:
    """(HSP columns as int64 NumPy arrays, metadata) of a whole table; use iter_hsps for big ones."""
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=list(columns or COLUMNS))
    hsps = {name: column.astype(np.int64) for name, column in columns_of(table).items()}
    return hsps, read_meta(path)


# ---------------------------------------------------------------------------------------------
# Text formats, made from HSP columns a row group at a time

TEXT_SLICE_ROWS = 1 << 18  # rows one formatting task turns into text (about 35 MB of PAF)
# Slices of a table in flight a formatting thread: a few row groups read ahead, so that the threads
# never wait on one group's read (16 threads: about 1.7 GB of PAF and 6 row groups of columns).
READ_AHEAD = 3


def ordered_map(fn, items, threads: int, window: int = 0):
    """fn over items on a thread pool, results in order, at most `window` (default threads + 1) in
    flight, so memory stays bounded however long items is."""
    if threads <= 1:
        yield from map(fn, items)
        return
    window = max(window, threads + 1)
    with ThreadPoolExecutor(threads) as pool:
        pending: deque = deque()
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def default_threads() -> int:
    """Threads for text formatting: the cores this process may use, at most 16."""
    try:
        return max(1, min(16, len(os.sched_getaffinity(0))))
    except AttributeError:
        return max(1, min(16, os.cpu_count() or 1))


def _compiled():
    """The compiled row printer (format.c)."""
    return native.module("_format")


def format_rows(n: int, fields: tuple) -> memoryview:
    """n text rows of fields (kinds in format.c: "s" text, "i" int64 column, "f" float64 column with
    decimals, "n" an index column into a string table), printed by compiled code with the GIL released."""
    compiled = _compiled()
    merged: list = []
    for field in map(_field, fields):  # neighbouring texts as one
        if merged and field[0] == "s" and merged[-1][0] == "s":
            merged[-1] = ("s", merged[-1][1] + field[1])
        else:
            merged.append(field)
    fields = tuple(merged)
    out = np.empty(compiled.row_bound(n, fields), dtype=np.uint8)
    return memoryview(out)[:compiled.format_rows(out, n, fields)]


def _field(field):
    """A field with its columns made contiguous in the type format.c reads."""
    if isinstance(field, str):
        return ("s", field.encode())
    kind = field[0]
    if kind == "i":
        return ("i", np.ascontiguousarray(field[1], dtype=np.int64), *field[2:])
    if kind == "f":
        return ("f", np.ascontiguousarray(field[1], dtype=np.float64), int(field[2]))
    if kind == "n":
        return ("n", np.ascontiguousarray(field[1], dtype=np.int64), *field[2])
    return field


def _rows(columns: list, sep: str) -> tuple:
    """Fields of a row: the columns with sep between them and a line break at the end; a column given
    as a list is several fields printed together (a tag's name and its value)."""
    fields = []
    for column in columns:
        fields += column if isinstance(column, list) else [column]
        fields.append(sep)
    fields[-1] = "\n"
    return tuple(fields)


STRANDS = ("+", "-")


def paf_text(hsps: dict, qnames, qlens, rnames, rlens) -> memoryview:
    """PAF rows: cigar <len>M; NM mismatches, AS score, de divergence, id identity percent."""
    hsps = complete(hsps)
    qrec, rrec = np.asarray(hsps["qrec"]), np.asarray(hsps["rrec"])
    length, ids = np.asarray(hsps["length"], dtype=np.int64), np.asarray(hsps["identities"], dtype=np.int64)
    if length.size == 0:
        return memoryview(b"")
    identity = np.divide(ids, length, out=np.zeros(length.size), where=length > 0)
    columns = [("n", qrec, name_table(qnames)), ("i", np.asarray(qlens, dtype=np.int64)[qrec]),
               ("i", hsps["qstart"]), ("i", hsps["qend"]), ("n", hsps["strand"], name_table(STRANDS)),
               ("n", rrec, name_table(rnames)), ("i", np.asarray(rlens, dtype=np.int64)[rrec]),
               ("i", hsps["rstart"]), ("i", hsps["rend"]), ("i", ids), ("i", length), "255",
               ["NM:i:", ("i", length - ids)], ["AS:i:", ("i", hsps["score"])], ["de:f:", ("f", 1 - identity, 4)],
               ["id:f:", ("f", 100 * identity, 2)], ["cg:Z:", ("i", length), "M"]]
    return format_rows(int(length.size), _rows(columns, "\t"))


def name_table(names) -> tuple:
    """Record names as a string table for format_rows (bytes, int64 offsets): convert once, then pass
    it to paf_text for every slice."""
    if isinstance(names, tuple) and len(names) == 2 and isinstance(names[0], bytes):
        return names
    encoded = [str(n).encode() for n in names]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return b"".join(encoded), offsets


def memory_parts(hsps: dict):
    """Loaders (for write_text) of the slices of HSP columns held in memory."""
    n = int(np.asarray(hsps["qstart"]).size)
    for at in range(0, n, TEXT_SLICE_ROWS):
        yield lambda at=at: {name: np.asarray(column)[at:at + TEXT_SLICE_ROWS] for name, column in hsps.items()}


def table_parts(table_path: str) -> list:
    """Loaders (for write_text) of the slices of TEXT_SLICE_ROWS rows of a Parquet HSP table. A row
    group is read once, by the first thread that needs one of its slices (the others wait for it),
    and dropped when its last slice is loaded: threads format small slices in parallel while host
    memory holds only the few row groups in flight."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(table_path).metadata
    local, lock, loaded = threading.local(), threading.Lock(), {}

    def read(group: int) -> dict:
        if not hasattr(local, "handle"):
            local.handle = pq.ParquetFile(table_path)
        return columns_of(local.handle.read_row_group(group))  # columns decoded on Arrow's threads

    def load(group: int, at: int, slices: int) -> dict:
        with lock:
            entry = loaded.get(group)
            owner = entry is None
            if owner:
                entry = loaded[group] = {"ready": threading.Event(), "left": slices, "part": None, "error": None}
        if owner:
            try:
                entry["part"] = read(group)
            except BaseException as error:  # the waiting threads raise it too
                entry["error"] = error
                raise
            finally:
                entry["ready"].set()
        entry["ready"].wait()
        with lock:
            entry["left"] -= 1
            if entry["left"] == 0:
                del loaded[group]
        if entry["error"] is not None:
            raise entry["error"]
        return {name: column[at:at + TEXT_SLICE_ROWS] for name, column in entry["part"].items()}

    parts = []
    for group in range(meta.num_row_groups):
        rows = meta.row_group(group).num_rows
        starts = range(0, rows, TEXT_SLICE_ROWS)
        parts += [lambda group=group, at=at, n=len(starts): load(group, at, n) for at in starts]
    return parts


def write_paf(path: str, hsps: dict, qnames, qlens, rnames, rlens, threads: int = 0) -> int:
    """Write PAF atomically from HSP columns in memory; returns the rows written."""
    qnames, rnames = name_table(qnames), name_table(rnames)
    return write_text(path, memory_parts(hsps), lambda h: paf_text(h, qnames, qlens, rnames, rlens),
                      threads=threads)


def write_text(path: str, parts, fn, header: bytes = b"", threads: int = 0, window: int = 0) -> int:
    """Write a text format made by fn(columns): parts are loaders (callables returning at most
    TEXT_SLICE_ROWS rows of HSP columns: a slice of a table's row group, of a table in memory, or
    copied off a device), each loaded and formatted on a worker thread; the text is written in order,
    atomically, or to standard output when path is "-". At most `window` parts in flight (at least
    threads + 1). Returns the rows written."""
    threads = threads or default_threads()

    def task(load) -> tuple[int, memoryview]:
        part = load()
        return int(part["qstart"].size), fn(part)

    pieces = ordered_map(task, parts, threads, window)
    if path == "-":
        return _write_stream(sys.stdout.buffer, header, pieces)
    try:
        return _write_file(path, header, pieces)
    except OSError as error:  # os.pwrite's errors (a full disk) name no file
        if error.filename is None:
            raise OSError(error.errno, error.strerror or str(error), path) from error
        raise


def _write_file(path: str, header: bytes, pieces) -> int:
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
                log.info("%s: %d rows written", path, rows)
        while writes:
            writes.popleft().result()
    log.info("%s: %d rows written", path, rows)
    return rows


def _write_stream(stream, header: bytes, pieces) -> int:
    """Pieces written one after another to a stream (a pipe has no offsets)."""
    rows = 0
    stream.write(header)
    for n, text in pieces:
        stream.write(text)
        rows += n
    stream.flush()
    log.info("standard output: %d rows written", rows)
    return rows


WRITERS = 4  # threads writing a text file's pieces


def _write_at(fd: int, data, offset: int) -> None:
    """All of data at offset of the open file fd (os.pwrite may write less than asked)."""
    view = memoryview(data).cast("B")
    while view:
        written = os.pwrite(fd, view, offset)
        view, offset = view[written:], offset + written


def paf_from_table(table_path: str, path: str, threads: int = 0) -> int:
    """PAF of every HSP of a Parquet HSP table, row groups read and formatted in parallel; returns
    the rows written."""
    meta = read_meta(table_path)
    q, r = meta["query"], meta["reference"]
    qlens, rlens = np.asarray(q["lengths"], dtype=np.int64), np.asarray(r["lengths"], dtype=np.int64)
    qnames, rnames = name_table(q["names"]), name_table(r["names"])
    threads = threads or default_threads()
    return write_text(path, table_parts(table_path), lambda h: paf_text(h, qnames, qlens, rnames, rlens),
                      threads=threads, window=READ_AHEAD * threads)


def gecko_header(qgenome: str, qlens, rgenome: str, rlens, params: Params, seeds: int, kept: int, rows: int) -> bytes:
    """GECKO's 17-line CSV header with real values."""
    e, rep = params.extension, params.reporting
    lines = [
        "All by-Identity Ungapped Fragments (Hits based approach)",
        "[Abr.98/Apr.2010/Dec.2011 -- <ortrelles@uma.es>",
        f"SeqX filename        : {qgenome}",
        f"SeqY filename        : {rgenome}",
        f"SeqX name            : {qgenome}",
        f"SeqY name            : {rgenome}",
        f"SeqX length          : {int(np.sum(qlens))}",
        f"SeqY length          : {int(np.sum(rlens))}",
        f"Min.fragment.length  : {rep.min_len}",
        f"Min.Identity         : {e.min_identity:g}",
        f"Tot Hits (seeds)     : {seeds}",
        f"Tot Hits (seeds) used: {kept}",
        f"Total fragments      : {rows}",
        "========================================================",
        "Total CSB: 0",
        "========================================================",
        "Type,xStart,yStart,xEnd,yEnd,strand(f/r),block,length,score,ident,similarity,%ident,SeqX,SeqY",
    ]
    return ("\n".join(lines) + "\n").encode()


def gecko_text(hsps: dict, qlens, rlens, match: int) -> memoryview:
    """GECKO CSV rows (after the header), as GECKO's getInfoCSB writes them since 2018: coordinates
    0-based and inclusive on the records laid end to end (GECKO numbers a multi-FASTA so), reverse
    fragments from the higher reference coordinate to the lower; similarity (score over the best
    possible score) and %ident both percentages with two decimals (GECKO-MGV filters both on 0-100)."""
    hsps = complete(hsps)
    qrec, rrec = np.asarray(hsps["qrec"], dtype=np.int64), np.asarray(hsps["rrec"], dtype=np.int64)
    if qrec.size == 0:
        return memoryview(b"")
    qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
    qoff = np.concatenate(([0], np.cumsum(qlens)[:-1]))
    roff = np.concatenate(([0], np.cumsum(rlens)[:-1]))
    x0 = hsps["qstart"] + qoff[qrec]
    x1 = hsps["qend"] - 1 + qoff[qrec]
    lo = hsps["rstart"] + roff[rrec]
    hi = hsps["rend"] - 1 + roff[rrec]
    forward = np.asarray(hsps["strand"]) == 0
    length = np.asarray(hsps["length"], dtype=np.int64)
    score = np.asarray(hsps["score"], dtype=np.int64)
    ids = np.asarray(hsps["identities"], dtype=np.int64)
    columns = ["Frag", ("i", x0), ("i", np.where(forward, lo, hi)), ("i", x1), ("i", np.where(forward, hi, lo)),
               ("n", (~forward).astype(np.int64), name_table(("f", "r"))), "0", ("i", length), ("i", score),
               ("i", ids), ("f", 100.0 * score / np.maximum(1, length * match), 2),
               ("f", 100.0 * ids / np.maximum(1, length), 2), ("i", qrec), ("i", rrec)]
    return format_rows(int(qrec.size), _rows(columns, ","))


def gecko_csv_from_table(table_path: str, path: str, qgenome: str, rgenome: str, seeds: int, kept: int,
                         threads: int = 0) -> int:
    """GECKO CSV of every HSP of a Parquet HSP table; returns the rows written."""
    import pyarrow.parquet as pq

    meta = read_meta(table_path)
    params = Params(**meta["params"])
    qlens, rlens = meta["query"]["lengths"], meta["reference"]["lengths"]
    rows = pq.ParquetFile(table_path).metadata.num_rows
    header = gecko_header(qgenome, qlens, rgenome, rlens, params, seeds, kept, rows)
    threads = threads or default_threads()
    return write_text(path, table_parts(table_path), lambda h: gecko_text(h, qlens, rlens, params.extension.match),
                      header, threads, READ_AHEAD * threads)


def write_gecko_csv(path: str, hsps: dict, qgenome: str, qlens, rgenome: str, rlens, params: Params,
                    seeds: int, kept: int, threads: int = 0) -> int:
    """GECKO CSV atomically from HSP columns in memory; returns the rows written."""
    n = int(np.asarray(hsps["qstart"]).size)
    header = gecko_header(qgenome, qlens, rgenome, rlens, params, seeds, kept, n)
    return write_text(path, memory_parts(hsps), lambda h: gecko_text(h, qlens, rlens, params.extension.match),
                      header, threads)


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
            for piece in pieces:
                handle.write(piece)


MUMMER_ROWS = 1 << 20  # rows of MUMmer text printed at once


def mummer_parts(matches: dict, qnames, qlens, rnames, records: range | None = None):
    """MUMmer's output with -b -c, as pieces of bytes: a '>' header per query record and strand, then
    reference position, query position and length (1-based; reverse query positions on the forward
    strand, as -c gives them), each right-aligned in 8 columns, with the reference name first (padded
    to the longest) when the reference has several records. Rows are printed by format.c a million
    at a time: the pieces are callables that print them (write_parts calls them on its threads).
    records: the query records printed (all by default); matches hold rows of those alone."""
    from .hsps import in_order, order_by

    names = list(rnames)
    width = max(len(n) for n in names)
    qlens = np.asarray(qlens, dtype=np.int64)
    columns = [np.asarray(matches[c]) for c in ("qrec", "strand", "qstart", "rstart")]
    spans = [len(qnames), 2, int(qlens.max()) + 1, int(columns[3].max()) + 1 if columns[3].size else 1]
    if in_order(columns, spans):
        m = {key: np.asarray(value) for key, value in matches.items()}
    else:
        order = order_by(columns, spans)
        m = {key: np.asarray(value)[order] for key, value in matches.items()}
    bounds = np.searchsorted(m["qrec"] * 2 + m["strand"], np.arange(2 * len(qnames) + 1))
    padded = name_table([f"  {n:<{width}}  " for n in names])
    for i in records if records is not None else range(len(qnames)):
        qname = qnames[i]
        for strand in (0, 1):
            yield f"> {qname}{' Reverse' if strand else ''}\n".encode()
            for at in range(bounds[2 * i + strand], bounds[2 * i + strand + 1], MUMMER_ROWS):
                block = slice(at, min(at + MUMMER_ROWS, bounds[2 * i + strand + 1]))
                qpos = qlens[i] - m["qstart"][block] if strand else m["qstart"][block] + 1
                fields = [("n", m["rrec"][block], padded)] if len(names) > 1 else []
                fields += [("i", m["rstart"][block] + 1, 8), "  ", ("i", qpos, 8), "  ", ("i", m["length"][block], 8),
                           "\n"]
                yield partial(format_rows, block.stop - block.start, tuple(fields))


def write_tsv(path: str, rows, fields: list[str] | None = None) -> None:
    """A table (a pandas DataFrame, or rows as dicts) tab-separated with a header line, written atomically."""
    import pandas as pd

    table = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows), columns=fields)
    with atomic_path(path) as tmp:
        table.to_csv(tmp, sep="\t", index=False, lineterminator="\n")


def read_tsv(path: str) -> list[dict]:
    """Rows of a table written by write_tsv."""
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))
