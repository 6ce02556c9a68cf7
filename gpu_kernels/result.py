"""A comparison's result: the HSP table on the backend's device, its chains and alignments made from
it once, and the table written as Parquet (write_table: a slice of row groups at a time, pages
encoded where the table lives)."""
from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import hsps as H
from .backend import NumpyBackend
from .formats import ROW_GROUP_ROWS, TEXT_SLICE_ROWS, HspWriter, text_from_parts
from .pages import table_pages
from .params import Params
from .schema import HSP, HSP_CHAINED
from .seqset import SeqSet


class Result:
    """The HSP table of a comparison (in the canonical order, on the backend's device), the record
    tables of both sides, and the job's stats.

    `hsps` copies the table to the host on first use (int64 NumPy columns); `write_parquet` and
    `write_paf` stream it out a slice at a time instead, so a table of 10^8 HSPs never has to sit
    whole in host memory."""

    def __init__(self, table: dict, query: SeqSet, reference: SeqSet, params: Params, stats: dict,
                 backend: NumpyBackend, sources: dict | None = None):
        self.table, self.query, self.reference, self.params, self.stats = table, query, reference, params, stats
        self.backend = backend
        self.sources = sources or {}  # query_fasta, reference_fasta: the files compared, where they were files
        self._hsps = None
        self.chain_of = None  # each HSP's chain, on the backend's device, once chained
        self._chains = None  # (chains table, their blocks), once chained
        self._placed = False  # whether the blocks of _chains are placed on the sequences (chain)
        self._chaining = None  # the future of chain_soon
        self._alignments = None  # the chains' alignments (align.py), once aligned
        self.codes = None  # both sides' codes on the backend's device, where compare left them
        self._rows = None  # the HSPs' count, once the table is let go

    @property
    def hsps(self) -> dict:
        """The HSP columns as NumPy int64 arrays."""
        if self._hsps is None:
            self._hsps = {name: np.asarray(self.backend.to_host(column), dtype=np.int64)
                          for name, column in H.complete(self.table).items()}
        return self._hsps

    def drop_device(self) -> None:
        """Let go of every array this result holds on the device (the HSP table, each HSP's chain, the
        codes): a workflow job that is done with its device (turns.end_turn) hands its memory on."""
        if self.table.get("qstart") is not None:
            self._rows = int(self.table["qstart"].size)
        self.table = {name: None for name in self.table}
        self.chain_of = self.codes = self._hsps = self._chains = None

    def hand_to_host(self) -> None:
        """The HSP table copied to the host (one copy), the device let go (drop_device), and the rest
        (chains, their placement, the alignments) run in NumPy and C on the SeqSets' codes. For many
        small pairs, whose chains and alignments are milliseconds of work that a device's many small
        launches outlast, while the device takes the next pair. The same outputs (CPU == GPU)."""
        from .arrays import columns_to_host
        from .backend import get_backend

        table = columns_to_host({name: column for name, column in self.table.items() if column is not None})
        self.drop_device()
        self.table, self.backend = table, get_backend("numpy")

    def coverage(self) -> float:
        """Fraction of query bases inside at least one HSP (either strand)."""
        return self.stats["query_covered"] / max(1, int(self.query.lengths.sum()))

    def counts(self) -> dict:
        """The run's counts without its stage times (keys ending in _s): what a table's metadata keeps,
        so that the same command writes the same bytes (the times go to the log, -v)."""
        return {key: value for key, value in self.stats.items() if not key.endswith("_s")}

    def meta(self) -> dict:
        """The table's metadata as the Parquet file holds it (formats.FORMATS reads it)."""
        q, r = self.query, self.reference
        return {"query": {"names": list(q.names), "lengths": q.lengths.tolist()},
                "reference": {"names": list(r.names), "lengths": r.lengths.tolist()},
                "params": self.params.as_dict(), "stats": self.stats, "seeds": self.stats.get("seeds", 0),
                "kept_seeds": self.stats.get("kept_seeds", 0), "rows": self.rows, **self.sources}

    @property
    def rows(self) -> int:
        """The HSPs' count (kept once the table is let go)."""
        return self._rows if self.table.get("qstart") is None else int(self.table["qstart"].size)

    def write_parquet(self, path: str, row_group_rows: int = ROW_GROUP_ROWS, last: bool = False,
                      chained=None) -> None:
        """The HSP table as Parquet, a row group at a time (row groups encoded on all cores); last: no
        other table will be written by this process, so the writer's host buffers are given back as
        soon as they are done with. Once chained, with each HSP's chain (the HSP_CHAINED record).
        chained: a callable, given the future of chain_soon once begun (the chains' own outputs start
        there): the HSPs are chained as the table is written; on the GPU, on a stream of its own while
        the other columns are encoded, copied, compressed and written, the chain column last."""
        q, r = self.query, self.reference
        table, record, late = self.table, HSP, None
        if chained is not None:
            record, late = HSP_CHAINED, {"chain": lambda: self._chain_column_soon(chained)}
        elif self.chain_of is not None:
            table, record = dict(table, chain=self.chain_of), HSP_CHAINED
        write_table(path, table, self.backend, q.names, q.lengths, r.names, r.lengths, self.params,
                    {"stats": self.counts(), **self.sources}, row_group_rows, last, record, late)

    def _chain_column_soon(self, chained):
        """write_parquet's late chain column: chain_soon begun and handed to chained; a callable that
        waits for it and returns each HSP's chain."""
        chaining = self.chain_soon()
        chained(chaining)
        return lambda: (chaining.result(), self.chain_of)[1]

    def write_text(self, kind: str, path: str, threads: int = 0) -> int:
        """The HSP table in a text format of formats.FORMATS (paf, gecko_csv, delta), slices copied to
        the host and formatted in parallel; returns the rows written."""
        parts = (lambda part=part: part for part in self.backend.host_slices(self.table, TEXT_SLICE_ROWS))
        return text_from_parts(kind, path, self.meta(), parts, threads)

    def chain(self, placed: bool = True) -> dict:
        """Chain the HSPs (chains.py), once: the chains table (each HSP's chain goes to chain_of) and
        their blocks as written (seams placed, drops cut: refine_blocks). placed=False stops before
        the placement, which only the chains' own outputs read (the table's chain count, backbone and
        chain_of are the same either way), so that it can run beside the HSP table's write."""
        q, r = self.query, self.reference
        if self._chains is None:
            table, self.chain_of, blocks = self.backend.chain_hsps(self.table, q.lengths, r.lengths, self.params,
                                                                   ordered=True)
            self._chains, self._placed = (table, blocks), False
        if placed and not self._placed:
            self._chains = self.backend.refine_blocks(*self._chains, q, r, self.params, codes=self.codes)
            self._placed = True
        return self._chains[0]

    @property
    def chained(self) -> tuple:
        """(the chains table, their blocks) as chain() left them: chain_blocks' with `rows` and `trim`
        after chain(placed=False), the blocks as written after chain()."""
        return self._chains

    def chain_soon(self):
        """chain(placed=False) begun, and a future of the chains table: on a device, on a thread and a
        stream of its own (backend.on_own_stream), beside the caller's work; on the CPU, done before
        this returns."""
        if self._chaining is None:
            self._chaining = self.backend.on_own_stream(self.chain, False)
        return self._chaining

    def write_chains(self, paths: dict) -> dict:
        """The chains written (chained first where they are not yet): paths by kind, chains_paf,
        chain_file (formats.chains) and chains_table (Parquet, the CHAIN record); returns the chains
        table. Host work only once chained: it may run beside the HSP table's write."""
        from .formats import write_chain_text
        from .schema import CHAIN

        q, r = self.query, self.reference
        self.chain()  # the blocks placed here where only chained so far: beside the HSP table's write
        table, blocks = self._chains

        def write(kind: str) -> None:
            if kind != "chains_table":
                write_chain_text(kind, paths[kind], table, blocks, q.names, q.lengths, r.names, r.lengths)
                return
            with HspWriter(paths[kind], q.names, q.lengths, r.names, r.lengths, self.params,
                           {"stats": self.counts(), **self.sources}, record=CHAIN) as writer:
                writer.write(table)

        kinds = [kind for kind in ("chains_paf", "chain_file", "chains_table") if paths.get(kind)]
        with ThreadPoolExecutor(max(1, len(kinds))) as pool:  # each formatted in C or Arrow, which let go of the GIL
            for done in [pool.submit(write, kind) for kind in kinds]:
                done.result()
        return table

    def align(self) -> dict:
        """The chains' gapped alignments (align.py), once (chained first where they are not yet)."""
        if self._alignments is None:
            self.chain()
            table, blocks = self._chains
            self._alignments = self.backend.align_chains(table, blocks, self.query, self.reference, self.params,
                                                         codes=self.codes)
        return self._alignments

    def write_alignments(self, paths: dict, sam_seq: bool = True, variants_if=None) -> dict:
        """The alignments written (aligned first where they are not yet): paths by kind, paf (with cg:Z
        and cs:Z), delta (MUMmer), snps (SNPs and indels), sam and table (Parquet, the ALIGNMENT record);
        returns them as written (align.write_aligned's: the one-to-one ones cut where they meet).
        sam_seq: the SAM lines' SEQ written (else `*`); variants_if: write_aligned's."""
        from .align import write_alignments

        return write_alignments(self.align(), self.query, self.reference, paths,
                                {**self.meta(), "stats": self.counts()}, sam_seq, variants_if)

    def write_paf(self, path: str, threads: int = 0) -> int:
        """The HSP table as PAF; returns the rows written."""
        return self.write_text("paf", path, threads)


def slice_rows(threads: int, row_group_rows: int = ROW_GROUP_ROWS) -> int:
    """Rows write_table hands over at once: half the writer's threads' worth of row groups, so that a
    few slices in flight keep every thread busy while the pinned buffers they are copied into
    (pinned once) stay small."""
    return row_group_rows * max(1, threads // 2)


def write_table(path: str, table: dict, backend: NumpyBackend, qnames, qlens, rnames, rlens, params: Params,
                extra: dict | None = None, row_group_rows: int = ROW_GROUP_ROWS, last: bool = False,
                record=HSP, late: dict | None = None) -> None:
    """An HSP table held by a backend written as Parquet. A backend whose pages are encoded where the
    table lives (the GPU: only the packed bytes, a few a value, come back) hands over a slice of row
    groups at a time while the writer compresses and writes earlier ones on its threads; a table on
    the host goes to the writer's pyarrow encoders. last: the backend's host buffers are given back
    as the writes using them finish (backend.release_pages). record: HSP, or a record extending it
    whose extra columns the table holds (or late gives). late: {name: a callable that begins the
    column's computation and returns a callable that waits for it and returns the column}: on a
    backend that encodes pages, the late columns are begun first, the other columns written
    meanwhile, and the late columns' chunks follow every row group's others in the file; on the
    host, the late columns come first."""
    late = late or {}
    if not backend.encodes_pages:
        table, late = dict(table, **{name: begin()() for name, begin in late.items()}), {}
    with HspWriter(path, qnames, qlens, rnames, rlens, params, extra, row_group_rows, record=record,
                   late=tuple(late)) as writer:
        n = int(table["qstart"].size)
        if not backend.encodes_pages:
            writer.write(table)
            return
        step = slice_rows(writer.threads, row_group_rows)

        def encoded(columns: dict, names: tuple, at: int) -> dict:
            return table_pages({name: columns[name][at:at + step] for name in columns}, backend, row_group_rows,
                               record, names)

        def write(columns: dict, names: tuple, later: bool) -> None:
            for at in range(0, n, step):
                pages, token = backend.pages_to_host(encoded(columns, names, at))
                backend.release_after(token, writer.write_pages(pages, min(step, n - at), later))

        waits = {name: begin() for name, begin in late.items()}
        with backend.urgent() if waits else contextlib.nullcontext():  # ahead of the late columns' kernels
            write(table, writer.early, False)
        for name, wait in waits.items():
            write({name: wait()}, (name,), True)
        if last:
            backend.release_pages()
