"""String tables (a string a row: the bytes of all of them and int64 offsets, as format.c reads them)
and Arrow's large_binary arrays, one as the other without copying the strings; rows taken in any
order by Arrow's take, a string copied once."""
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


def take_strings(texts: list, rows) -> tuple:
    """The strings of several string tables (laid end to end) at the given rows, in that order: one
    Arrow take, a string copied once (never an index a byte)."""
    import pyarrow as pa

    chunks = pa.chunked_array([arrow_strings(t) for t in texts], type=pa.large_binary())
    taken = chunks.take(pa.array(np.asarray(rows, dtype=np.int64)))
    return string_table(taken.combine_chunks() if taken.num_chunks != 1 else taken.chunk(0))


def reordered(text: tuple, order) -> tuple:
    """A string table with its strings in the given order."""
    return take_strings([text], order)
