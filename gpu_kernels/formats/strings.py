"""String tables (a string a row: the bytes of all of them and int64 offsets, as format.c reads them)
and Arrow's large_binary arrays, one as the other without copying the strings; rows taken in any
order, a string copied once (bytes.c); tables saved in one packed file (formats.packed)."""
from __future__ import annotations

import numpy as np


def arrow_strings(text):
    """A string table (bytes or a uint8 array, int64 offsets) as an Arrow large_binary array, its
    buffers shared, not copied; an Arrow array as it is."""
    import pyarrow as pa

    if not isinstance(text, tuple):
        return text
    data, offsets = text
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    return pa.LargeBinaryArray.from_buffers(pa.large_binary(), offsets.size - 1,
                                            [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def string_table(array) -> tuple:
    """An Arrow binary array as a string table (a uint8 array, int64 offsets from 0), sharing its
    buffers."""
    import pyarrow as pa

    array = array.cast(pa.large_binary())
    n = len(array)
    _, offsets, data = array.buffers()
    offsets = np.frombuffer(offsets, dtype=np.int64)[array.offset:array.offset + n + 1] if n else \
        np.zeros(1, dtype=np.int64)
    body = np.frombuffer(data, dtype=np.uint8)[int(offsets[0]):int(offsets[-1])] if data is not None and n else \
        np.zeros(0, dtype=np.uint8)
    return body, offsets - offsets[0]


def take_strings(texts: list, rows, threads: int = 0) -> tuple:
    """The strings of several string tables (laid end to end; Arrow binary arrays too) at the given
    rows, in that order, as one string table (a uint8 array, int64 offsets): each string copied once,
    on threads (bytes.c's gather_spans), never an index a byte."""
    from .. import native

    tables = [t if isinstance(t, tuple) else string_table(t) for t in texts]
    offsets = [np.asarray(o, dtype=np.int64) for _, o in tables]
    rows = np.asarray(rows, dtype=np.int64)
    bounds = np.concatenate(([0], np.cumsum([o.size - 1 for o in offsets]))).astype(np.int64)
    source = np.searchsorted(bounds, rows, side="right") - 1
    order = np.argsort(source, kind="stable")  # each table's rows, in output order
    cuts = np.searchsorted(source[order], np.arange(len(tables) + 1))
    starts = np.empty(rows.size, dtype=np.int64)
    lengths = np.empty(rows.size, dtype=np.int64)
    for number, table_offsets in enumerate(offsets):
        mine = order[cuts[number]:cuts[number + 1]]
        local = rows[mine] - bounds[number]
        starts[mine] = table_offsets[local]
        lengths[mine] = table_offsets[local + 1] - starts[mine]
    at = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=at[1:])
    out = np.empty(int(at[-1]), dtype=np.uint8)
    cpu, threads = native.cpu(), threads or native.threads()
    for number, (data, _) in enumerate(tables):
        mine = order[cuts[number]:cuts[number + 1]]
        if mine.size:
            cpu.gather_spans(out, data, starts[mine], lengths[mine], at[:-1][mine], b"", b"", b"", threads)
    return out, at


def save_tables(path: str, tables: dict, threads: int = 4) -> None:
    """String tables (name: (data, offsets from 0)) in one file, packed (formats.packed), atomically."""
    from .packed import save_arrays

    arrays = {}
    for name, (data, offsets) in tables.items():
        arrays[f"{name}.data"] = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
        arrays[f"{name}.offsets"] = np.asarray(offsets, dtype=np.int64)
    save_arrays(path, arrays, threads)


def load_tables(path: str, threads: int = 4, names=None) -> dict:
    """save_tables' string tables (name: (data, offsets); those named, where names are given),
    unpacked on threads."""
    from .packed import load_arrays

    wanted = None if names is None else {f"{name}.{field}" for name in names for field in ("data", "offsets")}
    arrays = load_arrays(path, threads, wanted)
    names = [key[:-len(".data")] for key in arrays if key.endswith(".data")]
    return {name: (arrays[f"{name}.data"], arrays[f"{name}.offsets"]) for name in names}


def take_texts(sources: dict, rows) -> dict:
    """Each kind's strings at `rows` of its string tables laid end to end (kind: a list of tables,
    a pipeline's parts' in order, then its late chains'): take_strings copies without the
    interpreter's lock, so the kinds go side by side."""
    from concurrent.futures import ThreadPoolExecutor

    kinds = list(sources)
    with ThreadPoolExecutor(max(1, len(kinds))) as pool:
        return dict(zip(kinds, pool.map(lambda kind: take_strings(sources[kind], rows), kinds)))


def reordered(text: tuple, order) -> tuple:
    """A string table with its strings in the given order."""
    return take_strings([text], order)
