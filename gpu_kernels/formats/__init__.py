"""Every file format the project writes or reads.

- files.py: file safety (atomic_path) and the writers of ordered pieces;
- threads.py: the thread plumbing they share;
- parquet.py: the table writer (pyarrow's encoders for host columns, a device's own pages spliced in);
- tables.py: the table readers;
- rows.py: text rows printed by compiled code (format.c), a slice of columns at a time;
- one file per text format made from an HSP table: paf.py, gecko.py, delta.py; chains.py (the
  chains' PAF and UCSC chain); mummer.py (exact matches), tsv.py (coverage and stats tables).

FORMATS is the registry of the text formats of an HSP table: kind -> (file name in a genome pair's
results folder, header, rows). The command line, the workflow's merge, `filter` and the Snakemake
path templates all read it: a new text format is a module with `header(meta, path)` and `rows(meta)` and a
line here. `meta` is a table's `gpu_kernels` metadata (record tables, parameters, genome names, seed
counts, FASTA paths) with `rows`, the table's row count.
"""
from __future__ import annotations

import os  # noqa: F401  (tests patch os.pwrite through this package)
from typing import Callable, NamedTuple

from . import delta, gecko, paf
from .chains import write_chain_text  # noqa: F401
from .files import atomic_path, save_arrays, write_parts  # noqa: F401
from .gecko import gecko_header, gecko_text  # noqa: F401
from .mummer import mummer_parts  # noqa: F401
from .paf import paf_text  # noqa: F401
from .parquet import ROW_GROUP_ROWS, HspWriter, hsp_schema, write_hsps  # noqa: F401
from .rows import STRANDS, format_rows, name_table, write_text  # noqa: F401
from .tables import (TEXT_SLICE_ROWS, columns_of, iter_hsps, memory_parts, read_columns, read_hsps,  # noqa: F401
                     read_meta, table_parts)
from .threads import default_threads, ordered_map  # noqa: F401
from .tsv import read_tsv, write_tsv  # noqa: F401

# Slices of a table in flight a formatting thread: a few row groups read ahead, so that the threads
# never wait on one group's read (16 threads: about 1.7 GB of PAF and 6 row groups of columns).
READ_AHEAD = 3


class TextFormat(NamedTuple):
    file: str                              # its name in a genome pair's results folder
    header: Callable[[dict], bytes]        # the file's first lines, from the table's metadata
    rows: Callable[[dict], Callable]       # a function of a slice of HSP columns giving its text


FORMATS = {
    "paf": TextFormat("hsps.paf", paf.header, paf.rows),
    "gecko_csv": TextFormat("hsps.gecko.csv", gecko.header, gecko.rows),
    "delta": TextFormat("hsps.delta", delta.header, delta.rows),
}


def text_from_parts(kind: str, path: str, meta: dict, parts, threads: int = 0, window: int = 0) -> int:
    """A text format of HSP columns given as loaders of slices (tables.table_parts, memory_parts, or
    a backend's host slices), written to path ("-": standard output); returns the rows written."""
    fmt = FORMATS[kind]
    return write_text(path, parts, fmt.rows(meta), fmt.header(meta, path), threads, window)


def text_from_table(kind: str, table_path: str, path: str, threads: int = 0, **meta) -> int:
    """A text format of every HSP of a Parquet table, row groups read and formatted in parallel;
    meta: fields that replace the table's own metadata. Returns the rows written."""
    import pyarrow.parquet as pq

    full = {**read_meta(table_path), "rows": pq.ParquetFile(table_path).metadata.num_rows, **meta}
    threads = threads or default_threads()
    return text_from_parts(kind, path, full, table_parts(table_path, records=full), threads, READ_AHEAD * threads)


def paf_from_table(table_path: str, path: str, threads: int = 0) -> int:
    """PAF of every HSP of a Parquet HSP table; returns the rows written."""
    return text_from_table("paf", table_path, path, threads)


def gecko_csv_from_table(table_path: str, path: str, qgenome: str | None = None, rgenome: str | None = None,
                         seeds: int | None = None, kept: int | None = None, threads: int = 0) -> int:
    """GECKO CSV of every HSP of a Parquet HSP table (genome names and seed counts from the table's
    metadata unless given); returns the rows written."""
    given = {"query_genome": qgenome, "reference_genome": rgenome, "seeds": seeds, "kept_seeds": kept}
    return text_from_table("gecko_csv", table_path, path, threads, **{k: v for k, v in given.items() if v is not None})


def write_paf(path: str, hsps: dict, qnames, qlens, rnames, rlens, threads: int = 0) -> int:
    """PAF of HSP columns in memory; returns the rows written."""
    return text_from_parts("paf", path, records_meta(qnames, qlens, rnames, rlens), memory_parts(hsps), threads)


def records_meta(qnames, qlens, rnames, rlens) -> dict:
    """The record tables of a table's metadata, for a text format of columns held in memory."""
    return {"query": {"names": list(qnames), "lengths": list(qlens)},
            "reference": {"names": list(rnames), "lengths": list(rlens)}}


class TextOnThread:
    """A text format of HSP tables handed over one at a time (put), written in turn on a thread: a run's
    batches written as they come beside another output, none held after its turn. close() waits for
    the writer and returns the rows written; abort() leaves no file."""

    def __init__(self, kind: str, path: str, meta: dict):
        import queue
        from concurrent.futures import ThreadPoolExecutor

        self._queue = queue.Queue(maxsize=2)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix=kind)
        self._done = self._pool.submit(text_from_parts, kind, path, meta, self._parts())

    def _parts(self):
        while (table := self._queue.get()) is not None:
            if isinstance(table, BaseException):
                raise table
            yield from memory_parts(table)

    def _hand(self, item) -> None:
        import queue

        while True:  # the writer's own error (a full disk) rather than a wait on a queue nobody reads
            if self._done.done():
                self._done.result()
                return
            try:
                return self._queue.put(item, timeout=0.5)
            except queue.Full:
                continue

    def put(self, hsps: dict) -> None:
        self._hand(hsps)

    def close(self) -> int:
        self._hand(None)
        try:
            return self._done.result()
        finally:
            self._pool.shutdown()

    def abort(self) -> None:
        try:
            self._hand(InterruptedError("the run stopped"))
            self._done.exception()
        finally:
            self._pool.shutdown()


def paf_on_thread(path: str, qnames, qlens, rnames, rlens) -> TextOnThread:
    """write_paf of tables handed over in turn (TextOnThread)."""
    return TextOnThread("paf", path, records_meta(qnames, qlens, rnames, rlens))
