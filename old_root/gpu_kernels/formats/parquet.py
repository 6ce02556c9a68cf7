"""The Parquet writer of the project's tables (a record of schema.py: HSPs today), row group by row group.

Row groups are encoded two ways. Host columns (the CPU backend, merges, `filter`) are encoded by
pyarrow, a row group at a time on the writer's threads, each into a small Parquet file in memory
whose column chunks are then spliced in: pyarrow's C++ encoders are 3-4x faster than packing the
deltas with NumPy, and they take any column type (a CIGAR string as well as integers). Pages
already encoded on a device (the GPU backend's `delta_pages`: DELTA_BINARY_PACKED, only the packed
bytes come back to the host) are compressed on the threads and written with their headers. Either
way the row groups are written in order by one disk thread, and the footer is written last
(thrift.py), from a template pyarrow makes for the schema. Another table's row groups are copied
byte for byte (the workflow's merge), whichever way they were encoded.

A column may come late (`late`: the HSPs' chains, computed on the device while the other columns
are written): its chunks follow every row group's others. Parquet's readers find each column chunk
by the offsets in the footer, so a row group's chunks need not be next to each other.
"""
from __future__ import annotations

import io
import json
import logging
import os
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import InputError
from ..hsps import complete
from ..params import Params
from ..schema import HSP, Record
from .files import atomic_path, named
from .threads import default_threads

log = logging.getLogger(__name__)

ROW_GROUP_ROWS = 1 << 21  # HSPs a Parquet row group holds (about 130 MB of columns in memory, 15 MB on disk)
ZSTD_LEVEL = -1        # zstd's fast level for device pages: twice the speed of level 1 on packed deltas, 0.4 % larger
ARROW_ZSTD_LEVEL = 1   # pyarrow's pages (bench/parquet_write.py)
SAMPLE_BYTES = 1 << 18  # bytes of a page compressed first, to tell whether the page is worth compressing
# Parquet's enum values (parquet.thrift)
_INT32, _INT64 = 1, 2
_UNCOMPRESSED, _ZSTD = 0, 6
_RLE, _DELTA_BINARY_PACKED = 3, 5
_DATA_PAGE = 0
# ColumnMetaData fields that hold file offsets: data, index and dictionary page
_OFFSETS = (9, 10, 11)


def hsp_schema():
    """The HSP table's Parquet schema (schema.HSP)."""
    return HSP.arrow_schema()


# The footer holds the metadata twice (as itself and inside Arrow's serialized schema, base64) and readers
# refuse a footer string over 100 MB (Thrift's limit in Arrow): metadata JSON past this is stored
# compressed, which millions of contig names allow many times over.
PLAIN_METADATA_BYTES = 16 << 20


def metadata_fields(meta: dict) -> dict:
    """The Parquet key-value metadata of a table's `gpu_kernels` fields: JSON, or zlib-compressed JSON in
    base64 under `gpu_kernels.zlib` where it is large (formats.tables.read_meta reads either)."""
    text = json.dumps(meta)
    if len(text) <= PLAIN_METADATA_BYTES:
        return {"gpu_kernels": text}
    import base64
    import zlib

    return {"gpu_kernels.zlib": base64.b64encode(zlib.compress(text.encode(), 6)).decode("ascii")}


def arrow_integers(values, kind):
    """An Arrow integer array (of pyarrow type kind) over a NumPy column's bytes. pa.array on a NumPy
    array first imports pandas to look for its types (0.2 s, paid by the first table a command line
    writes through pyarrow: the chains table, beside the HSP table's write); values outside the type
    are refused as pa.array refuses them."""
    import pyarrow as pa

    dtype = np.dtype(f"int{kind.bit_width}")
    values = np.asarray(values)
    if values.dtype != dtype:
        info = np.iinfo(dtype)
        if values.size and (values.min() < info.min or values.max() > info.max):
            raise ValueError(f"integer values outside {kind}")
        values = values.astype(dtype)
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(kind, values.size, [None, pa.py_buffer(values)])


class HspWriter:
    """A table of `record` (schema.py; HSPs by default) written to Parquet row group by row group,
    with min/max statistics. The file's key-value metadata holds `gpu_kernels` (JSON): the query
    and reference record tables (names, lengths), the parameters, and any extra fields given. Host
    memory is bounded by the row groups in flight. Use as a context manager: the file appears under
    its final name only when the block ends without an error."""

    def __init__(self, path: str, qnames, qlens, rnames, rlens, params: Params | None = None,
                 extra: dict | None = None, row_group_rows: int = ROW_GROUP_ROWS, threads: int = 0,
                 record: Record = HSP, late: tuple = ()):
        self.path, self.row_group_rows, self.rows, self.groups = path, row_group_rows, 0, 0
        self.record = record
        # the columns write() and write_pages() take; those in `late` come by write_pages(late=True)
        self.early = tuple(name for name in record.names if name not in late)
        self._late_group = 0  # the row group the next late chunk belongs to
        self.threads = threads or default_threads()
        meta = {"query": {"names": [str(n) for n in qnames], "lengths": [int(x) for x in qlens]},
                "reference": {"names": [str(n) for n in rnames], "lengths": [int(x) for x in rlens]},
                "params": params.as_dict() if params is not None else None, **(extra or {})}
        self.schema = record.arrow_schema(metadata_fields(meta))
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

    def write(self, columns: dict) -> None:
        """Append rows (host arrays of the record's columns; an HSP table's derived columns may be
        left out), in row groups of at most row_group_rows, each encoded by pyarrow on a worker thread."""
        assert len(self.early) == len(self.record.names), "late columns come as device pages only"
        n = len(next(iter(columns.values())))
        for at in range(0, n, self.row_group_rows):
            self._submit(self._encode, {name: column[at:at + self.row_group_rows] for name, column in columns.items()})

    def write_pages(self, pages: dict, rows: int, late: bool = False) -> list:
        """Append rows already encoded by a backend's delta_pages (host arrays; one tuple per column,
        row groups of row_group_rows): the pages are compressed on the worker threads. Returns the
        futures of that work: the pages' arrays are read until they are done. late: pages of the late
        columns only, once every row group's other columns have been given: their chunks go after
        them, row group by row group from the first."""
        futures = []
        for g in range(-(-rows // self.row_group_rows)):
            count = min(self.row_group_rows, rows - g * self.row_group_rows)
            group = self._late_group if late else None
            self._late_group += late
            futures.append(self._submit(self._pack, {name: _group(column, g) for name, column in pages.items()}, count,
                                        group=group))
        return futures

    def copy_row_groups(self, path: str) -> None:
        """Append every row group of another table of this record, byte for byte: its pages are
        neither decoded nor encoded again (the workflow's merge of its bin-pair tables)."""
        self._slots.acquire()
        self._pending.append(self._disk.submit(self._copy, path))

    def _copy(self, path: str) -> None:
        try:
            with open(path, "rb") as source:
                for group in row_groups(source, self.record, path):
                    self._splice(group)
        finally:
            self._slots.release()

    def _submit(self, fn, *args, group: int | None = None):
        self._slots.acquire()
        packed = self._pool.submit(fn, *args)
        self._pending.append(self._disk.submit(self._write, packed, group))
        while self._pending and self._pending[0].done():
            self._pending.popleft().result()  # a failed row group stops the caller here
        return packed

    def _write(self, packed, group: int | None) -> None:
        try:
            self._splice(packed.result(), group)
        finally:
            self._slots.release()

    def _encode(self, part: dict) -> tuple:
        """One row group encoded by pyarrow into a Parquet file in memory, and its column chunks
        taken out of it (on a worker thread: pyarrow releases the interpreter's lock)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self.record.base is HSP:
            part = dict(part, **complete(part))
        arrays = [arrow_integers(part[f.name], f.type) if self.record.parquet_dtype(f.name) is not None
                  else pa.array(part[f.name], type=f.type) for f in self.schema]
        buffer = io.BytesIO()
        # integer columns delta-encoded as the device's pages are (smaller and faster to write than
        # plain or dictionary pages: bench/parquet_write.py); a variable-width column takes pyarrow's default
        encodings = {f.name: "DELTA_BINARY_PACKED" for f in self.schema if pa.types.is_integer(f.type)}
        pq.write_table(pa.Table.from_arrays(arrays, schema=self.schema.remove_metadata()), buffer,
                       row_group_size=max(1, len(arrays[0])), compression="zstd", compression_level=ARROW_ZSTD_LEVEL,
                       use_dictionary=False, column_encoding=encodings, write_statistics=True)
        buffer.seek(0)
        groups = list(row_groups(buffer, self.record, "(row group in memory)"))
        assert len(groups) == 1
        return groups[0]

    def _pack(self, pages: dict, rows: int) -> tuple:
        """(pieces, their total size, column chunk entries with offsets from the start of the pieces, rows)
        of one row group of device pages. Runs on a worker thread: the large buffers are copied and
        compressed by NumPy and Arrow, which release the GIL, and never joined into one bytes object."""
        import pyarrow as pa

        from .. import thrift as T
        from ..pages import page_header

        codec = pa.Codec("zstd", compression_level=ZSTD_LEVEL)
        pieces, size, chunks = [], 0, []
        for name in (name for name in self.record.names if name in pages):
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
            width = self.record.physical_bits(name) // 8
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

    def _splice(self, encoded: tuple, group: int | None = None) -> None:
        """Write one row group's pages (or, given its number, a late column's) and keep their footer
        entries (offsets made absolute)."""
        from .. import thrift as T

        pieces, size, chunks, rows = encoded
        at = self._handle.tell()
        for piece in pieces:
            self._handle.write(piece)
        for meta in chunks:
            for number in _OFFSETS:
                if T.has_field(meta, number):
                    T.field(meta, number)[2] += at
        named = {T.field(meta, 3)[2][1][0].decode(): meta for meta in chunks}
        if group is not None:
            self._row_groups[group][0].update(named)
            return
        self._row_groups.append((named, rows))
        self.rows += rows
        self.groups += 1
        if self.groups % 16 == 0:
            log.info("%s: %d rows written (%d row groups)", self.path, self.rows, self.groups)

    def _row_group_entries(self) -> list:
        """The footer's row groups: each one's chunks in the schema's order, wherever they were written."""
        from .. import thrift as T

        entries = []
        for ordinal, (named, rows) in enumerate(self._row_groups):
            if len(named) != len(self.record.names):
                raise RuntimeError(f"{self.path}: row group {ordinal} lacks columns "
                                   f"{sorted(set(self.record.names) - set(named))}")
            chunks = [named[name] for name in self.record.names]
            entries.append([
                [1, T.LIST, [T.STRUCT, [[[2, T.I64, 0], [3, T.STRUCT, meta]] for meta in chunks]]],
                [2, T.I64, sum(T.field(meta, 6)[2] for meta in chunks)], [3, T.I64, rows],
                [5, T.I64, min(_chunk_start(meta) for meta in chunks)],
                [6, T.I64, sum(T.field(meta, 7)[2] for meta in chunks)], [7, T.I16, ordinal]])
        return entries

    def __exit__(self, kind, error, trace) -> None:
        try:
            self._finish(kind, error, trace)
        except OSError as failure:  # a full disk names no file: name it
            raise named(failure, self.path) from None

    def _finish(self, kind, error, trace) -> None:
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
            late = None
            try:
                self._handle.close()  # flushes: a full disk may say so only here
            except OSError as closing:
                if kind is None:
                    kind, error, trace, late = type(closing), closing, closing.__traceback__, closing
            self._atomic.__exit__(kind, error, trace)
            if late is not None:
                raise late

    def _footer(self) -> bytes:
        """The file's footer: pyarrow's for this schema and no rows, with the row groups written."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        from .. import thrift as T

        buffer = io.BytesIO()
        # from_batches, not schema.empty_table(): that one imports pandas (0.2 s at the end of a write)
        pq.write_table(pa.Table.from_batches([], schema=self.schema), buffer, compression="zstd", use_dictionary=False)
        data = buffer.getvalue()
        size = int.from_bytes(data[-8:-4], "little")
        footer = T.Reader(data[-8 - size:-8]).struct()
        T.field(footer, 3)[2] = self.rows
        T.field(footer, 4)[2] = [T.STRUCT, self._row_group_entries()]
        encoded = T.encode_struct(footer)
        return encoded + len(encoded).to_bytes(4, "little") + b"PAR1"


def row_groups(source, record: Record, name: str):
    """The row groups of a Parquet file of `record` open in source (a binary file object), as
    HspWriter._splice takes them: (pieces, size, column chunk entries with offsets from the row
    group's start, rows)."""
    from .. import thrift as T

    source.seek(-8, os.SEEK_END)
    size = int.from_bytes(source.read(4), "little")
    if source.read(4) != b"PAR1":
        raise InputError("not a Parquet file", name)
    source.seek(-8 - size, os.SEEK_END)
    footer = T.Reader(source.read(size)).struct()
    for group in T.field(footer, 4)[2][1]:
        chunks = [T.field(chunk, 3)[2] for chunk in T.field(group, 1)[2][1]]
        if tuple(T.field(meta, 3)[2][1][0].decode() for meta in chunks) != record.names:
            raise InputError(f"not a {record.name} table of this version (columns differ)", name)
        # the chunks are read one by one (a late column's are not next to the others), laid end to end
        pieces, size = [], 0
        for meta in chunks:
            first = _chunk_start(meta)
            length = T.field(meta, 7)[2]
            for number in _OFFSETS:  # offsets from the start of the pieces, as _splice takes them
                if T.has_field(meta, number):
                    T.field(meta, number)[2] += size - first
            source.seek(first)
            pieces.append(source.read(length))
            size += length
        yield pieces, size, chunks, T.field(group, 3)[2]


def _chunk_start(meta) -> int:
    """Where a column chunk (its ColumnMetaData) begins: at its dictionary page where it has one, else
    at its first data page."""
    from .. import thrift as T

    return min(T.field(meta, n)[2] for n in (9, 11) if T.has_field(meta, n))


def _group(column: tuple, g: int) -> tuple:
    """Row group g of a column encoded by delta_pages: (bytes, first value, minimum, maximum)."""
    data, bounds, firsts, lows, highs = column
    return data[int(bounds[g]):int(bounds[g + 1])], int(firsts[g]), int(lows[g]), int(highs[g])


def write_hsps(path: str, hsps: dict, qnames, qlens, rnames, rlens, params: Params | None = None,
               extra: dict | None = None, row_group_rows: int = ROW_GROUP_ROWS) -> None:
    """Write a whole HSP table (host arrays) as Parquet."""
    with HspWriter(path, qnames, qlens, rnames, rlens, params, extra, row_group_rows) as writer:
        writer.write(hsps)
