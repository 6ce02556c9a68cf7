"""What a dotplot draws, gathered in bounded memory, and where the records go.

`Layout` places the records of a genome pair end to end (the query ordered and oriented along the
reference unless file order is asked for); `Dots` takes HSPs a chunk at a time and keeps the
longest as lines, every other one in a raster (cells marked with their identity by compiled code,
`dots.c` beside this file), so 10^8 HSPs draw as fast as 10^5. No drawing library is imported here:
plots.py (matplotlib) and html.py (Bokeh) draw what these gather.
"""
from __future__ import annotations

import re

import numpy as np

from ..arrays import array_module, stable_argsort, to_host
from ..native import module
from ..schema import HSP

MAX_LINES = 20_000   # segments drawn as lines (more than a 660-pixel plot shows); the rest are rasterized
RASTER = 1000        # raster cells a side for the rest
HTML_LINES = 50_000  # segments the interactive dotplot carries (every HSP of a small run)
LINE_FIELDS = ("x0", "y0", "x1", "y1", "drawn", "identity") + HSP.view("line")  # a kept line: its segment and HSP


# ---------------------------------------------------------------------------------------------
# Names, positions, order


DB_TAGS = {"ref", "gb", "emb", "dbj", "tpg", "tpe", "tpd", "pir", "sp", "tr", "lcl", "gnl", "pdb", "prf", "pat"}


def short_name(name: str) -> str:
    """The accession of an NCBI `gi|54019969|ref|NC_006360.1|` name, else the name itself."""
    fields = [f for f in str(name).split("|") if f]
    if len(fields) < 2:
        return str(name)
    for tag, value in zip(fields, fields[1:]):
        if tag.lower() in DB_TAGS:
            return value
    return fields[-1]


def short_names(names) -> list[str]:
    """short_name of each name; where two would collide, the full names."""
    shorts = [short_name(n) for n in names]
    seen: dict[str, int] = {}
    for s in shorts:
        seen[s] = seen.get(s, 0) + 1
    return [s if seen[s] == 1 else str(n) for s, n in zip(shorts, names)]


def file_stem(name: str) -> str:
    """A name safe in a file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("_")[:60] or "record"


def offsets(lengths) -> np.ndarray:
    """Where each record starts when records are laid end to end."""
    lengths = np.asarray(lengths, dtype=np.int64)
    return np.concatenate(([0], np.cumsum(lengths)[:-1]))



class Layout:
    """Where the records of a genome pair are drawn: the reference in file order on x; the query
    on y, in file order or ordered and oriented along the reference by its best hits (D-GENIES'
    rule: each query record goes to the reference record it shares most aligned bases with, at
    the length-weighted mean of its hits there, and is flipped when most of those bases are on
    the reverse strand; records without hits keep their file order after the rest)."""

    def __init__(self, qlens, rlens, order=None, flip=None):
        self.qlens, self.rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
        self.order = np.arange(self.qlens.size) if order is None else np.asarray(order)  # query records bottom up
        self.flip = np.zeros(self.qlens.size, dtype=bool) if flip is None else np.asarray(flip, dtype=bool)
        self.qoff = np.zeros(self.qlens.size, dtype=np.int64)
        self.qoff[self.order] = offsets(self.qlens[self.order])
        self.roff = offsets(self.rlens)
        self.width, self.height = int(self.rlens.sum()), int(self.qlens.sum())

    @classmethod
    def along_reference(cls, qlens, rlens, qrec, rrec, aligned, aligned_reverse, centre) -> "Layout":
        """The ordered and oriented layout from per-pair columns (coverage.pair_alignment, in the
        coverage_pairs table): query record, reference record, aligned bases, those on the reverse
        strand, the length-weighted mean centre of the pair's HSPs on the reference record."""
        qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
        nq = qlens.size
        qrec, rrec = np.asarray(qrec, dtype=np.int64), np.asarray(rrec, dtype=np.int64)
        aligned, reverse = np.asarray(aligned, dtype=np.float64), np.asarray(aligned_reverse, dtype=np.float64)
        if qrec.size == 0:
            return cls(qlens, rlens)
        # the best pair of each query record: most aligned bases (ties: the first reference record)
        best = np.lexsort((rrec, -aligned, qrec))
        best = best[np.concatenate(([True], qrec[best][1:] != qrec[best][:-1]))]
        place = np.full(nq, np.inf)
        place[qrec[best]] = offsets(rlens)[rrec[best]] + np.asarray(centre, dtype=np.float64)[best]
        flip = np.bincount(qrec, reverse, nq) > np.bincount(qrec, aligned, nq) / 2
        order = np.lexsort((np.arange(nq), place))
        return cls(qlens, rlens, order, flip)

    def points(self, hsps: dict) -> dict:
        """Segment ends (x along the reference, y along the query), drawn orientation, identity; of
        HSPs, or of chains (with `rend` and `aligned`: a chain is drawn from its start to its end)."""
        qrec, rrec = np.asarray(hsps["qrec"]), np.asarray(hsps["rrec"])
        qstart, qend, rstart = (np.asarray(hsps[c], dtype=np.int64) for c in ("qstart", "qend", "rstart"))
        strand = np.asarray(hsps["strand"]).astype(np.int8)
        length = qend - qstart
        # a chain (the chains table) has its own reference end and aligned bases; an HSP is ungapped
        rend = np.asarray(hsps["rend"], dtype=np.int64) if "rend" in hsps else rstart + length
        forward = strand == 0
        flip = self.flip[qrec]
        qlen = self.qlens[qrec]
        y0 = np.where(flip, qlen - qstart, qstart) + self.qoff[qrec]
        y1 = np.where(flip, qlen - qend, qend) + self.qoff[qrec]
        x0 = np.where(forward, rstart, rend) + self.roff[rrec]
        x1 = np.where(forward, rend, rstart) + self.roff[rrec]
        aligned = np.asarray(hsps["aligned"], dtype=np.int64) if "aligned" in hsps else length
        identity = 100.0 * np.asarray(hsps["identities"], dtype=np.float64) / np.maximum(1, aligned)
        return {"x0": x0, "y0": y0, "x1": x1, "y1": y1, "drawn": (strand ^ flip).astype(np.int8),
                "identity": identity, "qrec": qrec, "rrec": rrec, "qstart": qstart, "qend": qend,
                "rstart": rstart, "strand": strand, "length": length}


def max_cells(key, value) -> tuple[np.ndarray, np.ndarray]:
    """Each key once (ascending) with its highest value (not negative), on the host; NumPy or CuPy."""
    xp = array_module(key)
    if key.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.float32)
    if xp is np and bool((key[1:] > key[:-1]).all()):  # already each key once, in order (a share's cells)
        return key, value
    order = stable_argsort(value.view(xp.int32))  # identities are not negative: their bits order them
    order = order[stable_argsort(key[order])]
    key, value = key[order], value[order]
    last = xp.ones(key.size, dtype=bool)
    last[:-1] = key[1:] != key[:-1]
    return to_host(key[last]), to_host(value[last])


# ---------------------------------------------------------------------------------------------
# Dots: what a dotplot draws, gathered in bounded memory


class Dots:
    """The segments of one dotplot, gathered a chunk of HSPs at a time in bounded memory: the
    max_lines longest are kept as lines and every other one marks the raster cell of its midpoint
    with its identity (the highest wins), so 10^8 HSPs draw as fast as 10^5.

    layout: a Layout (records end to end, for the grid), or None for one chromosome pair (then
    width is the reference length, height the query length). unit: what its rows are, in titles."""

    unit = "HSPs"

    def __init__(self, width: float, height: float, layout: Layout | None = None, max_lines: int | None = None):
        self.width, self.height = max(1.0, float(width)), max(1.0, float(height))
        self.layout = layout or Layout([int(height)], [int(width)])
        self.max_lines = MAX_LINES if max_lines is None else max_lines
        self._cells = np.zeros((2, RASTER * RASTER), dtype=np.float32)  # highest identity, 0 where empty
        self._lines = {name: np.zeros(0) for name in LINE_FIELDS}  # the longest so far, in the total order
        # candidates not yet sorted in: sorting the kept lines with every chunk's few candidates took a
        # fifth of a 2.7 G HSP gathering, so they wait until there are max_lines of them
        self._pending: list[dict] = []
        self._held = 0
        self.count = self._rastered = 0

    @property
    def lines(self) -> dict:
        """The kept lines (at most max_lines), longest first, each field an array."""
        self._sort_in()
        return self._lines

    @property
    def cells(self) -> np.ndarray:
        """The raster: (2, RASTER * RASTER) highest identities, forward and reverse drawn, 0 where empty."""
        self._sort_in()
        return self._cells

    @property
    def rastered(self) -> int:
        """How many segments are in the raster rather than drawn as lines."""
        self._sort_in()
        return self._rastered

    def _sort_in(self) -> None:
        """The waiting candidates sorted in with the kept lines; those left out go to the raster."""
        if self._pending:
            parts = [self._lines] + self._pending
            self._pending, self._held = [], 0
            self._lines = self._keep_longest({name: np.concatenate([p[name] for p in parts]) for name in LINE_FIELDS})

    def add(self, hsps: dict) -> "Dots":
        """Take a chunk of HSPs (the columns of HSP.view("dots"))."""
        qstart, qend = (np.ascontiguousarray(hsps[c], dtype=np.int64) for c in ("qstart", "qend"))
        if qstart.size == 0:
            return self
        length = qend - qstart
        self.count += length.size
        kept = self._lines["x0"].size
        # Only a segment longer than the shortest kept line (once max_lines are kept), and not shorter
        # than the chunk's own max_lines-th longest, can become a line: every other one goes straight
        # to the raster, its midpoint computed without building its segment. (The kept lines are those
        # of the last sorting: a floor no higher than the true one, so no line is lost.)
        floor = self._length(self._lines)[-1] if kept >= self.max_lines and kept else -np.inf  # longest first
        # the chunk's own floor (a partial sort, a tenth of the gathering) only where the kept lines'
        # floor leaves more than max_lines candidates
        if length.size > self.max_lines and (floor == -np.inf or np.count_nonzero(length >= floor) > self.max_lines):
            floor = max(floor, np.partition(length, length.size - self.max_lines)[length.size - self.max_lines]
                        if self.max_lines else np.inf)
        if floor > -np.inf and self._raster(hsps, qstart, qend, floor):
            candidates = np.flatnonzero(length >= floor)
            if candidates.size == 0:
                return self
            hsps = {name: np.asarray(column)[candidates] for name, column in hsps.items()}
        p = self.layout.points(hsps)
        self._pending.append({name: p[name] for name in LINE_FIELDS})
        self._held += p["x0"].size
        if self._held >= max(1, self.max_lines):  # memory stays bounded
            self._sort_in()
        return self

    def _keep_longest(self, lines: dict) -> dict:
        """The max_lines longest of some lines, the others to the raster. Lines are kept in one total
        order (longest first, then record, position and strand), so the same HSPs give the same
        lines in the same order however chunks came in or accumulators were merged."""
        order = np.lexsort((lines["strand"], lines["rstart"], lines["qstart"], lines["rrec"], lines["qrec"],
                            -self._length(lines)))
        if order.size > self.max_lines:
            self._mark({name: v[order[self.max_lines:]] for name, v in lines.items()})
        return {name: v[order[:self.max_lines]] for name, v in lines.items()}

    def take(self, cell, value, lines: dict, count: int) -> "Dots":
        """Take in dots gathered elsewhere (a compare job's share, shares.py): raster cells (drawn *
        RASTER**2 + row * RASTER + column) with identities, the highest winning; candidate lines (the
        HSP columns of LINE_FIELDS and `identities`); and how many HSPs they stand for in all."""
        cell, value = max_cells(np.asarray(cell, dtype=np.int64), np.asarray(value, dtype=np.float32))
        cells = self._cells.reshape(-1)
        cells[cell] = np.maximum(cells[cell], value)
        self.count += count
        self._rastered += count - lines["qstart"].size
        p = self.layout.points(lines)
        self._pending.append({name: p[name] for name in LINE_FIELDS})
        self._sort_in()
        return self

    def merge(self, other: "Dots") -> "Dots":
        """Take in the dots another accumulator gathered from other HSPs of the same plot: the
        longest max_lines lines of both, every other segment in the raster."""
        self._cells = np.maximum(self._cells, other.cells)
        self.count += other.count
        self._rastered += other.rastered
        self._lines = self._keep_longest({name: np.concatenate((self.lines[name], other.lines[name]))
                                          for name in LINE_FIELDS})
        return self

    def reduced(self, max_lines: int) -> "Dots":
        """These dots with at most max_lines lines, the rest in the raster: the dots of the same HSPs
        gathered with that limit, so the PNG dotplot (20,000 lines) and the HTML one (50,000) are
        gathered in one pass."""
        out = Dots(self.width, self.height, self.layout, max_lines)
        out._cells, out.count, out._rastered, out.unit = self.cells.copy(), self.count, self.rastered, self.unit
        out._lines = out._keep_longest(self.lines)
        return out

    def arrays(self, name: str) -> dict:
        """These dots as arrays named NAME.field, for a file: the raster's filled cells alone (a pair
        dotplot's raster is mostly empty) and the lines."""
        cells = self.cells.reshape(-1)
        filled = np.flatnonzero(cells)
        return {f"{name}.shape": np.array([self.width, self.height, self.max_lines, self.count, self.rastered]),
                f"{name}.unit": np.array(self.unit), f"{name}.cells": filled.astype(np.int64),
                f"{name}.values": cells[filled], **{f"{name}.{f}": self.lines[f] for f in LINE_FIELDS}}

    @classmethod
    def of_arrays(cls, name: str, arrays: dict, layout: Layout | None = None) -> "Dots":
        """The dots `arrays` gave arrays of, in this layout (None: one chromosome pair's)."""
        width, height, max_lines, count, rastered = arrays[f"{name}.shape"].tolist()
        out = cls(width, height, layout, int(max_lines))
        out._cells.reshape(-1)[arrays[f"{name}.cells"]] = arrays[f"{name}.values"]
        out._lines = {f: arrays[f"{name}.{f}"] for f in LINE_FIELDS}
        out.count, out._rastered, out.unit = int(count), int(rastered), str(arrays[f"{name}.unit"])
        return out

    @staticmethod
    def _length(lines: dict) -> np.ndarray:
        return np.abs(lines["x1"] - lines["x0"])

    def _raster(self, hsps: dict, qstart, qend, floor) -> int:
        """Mark the raster cells of the HSPs shorter than floor with their identity, the midpoint of
        each one's segment (as points() draws it) found without building the segment; compiled, the GIL
        released, so accumulators on threads run side by side. Returns how many were marked."""
        layout = self.layout
        records = [np.ascontiguousarray(hsps[c]) for c in ("qrec", "rrec")]
        records = [r if r.dtype in (np.int32, np.int64) else r.astype(np.int64) for r in records]
        marked = module("_dots").raster_mark(self._cells.reshape(-1), *records, np.ascontiguousarray(hsps["strand"], dtype=np.int8),
                                   qstart, qend, np.ascontiguousarray(hsps["rstart"], dtype=np.int64),
                                   np.ascontiguousarray(hsps["identities"], dtype=np.int64), layout.qoff, layout.roff,
                                   layout.qlens, layout.flip, RASTER, RASTER / (2 * self.width),
                                   RASTER / (2 * self.height), float(floor))
        self._rastered += marked
        return marked

    def rows(self, qrec, y2) -> np.ndarray:
        """The raster rows of query midpoints given doubled along their own records as drawn (y2: qstart +
        qend, or 2 * qlen - qstart - qend on a flipped record): a record's rows begin at its offset's row,
        so that a cell depends on its record's place and orientation alone (what a compare job's share
        keeps before the layout is chosen, shares.py). The same double arithmetic as dots.c."""
        start = (2 * self.layout.qoff[qrec] * (RASTER / (2 * self.height))).astype(np.int64)
        return np.minimum(start + (np.asarray(y2, dtype=np.int64) * (RASTER / (2 * self.height))).astype(np.int64),
                          RASTER - 1)

    def _mark(self, lines: dict) -> None:
        """Mark the raster cells of some lines' midpoints (their fields as kept) with their identity, by
        drawn orientation."""
        qrec = np.asarray(lines["qrec"], dtype=np.int64)
        qstart, qend = (np.asarray(lines[c], dtype=np.int64) for c in ("qstart", "qend"))
        flip = self.layout.flip[qrec]
        y2 = np.where(flip, 2 * self.layout.qlens[qrec] - qstart - qend, qstart + qend)
        ix = np.clip(((lines["x0"] + lines["x1"]) * (RASTER / (2 * self.width))).astype(np.int64), 0, RASTER - 1)
        iy = self.rows(qrec, y2)
        # lines dropped from the kept ones: at most a few max_lines a chunk, so NumPy's scatter will do
        np.maximum.at(self._cells, (np.asarray(lines["drawn"]).astype(np.int64), iy * RASTER + ix),
                      np.asarray(lines["identity"], dtype=np.float32))
        self._rastered += ix.size

    def identity_range(self, low: float | None = None) -> tuple[float, float]:
        """The colour scale: from low (the run's min_identity) or the lowest identity drawn, to 100."""
        if low is None:
            values = [self.lines["identity"]] + [c[c > 0] for c in self.cells]
            values = np.concatenate(values) if any(v.size for v in values) else np.array([0.0])
            low = float(values.min()) if values.size else 0.0
        return min(float(low), 99.0), 100.0
