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
import tempfile
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from .hsps import COLUMNS, complete
from .params import Params

log = logging.getLogger(__name__)

ROW_GROUP_ROWS = 1 << 21  # HSPs a Parquet row group holds (about 130 MB of columns in memory, 15 MB on disk)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(path: str):
    """Yield a temporary path beside path; rename it to path only when the block succeeds.

    The file gets the permissions the umask gives a new file (mkstemp alone would leave it 0600)."""
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
    handle, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".part")
    os.close(handle)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# ---------------------------------------------------------------------------------------------
# The HSP table: Apache Parquet

NARROW = ("qrec", "rrec", "strand")  # columns stored as Parquet INT32 (int32 record indices, int8 strand)


def physical_bits(name: str) -> int:
    """The width of a column's Parquet physical type (INT32 or INT64), in which its deltas wrap."""
    return 32 if name in NARROW else 64


def hsp_schema():
    """Column types on disk: record indices int32, strand int8, positions and counts int64; no nulls."""
    import pyarrow as pa

    types = {"qrec": pa.int32(), "rrec": pa.int32(), "strand": pa.int8()}
    return pa.schema([pa.field(name, types.get(name, pa.int64()), nullable=False) for name in COLUMNS])


ZSTD_LEVEL = 1
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
        self._handle = open(self._tmp, "wb")
        self._handle.write(b"PAR1")
        self._pool = ThreadPoolExecutor(self.threads)
        return self

    def write(self, hsps: dict) -> None:
        """Append rows (host arrays of the COLUMNS, or of hsps.STORED), in row groups of at most
        row_group_rows, each encoded on a worker thread (at most `threads` in flight when this returns)."""
        n = int(np.asarray(hsps["qstart"]).size)
        for at in range(0, n, self.row_group_rows):
            self._submit(self._encode, {name: column[at:at + self.row_group_rows] for name, column in hsps.items()})

    def write_pages(self, pages: dict, rows: int) -> None:
        """Append rows already encoded by a backend's delta_pages (host arrays; one tuple per column
        of COLUMNS, row groups of row_group_rows): the pages are compressed on the worker threads."""
        for g in range(-(-rows // self.row_group_rows)):
            count = min(self.row_group_rows, rows - g * self.row_group_rows)
            self._submit(self._pack, {name: _group(column, g) for name, column in pages.items()}, count)

    def _submit(self, fn, *args) -> None:
        self._pending.append(self._pool.submit(fn, *args))
        while len(self._pending) > self.threads:
            self._splice(self._pending.popleft().result())

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
            packed = codec.compress(raw)
            kind = _ZSTD if packed.size < 0.95 * raw.size else _UNCOMPRESSED
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
                    self._splice(self._pending.popleft().result())
                self._handle.write(self._footer())
                log.info("%s: %d rows written (%d row groups)", self.path, self.rows, self.groups)
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._handle.close()
            self._atomic.__exit__(kind, error, trace)

    def _footer(self) -> bytes:
        """The file's footer: pyarrow's for this schema and no rows, with the row groups written."""
        import io

        import pyarrow.parquet as pq

        from . import thrift as T

        buffer = io.BytesIO()
        pq.write_table(self.schema.empty_table(), buffer, compression="zstd", use_dictionary=False,
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


def iter_hsps(path: str, columns=None):
    """The HSP table a row group at a time: dicts of NumPy arrays of their stored types (the file is
    opened, and its footer read, once)."""
    import pyarrow.parquet as pq

    handle = pq.ParquetFile(path)
    for index in range(handle.num_row_groups):
        table = handle.read_row_group(index, columns=columns)
        yield {name: table.column(name).to_numpy() for name in table.column_names}


def read_columns(path: str, columns) -> dict:
    """Some columns of a whole HSP table as NumPy arrays of their stored types (int32 record
    indices, int8 strand: a third of the memory of int64 columns)."""
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=list(columns))
    return {name: table.column(name).to_numpy() for name in table.column_names}


def read_hsps(path: str, columns=None) -> tuple[dict, dict]:
    """(HSP columns as int64 NumPy arrays, metadata) of a whole table; use iter_hsps for big ones."""
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=list(columns or COLUMNS))
    hsps = {name: table.column(name).to_numpy().astype(np.int64) for name in table.column_names}
    return hsps, read_meta(path)


# ---------------------------------------------------------------------------------------------
# Text formats, made from HSP columns a row group at a time

TEXT_SLICE_ROWS = 1 << 18  # rows one formatting task turns into text (about 40 MB of PAF)


def ordered_map(fn, items, threads: int):
    """fn over items on a thread pool, results in order, at most threads + 1 in flight (so memory
    stays bounded however long items is)."""
    if threads <= 1:
        yield from map(fn, items)
        return
    with ThreadPoolExecutor(threads) as pool:
        pending: deque = deque()
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) > threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def default_threads() -> int:
    """Threads for text formatting: the cores this process may use, at most 16."""
    try:
        return max(1, min(16, len(os.sched_getaffinity(0))))
    except AttributeError:
        return max(1, min(16, os.cpu_count() or 1))


def _text(array) -> memoryview:
    """The bytes of a string array whose every element ends with its own line break (no copy)."""
    import pyarrow as pa

    array = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    if len(array) == 0:
        return memoryview(b"")
    width = 8 if pa.types.is_large_string(array.type) else 4
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64 if width == 8 else np.int32,
                            count=len(array) + 1, offset=array.offset * width)
    return memoryview(array.buffers()[2])[int(offsets[0]):int(offsets[-1])]


def _ints(values):
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.cast(pa.array(np.asarray(values, dtype=np.int64)), pa.string())


def _fixed(values, decimals: int):
    """Float64 values as text with a fixed number of decimals, exactly as printf's %.Nf writes them.

    Vectorized: scale and round; the few values whose scaled fraction lies within 1e-6 of one half
    (where the scaling itself could tip the rounding) are formatted by Python, digit for digit."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = np.asarray(values, dtype=np.float64)
    scale = 10 ** decimals
    magnitude = np.abs(values) * scale
    q = np.floor(magnitude)
    frac = magnitude - q
    q = (q + (frac > 0.5)).astype(np.int64)
    near = np.flatnonzero(np.abs(frac - 0.5) < 1e-6)
    for i in near.tolist():  # rare: exact ties and near-ties
        q[i] = int(("%.*f" % (decimals, abs(values[i]))).replace(".", ""))
    whole, part = np.divmod(q, scale)
    text = pc.binary_join_element_wise(_ints(whole), pc.utf8_lpad(_ints(part), width=decimals, padding="0"), ".")
    negative = np.signbit(values)
    if not negative.any():
        return text
    return pc.if_else(pa.array(negative), pc.binary_join_element_wise("-", text, ""), text)


def paf_text(hsps: dict, qnames, qlens, rnames, rlens) -> memoryview:
    """PAF rows: cigar <len>M; NM mismatches, AS score, de divergence, id identity percent."""
    import pyarrow as pa
    import pyarrow.compute as pc

    hsps = complete(hsps)
    qrec, rrec = np.asarray(hsps["qrec"]), np.asarray(hsps["rrec"])
    length, ids = np.asarray(hsps["length"], dtype=np.int64), np.asarray(hsps["identities"], dtype=np.int64)
    if length.size == 0:
        return memoryview(b"")
    identity = np.divide(ids, length, out=np.zeros(length.size), where=length > 0)
    strand = pa.array(["+", "-"]).take(pa.array(np.asarray(hsps["strand"], dtype=np.int64)))
    columns = [name_array(qnames).take(pa.array(qrec)), _ints(np.asarray(qlens)[qrec]), _ints(hsps["qstart"]),
               _ints(hsps["qend"]), strand, name_array(rnames).take(pa.array(rrec)), _ints(np.asarray(rlens)[rrec]),
               _ints(hsps["rstart"]), _ints(hsps["rend"]), _ints(ids), _ints(length), pa.scalar("255"),
               pc.binary_join_element_wise("NM:i:", _ints(length - ids), ""),
               pc.binary_join_element_wise("AS:i:", _ints(hsps["score"]), ""),
               pc.binary_join_element_wise("de:f:", _fixed(1 - identity, 4), ""),
               pc.binary_join_element_wise("id:f:", _fixed(100 * identity, 2), ""),
               pc.binary_join_element_wise("cg:Z:", _ints(length), "M\n", "")]
    return _text(pc.binary_join_element_wise(*columns, "\t"))


def name_array(names):
    """Record names as an Arrow string array: convert once, then pass it to paf_text for every slice."""
    import pyarrow as pa

    return names if isinstance(names, pa.Array) else pa.array([str(n) for n in names], type=pa.string())


def _memory_slices(hsps: dict):
    n = int(np.asarray(hsps["qstart"]).size)
    for at in range(0, n, TEXT_SLICE_ROWS):
        yield {name: np.asarray(column)[at:at + TEXT_SLICE_ROWS] for name, column in hsps.items()}


def write_paf(path: str, hsps: dict, qnames, qlens, rnames, rlens, threads: int = 0) -> int:
    """Write PAF atomically from HSP columns in memory; returns the rows written."""
    qnames, rnames = name_array(qnames), name_array(rnames)
    return write_text(path, _memory_slices(hsps), lambda h: paf_text(h, qnames, qlens, rnames, rlens),
                      threads=threads)


def _slices(table_path: str):
    """The HSP table as slices of TEXT_SLICE_ROWS rows, read a row group at a time."""
    for part in iter_hsps(table_path):
        n = int(part["qstart"].size)
        for at in range(0, n, TEXT_SLICE_ROWS):
            yield {name: column[at:at + TEXT_SLICE_ROWS] for name, column in part.items()}


def write_text(path: str, slices, fn, header: bytes = b"", threads: int = 0) -> int:
    """Write a text format made by fn(columns) of every slice: slices formatted in parallel, written in
    order, atomically; returns the rows written."""
    threads = threads or default_threads()
    rows = 0
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            handle.write(header)
            for count, (n, text) in enumerate(ordered_map(lambda part: (int(part["qstart"].size), fn(part)),
                                                          slices, threads), 1):
                handle.write(text)
                rows += n
                if count % 64 == 0:
                    log.info("%s: %d rows written", path, rows)
    log.info("%s: %d rows written", path, rows)
    return rows


def paf_from_table(table_path: str, path: str, threads: int = 0) -> int:
    """PAF of every HSP of a Parquet HSP table; returns the rows written."""
    meta = read_meta(table_path)
    q, r = meta["query"], meta["reference"]
    qlens, rlens = np.asarray(q["lengths"], dtype=np.int64), np.asarray(r["lengths"], dtype=np.int64)
    qnames, rnames = name_array(q["names"]), name_array(r["names"])
    return write_text(path, _slices(table_path), lambda h: paf_text(h, qnames, qlens, rnames, rlens),
                      threads=threads)


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
    """GECKO CSV rows (after the header): coordinates 1-based and inclusive on the records laid end to
    end (as GECKO numbers a multi-FASTA); reverse fragments run from the higher reference coordinate
    to the lower."""
    import pyarrow as pa
    import pyarrow.compute as pc

    hsps = complete(hsps)
    qrec, rrec = np.asarray(hsps["qrec"], dtype=np.int64), np.asarray(hsps["rrec"], dtype=np.int64)
    if qrec.size == 0:
        return memoryview(b"")
    qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
    qoff = np.concatenate(([0], np.cumsum(qlens)[:-1]))
    roff = np.concatenate(([0], np.cumsum(rlens)[:-1]))
    x0 = hsps["qstart"] + qoff[qrec] + 1
    x1 = hsps["qend"] + qoff[qrec]
    lo = hsps["rstart"] + roff[rrec] + 1
    hi = hsps["rend"] + roff[rrec]
    forward = np.asarray(hsps["strand"]) == 0
    length = np.asarray(hsps["length"], dtype=np.int64)
    score = np.asarray(hsps["score"], dtype=np.int64)
    ids = np.asarray(hsps["identities"], dtype=np.int64)
    strand = pa.array(["f", "r"]).take(pa.array((~forward).astype(np.int64)))
    columns = ["Frag", _ints(x0), _ints(np.where(forward, lo, hi)), _ints(x1), _ints(np.where(forward, hi, lo)),
               strand, "0", _ints(length), _ints(score), _ints(ids),
               _fixed(100.0 * score / np.maximum(1, length * match), 2), _fixed(ids / np.maximum(1, length), 2),
               _ints(qrec), pc.binary_join_element_wise(_ints(rrec), "\n", "")]
    return _text(pc.binary_join_element_wise(*columns, ","))


def gecko_csv_from_table(table_path: str, path: str, qgenome: str, rgenome: str, seeds: int, kept: int,
                         threads: int = 0) -> int:
    """GECKO CSV of every HSP of a Parquet HSP table; returns the rows written."""
    import pyarrow.parquet as pq

    meta = read_meta(table_path)
    params = Params(**meta["params"])
    qlens, rlens = meta["query"]["lengths"], meta["reference"]["lengths"]
    rows = pq.ParquetFile(table_path).metadata.num_rows
    header = gecko_header(qgenome, qlens, rgenome, rlens, params, seeds, kept, rows)
    return write_text(path, _slices(table_path), lambda h: gecko_text(h, qlens, rlens, params.extension.match),
                      header, threads)


def write_gecko_csv(path: str, hsps: dict, qgenome: str, qlens, rgenome: str, rlens, params: Params,
                    seeds: int, kept: int, threads: int = 0) -> int:
    """GECKO CSV atomically from HSP columns in memory; returns the rows written."""
    n = int(np.asarray(hsps["qstart"]).size)
    header = gecko_header(qgenome, qlens, rgenome, rlens, params, seeds, kept, n)
    return write_text(path, _memory_slices(hsps), lambda h: gecko_text(h, qlens, rlens, params.extension.match),
                      header, threads)


def write_string(path: str, text: str) -> None:
    """Write a string atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "w") as handle:
            handle.write(text)


def mummer_text(matches: dict, qnames, qlens, rnames) -> str:
    """MUMmer's output with -b -c: a '>' header per query record and strand, then reference position,
    query position and length (1-based; reverse query positions on the forward strand, as -c gives
    them), with the reference name first when the reference has several records."""
    names = list(rnames)
    width = max(len(n) for n in names)
    lines = []
    order = np.lexsort((matches["rstart"], matches["qstart"], matches["strand"], matches["qrec"]))
    m = {key: value[order] for key, value in matches.items()}
    bounds = np.searchsorted(m["qrec"] * 2 + m["strand"], np.arange(2 * len(qnames) + 1))
    for i, qname in enumerate(qnames):
        for strand in (0, 1):
            lines.append(f"> {qname}" + (" Reverse" if strand else ""))
            block = slice(bounds[2 * i + strand], bounds[2 * i + strand + 1])
            qpos = m["qstart"][block] + 1
            if strand:
                qpos = np.asarray(qlens)[i] - m["qstart"][block]
            for rrec, rpos, qp, length in zip(m["rrec"][block].tolist(), (m["rstart"][block] + 1).tolist(),
                                              qpos.tolist(), m["length"][block].tolist()):
                if len(names) > 1:
                    lines.append(f"  {names[rrec]:<{width}}  {rpos:8d}  {qp:8d}  {length:8d}")
                else:
                    lines.append(f"{rpos:8d}  {qp:8d}  {length:8d}")
    return "\n".join(lines) + "\n"


def write_tsv(path: str, rows: list[dict], fields: list[str] | None = None) -> None:
    """Rows as a tab-separated table with a header line, written atomically."""
    fields = fields or (list(rows[0]) if rows else [])
    with atomic_path(path) as tmp:
        with open(tmp, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields, delimiter="\t", lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)


def read_tsv(path: str) -> list[dict]:
    """Rows of a table written by write_tsv."""
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))
