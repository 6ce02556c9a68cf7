"""Text rows printed by compiled code (format.c): a format describes its row as fields (text,
integer and float columns, indices into a string table) and a slice of columns is printed at once,
with the interpreter's lock released. No Python call per row."""
from __future__ import annotations

import numpy as np

from .. import native
from .files import write_pieces
from .threads import default_threads, ordered_map

STRANDS = ("+", "-")


def format_rows(n: int, fields: tuple, ends=None) -> memoryview:
    """n text rows of fields (kinds in format.c: "s" text, "i" int64 column, "f" float64 column with
    decimals, "n" an index column into a string table), printed by compiled code with the GIL released.
    ends: an int64 array of n that gets where each row ends in the text."""
    compiled = native.module("_format")
    merged: list = []
    for field in map(_field, fields):  # neighbouring texts as one
        if merged and field[0] == "s" and merged[-1][0] == "s":
            merged[-1] = ("s", merged[-1][1] + field[1])
        else:
            merged.append(field)
    fields = tuple(merged)
    out = np.empty(compiled.row_bound(n, fields), dtype=np.uint8)
    return memoryview(out)[:compiled.format_rows(out, n, fields, ends)]


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


def row_fields(columns: list, sep: str) -> tuple:
    """Fields of a row: the columns with sep between them and a line break at the end; a column given
    as a list is several fields printed together (a tag's name and its value)."""
    fields = []
    for column in columns:
        fields += column if isinstance(column, list) else [column]
        fields.append(sep)
    fields[-1] = "\n"
    return tuple(fields)


def name_table(names) -> tuple:
    """Strings as a string table for format_rows (bytes, int64 offsets): convert once, then pass
    it for every slice."""
    if isinstance(names, tuple) and len(names) == 2 and isinstance(names[0], bytes):
        return names
    encoded = [str(n).encode() for n in names]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return b"".join(encoded), offsets


def write_text(path: str, parts, fn, header: bytes = b"", threads: int = 0, window: int = 0) -> int:
    """Write a text format made by fn(columns): parts are loaders (callables returning a slice of
    a table's columns: of a table's row group, of a table in memory, or copied off a device), each
    loaded and formatted on a worker thread; the text is written in order, atomically, or to
    standard output when path is "-". At most `window` parts in flight (at least threads + 1).
    Returns the rows written."""
    threads = threads or default_threads()

    def task(load) -> tuple[int, memoryview]:
        part = load()
        return len(next(iter(part.values()))), fn(part)

    return write_pieces(path, header, ordered_map(task, parts, threads, window))


def name_problem(sides, fmt: str, advice: str) -> str | None:
    """The first record name a text format cannot hold, as one line, or None. sides: (names, holds,
    role, rule) in turn, holds(name) whether fmt holds the name, rule what it holds."""
    for names, holds, role, rule in sides:
        for name in map(str, names):
            if not holds(name):
                shown = name if len(name) <= 60 else f"{name[:40]}... ({len(name)} characters)"
                return f"{role} record name '{shown}' cannot be written in {fmt} ({rule}); rename it, or {advice}"
    return None
