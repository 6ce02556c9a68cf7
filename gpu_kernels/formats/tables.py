"""Readers of the project's Parquet tables: the metadata, whole tables, row groups streamed in
order, and the slices the text formats are made from."""
from __future__ import annotations

import base64
import json
import os
import threading
import zlib

import numpy as np

from ..errors import InputError
from ..schema import HSP
from .threads import ordered_map

TEXT_SLICE_ROWS = 1 << 18  # rows one formatting task turns into text (about 35 MB of PAF)


def read_meta(path: str) -> dict:
    """The `gpu_kernels` metadata of a table: record tables, parameters, extra fields."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_schema(path).metadata or {}
    except (pa.ArrowException, OSError) as error:  # empty, truncated, not Parquet at all
        problem = str(error).split(". ")[0].rstrip(".")
        raise InputError(f"not a readable Parquet table ({problem}): empty, cut short, or another kind of file",
                         path) from None
    try:
        if b"gpu_kernels.zlib" in metadata:  # a large record table: parquet.metadata_fields
            return json.loads(zlib.decompress(base64.b64decode(metadata[b"gpu_kernels.zlib"])))
        if b"gpu_kernels" not in metadata:
            raise InputError("not a table written by gpu-genome-compare (no gpu_kernels metadata)", path)
        return json.loads(metadata[b"gpu_kernels"])
    except (ValueError, zlib.error):
        raise InputError("its gpu_kernels metadata is not JSON: not a table of this program's", path) from None


# what each kind of table this program writes is, as a command that takes another kind names it
TABLE_KINDS = {"hsps": "an HSP table (compare --hsps, align --hsps, the workflow's hsps.parquet)",
               "alignments": "an alignment table (align --table, the workflow's alignments.parquet)",
               "chains": "a chain table (--chains-table, the workflow's chains.parquet)"}


def table_kind(path: str) -> str:
    """Which kind of table (TABLE_KINDS) a Parquet file of this program's is, by its columns
    (read_meta's checks first: an unreadable or foreign file is an InputError)."""
    import pyarrow.parquet as pq

    read_meta(path)
    names = set(pq.read_schema(path).names)
    if "alignment" in names:
        return "alignments"
    if "chain" in names and "hsps" in names:
        return "chains"
    if set(HSP.stored) <= names:
        return "hsps"
    raise InputError("holds none of this program's kinds of table (HSPs, chains, alignments)", path)


def require_kind(path: str, command: str, kinds=("hsps",)) -> str:
    """The table's kind where `command` takes it, else one line naming the kind it is and those taken."""
    kind = table_kind(path)
    if kind not in kinds:
        raise InputError(f"is {TABLE_KINDS[kind]}: {command} takes " + " or ".join(TABLE_KINDS[k] for k in kinds),
                         path)
    return kind


def check_records(chunk: dict, meta: dict, path: str) -> tuple:
    """Rows whose record index is past their table's record tables are refused (InputError): they
    would index past the name tables. (query lengths, reference lengths, qrec, rrec) of the rows."""
    qlens = np.asarray(meta["query"]["lengths"], dtype=np.int64)
    rlens = np.asarray(meta["reference"]["lengths"], dtype=np.int64)
    qrec, rrec = chunk["qrec"].astype(np.int64), chunk["rrec"].astype(np.int64)
    bad = (qrec < 0) | (qrec >= qlens.size) | (rrec < 0) | (rrec >= rlens.size)
    if bad.any():
        raise InputError(f"a row's record index is outside the table's {qlens.size} query and {rlens.size} "
                         "reference records: the rows and the metadata do not belong together", path)
    return qlens, rlens, qrec, rrec


def check_rows(chunk: dict, meta: dict, path: str) -> None:
    """HSP rows that contradict their table's metadata (a record index past its names, a span outside
    its record, a strand not 0 or 1) are refused (InputError): they would print nonsense (coverage of
    8,468,720 %) or index past the name tables."""
    qlens, rlens, qrec, rrec = check_records(chunk, meta, path)
    qstart, qend, rstart = (chunk[name].astype(np.int64) for name in ("qstart", "qend", "rstart"))
    rend = rstart + (qend - qstart)
    bad = (qstart < 0) | (qend <= qstart) | (qend > qlens[qrec]) | (rstart < 0) | (rend > rlens[rrec]) | \
        ((chunk["strand"] != 0) & (chunk["strand"] != 1))
    if bad.any():
        at = int(np.argmax(bad))
        raise InputError(f"row {at} of a row group ({int(qstart[at])}-{int(qend[at])} on query record {int(qrec[at])}, "
                         f"{int(rstart[at])} on reference record {int(rrec[at])}) lies outside its records: the rows "
                         "and the metadata do not belong together", path)


def columns_of(table) -> dict:
    """An Arrow table (no nulls) as NumPy arrays, without a copy where a fixed-width column is one
    chunk. Arrow's own to_numpy imports pandas (0.2 s of a command line's start-up) to do the same;
    a variable-width column (strings) comes back as an object array."""
    import pyarrow as pa

    out = {}
    for name, column in zip(table.column_names, table.columns):
        if not pa.types.is_integer(column.type) and not pa.types.is_floating(column.type):
            out[name] = column.to_numpy()
            continue
        dtype = np.dtype(column.type.to_pandas_dtype())
        parts = [np.frombuffer(chunk.buffers()[1], dtype, len(chunk), chunk.offset * dtype.itemsize)
                 for chunk in column.chunks]
        out[name] = parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.empty(0, dtype)
    return out


def iter_hsps(path, columns=None, read_ahead: int = 0, threads: int = 2, prepare=None):
    """The HSP table a row group at a time: dicts of NumPy arrays of their stored types (the file is
    opened, and its footer read, once a reading thread). path: one table, or a list of tables read
    one after another as one (a genome pair's compare jobs' tables). read_ahead: row groups read on
    `threads` threads while the caller works on earlier ones; prepare: a function of each row group's
    columns run on the reading thread, whose results are yielded instead."""
    import pyarrow.parquet as pq

    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    local = threading.local()  # a ParquetFile read from two threads at once fails ("ReadRangeCache")

    def read(item: tuple) -> dict:
        handles = local.__dict__.setdefault("handles", {})
        if item[0] not in handles:
            handles[item[0]] = pq.ParquetFile(paths[item[0]])
        chunk = columns_of(handles[item[0]].read_row_group(item[1], columns=columns))
        return chunk if prepare is None else prepare(chunk)

    groups = [(i, g) for i, name in enumerate(paths) for g in range(pq.ParquetFile(name).num_row_groups)]
    yield from ordered_map(read, groups, 1 if read_ahead <= 0 else threads, read_ahead + 1)


def read_hsps(path: str, columns=None) -> tuple[dict, dict]:
    """(HSP columns as int64 NumPy arrays, metadata) of a whole table; use iter_hsps for big ones."""
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=list(columns or HSP.names))
    hsps = {name: column.astype(np.int64) for name, column in columns_of(table).items()}
    return hsps, read_meta(path)


def read_columns(path: str, columns: list | None = None) -> dict:
    """Every column (or those named) of a small table (a genome pair's chains or alignments) as NumPy
    arrays of their stored types."""
    import pyarrow.parquet as pq

    return columns_of(pq.read_table(path, columns=columns))


def memory_parts(hsps: dict, rows: int = 0):
    """Loaders (for write_text) of the slices of HSP columns held in memory."""
    rows = rows or TEXT_SLICE_ROWS
    n = int(np.asarray(hsps["qstart"]).size)
    for at in range(0, n, rows):
        yield lambda at=at: {name: np.asarray(column)[at:at + rows] for name, column in hsps.items()}


def table_parts(table_path: str, rows: int = 0, records: dict | None = None) -> list:
    """Loaders (for write_text) of the slices of `rows` rows (TEXT_SLICE_ROWS) of a Parquet table. A
    row group is read once, by the first thread that needs one of its slices (the others wait for
    it), and dropped when its last slice is loaded: threads format small slices in parallel while
    host memory holds only the few row groups in flight. Each row group is checked against the
    table's record tables (records: its metadata where the caller has read it; check_rows)."""
    import pyarrow.parquet as pq

    rows = rows or TEXT_SLICE_ROWS
    meta = pq.ParquetFile(table_path).metadata
    records = records or read_meta(table_path)  # the record tables the rows are checked against
    local, lock, loaded = threading.local(), threading.Lock(), {}

    def read(group: int) -> dict:
        if not hasattr(local, "handle"):
            local.handle = pq.ParquetFile(table_path)
        part = columns_of(local.handle.read_row_group(group))  # columns decoded on Arrow's threads
        check_rows(part, records, table_path)
        return part

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
        return {name: column[at:at + rows] for name, column in entry["part"].items()}

    parts = []
    for group in range(meta.num_row_groups):
        starts = range(0, meta.row_group(group).num_rows, rows)
        parts += [lambda group=group, at=at, n=len(starts): load(group, at, n) for at in starts]
    return parts
