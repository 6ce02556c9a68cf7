"""Pictures of a genome pair: the grid dotplot, pair dotplots, the coverage heatmap (PNG, matplotlib)
and the interactive dotplot (one self-contained HTML file, Bokeh).

Conventions, as mummerplot and D-GENIES draw them: the reference on x, the query on y; positions in
bp, kb or Mb; chromosome borders and short names (the accession of a `gi|...|ref|NC_...|` header);
HSPs coloured by identity, forward (as drawn) in blues and reverse in reds; query contigs ordered
and oriented along the reference by their best hits unless file order is asked for.
"""
from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

from ..formats import atomic_path  # noqa: E402
from ..native import cpu  # noqa: E402

MAX_LINES = 20_000   # segments drawn as lines (more than a 660-pixel plot shows); the rest are rasterized
RASTER = 1000        # raster cells a side for the rest
HTML_LINES = 50_000  # segments the interactive dotplot carries (every HSP of a small run)
POINT_COLUMNS = ("qrec", "rrec", "strand", "qstart", "qend", "rstart", "identities")  # what Dots.add reads
LINE_FIELDS = ("x0", "y0", "x1", "y1", "drawn", "identity", "qrec", "rrec", "qstart", "qend", "rstart", "strand")


def _ramp(name: str) -> LinearSegmentedColormap:
    """The darker two thirds of a matplotlib ramp: pale colours vanish on white."""
    base = plt.get_cmap(name)
    return LinearSegmentedColormap.from_list(f"{name}_dark", base(np.linspace(0.35, 1.0, 256)))


RAMPS = (_ramp("Blues"), _ramp("Reds"))  # by drawn orientation: forward, reverse
STRAND_NAMES = ("forward", "reverse")


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


def bp_unit(span: float) -> tuple[float, str]:
    """(divisor, unit) that writes positions up to span in few digits: bp, kb or Mb."""
    if span >= 2e6:
        return 1e6, "Mb"
    if span >= 2e3:
        return 1e3, "kb"
    return 1.0, "bp"


def bp_formatter(span: float) -> FuncFormatter:
    """Tick labels in bp, kb or Mb (the unit of the axis title), never run together."""
    divisor, _ = bp_unit(span)
    return FuncFormatter(lambda value, _pos: f"{value / divisor:g}")


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
        """Segment ends (x along the reference, y along the query), drawn orientation, identity."""
        qrec, rrec = np.asarray(hsps["qrec"]), np.asarray(hsps["rrec"])
        qstart, qend, rstart = (np.asarray(hsps[c], dtype=np.int64) for c in ("qstart", "qend", "rstart"))
        strand = np.asarray(hsps["strand"]).astype(np.int8)
        length = qend - qstart
        rend = rstart + length
        forward = strand == 0
        flip = self.flip[qrec]
        qlen = self.qlens[qrec]
        y0 = np.where(flip, qlen - qstart, qstart) + self.qoff[qrec]
        y1 = np.where(flip, qlen - qend, qend) + self.qoff[qrec]
        x0 = np.where(forward, rstart, rend) + self.roff[rrec]
        x1 = np.where(forward, rend, rstart) + self.roff[rrec]
        identity = 100.0 * np.asarray(hsps["identities"], dtype=np.float64) / np.maximum(1, length)
        return {"x0": x0, "y0": y0, "x1": x1, "y1": y1, "drawn": (strand ^ flip).astype(np.int8),
                "identity": identity, "qrec": qrec, "rrec": rrec, "qstart": qstart, "qend": qend,
                "rstart": rstart, "strand": strand, "length": length}


# ---------------------------------------------------------------------------------------------
# Dots: what a dotplot draws, gathered in bounded memory


class Dots:
    """The segments of one dotplot, gathered a chunk of HSPs at a time in bounded memory: the
    max_lines longest are kept as lines and every other one marks the raster cell of its midpoint
    with its identity (the highest wins), so 10^8 HSPs draw as fast as 10^5.

    layout: a Layout (records end to end, for the grid), or None for one chromosome pair (then
    width is the reference length, height the query length)."""

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
        """Take a chunk of HSPs (qrec, rrec, strand, qstart, qend, rstart, identities)."""
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
            hsps = {name: np.asarray(hsps[name])[candidates] for name in POINT_COLUMNS}
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
            rest = {name: v[order[self.max_lines:]] for name, v in lines.items()}
            self._mark(rest["x0"] + rest["x1"], rest["y0"] + rest["y1"], rest["drawn"], rest["identity"])
        return {name: v[order[:self.max_lines]] for name, v in lines.items()}

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
        out._cells, out.count, out._rastered = self.cells.copy(), self.count, self.rastered
        out._lines = out._keep_longest(self.lines)
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
        marked = cpu().raster_mark(self._cells.reshape(-1), *records, np.ascontiguousarray(hsps["strand"], dtype=np.int8),
                                   qstart, qend, np.ascontiguousarray(hsps["rstart"], dtype=np.int64),
                                   np.ascontiguousarray(hsps["identities"], dtype=np.int64), layout.qoff, layout.roff,
                                   layout.qlens, layout.flip, RASTER, RASTER / (2 * self.width),
                                   RASTER / (2 * self.height), float(floor))
        self._rastered += marked
        return marked

    def _mark(self, x2, y2, drawn, identity) -> None:
        """Mark the raster cells of segment midpoints (given doubled: x0 + x1, y0 + y1) with their
        identity, by drawn orientation."""
        ix = np.clip((x2 * (RASTER / (2 * self.width))).astype(np.int64), 0, RASTER - 1)
        iy = np.clip((y2 * (RASTER / (2 * self.height))).astype(np.int64), 0, RASTER - 1)
        # lines dropped from the kept ones: at most a few max_lines a chunk, so NumPy's scatter will do
        np.maximum.at(self._cells, (np.asarray(drawn).astype(np.int64), iy * RASTER + ix),
                      np.asarray(identity, dtype=np.float32))
        self._rastered += ix.size

    def identity_range(self, low: float | None = None) -> tuple[float, float]:
        """The colour scale: from low (the run's min_identity) or the lowest identity drawn, to 100."""
        if low is None:
            values = [self.lines["identity"]] + [c[c > 0] for c in self.cells]
            values = np.concatenate(values) if any(v.size for v in values) else np.array([0.0])
            low = float(values.min()) if values.size else 0.0
        return min(float(low), 99.0), 100.0

    def draw(self, ax, norm: Normalize) -> None:
        """Raster cells under the lines, each coloured by identity on its orientation's ramp."""
        for drawn in (0, 1):
            cells = self.cells[drawn].reshape(RASTER, RASTER)
            if self.rastered and (cells > 0).any():
                rgba = RAMPS[drawn](norm(np.where(cells > 0, cells, np.nan)))
                rgba[..., 3] = cells > 0
                ax.imshow(rgba, origin="lower", extent=(0, self.width, 0, self.height), aspect="auto",
                          interpolation="nearest", zorder=0)
        lines = self.lines
        segments = np.stack((np.stack((lines["x0"], lines["y0"]), axis=1),
                             np.stack((lines["x1"], lines["y1"]), axis=1)), axis=1)
        for drawn in (0, 1):
            keep = lines["drawn"] == drawn
            if keep.any():
                ax.add_collection(LineCollection(segments[keep], colors=RAMPS[drawn](norm(lines["identity"][keep])),
                                                 linewidths=1.2, zorder=2))


def _colour_bars(fig, axes, norm: Normalize) -> None:
    """One colour bar per orientation: identity of forward and of reverse HSPs."""
    for drawn in (1, 0):
        mappable = matplotlib.cm.ScalarMappable(norm=norm, cmap=RAMPS[drawn])
        fig.colorbar(mappable, ax=axes, label=f"identity, {STRAND_NAMES[drawn]} (%)", fraction=0.025, pad=0.01,
                     aspect=40, shrink=0.8)


def save_png(fig, path: str, dpi: int = 130) -> None:
    """Write a figure as PNG atomically (no software stamp, so the same picture gives the same bytes) and close it."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": None})
    plt.close(fig)


def _figure_size(width: float, height: float, longest: float = 8.0) -> tuple[float, float]:
    """Plot area in proportion to the two lengths (at most 4:1), plus room for labels and colour bars."""
    ratio = min(4.0, max(0.25, height / max(1.0, width)))
    w, h = (longest, longest * ratio) if ratio <= 1 else (longest / ratio, longest)
    return max(w, 3.0) + 2.6, max(h, 2.5) + 1.6


# ---------------------------------------------------------------------------------------------
# The pictures


def pair_dotplot(dots: Dots, qname: str, rname: str, path: str, min_identity: float | None = None) -> None:
    """Dotplot of one chromosome pair: reference on x, query on y, positions in bp, kb or Mb, HSPs
    coloured by identity (forward blues, reverse reds), the two scales equal up to 4:1.

    Margins are fixed in inches, not solved by a layout engine: a run draws 50 of these, and
    constrained layout would triple the time of each."""
    ratio = min(4.0, max(0.25, dots.height / dots.width))
    w, h = (6.0, 6.0 * ratio) if ratio <= 1 else (6.0 / ratio, 6.0)
    w, h = max(w, 2.0), max(h, 2.0)
    left, bottom, top, right = 0.85, 0.6, 0.4, 1.55
    fig = plt.figure(figsize=(left + w + right, bottom + h + top))
    width, height = fig.get_size_inches()
    ax = fig.add_axes((left / width, bottom / height, w / width, h / height))
    norm = Normalize(*dots.identity_range(min_identity))
    dots.draw(ax, norm)
    ax.set_xlim(0, dots.width)
    ax.set_ylim(0, dots.height)
    for axis, span, name in ((ax.xaxis, dots.width, rname), (ax.yaxis, dots.height, qname)):
        axis.set_major_locator(MaxNLocator(6))
        axis.set_major_formatter(bp_formatter(span))
        axis.set_label_text(f"{name} ({bp_unit(span)[1]})", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.set_title(f"{qname} vs {rname}: {dots.count:,} HSPs", fontsize=9)
    bar_h = min(h, 3.0) * 0.9
    for i, drawn in enumerate((0, 1)):
        cax = fig.add_axes(((left + w + 0.15 + i * 0.7) / width, (bottom + (h - bar_h) / 2) / height, 0.12 / width,
                            bar_h / height))
        bar = fig.colorbar(matplotlib.cm.ScalarMappable(norm=norm, cmap=RAMPS[drawn]), cax=cax)
        bar.set_label(f"identity, {STRAND_NAMES[drawn]} (%)", fontsize=7)
        bar.ax.tick_params(labelsize=7)
    save_png(fig, path, dpi=110)


def _shown_labels(offsets_, lengths, room: float, gap: float) -> list[int]:
    """Records whose names fit along an axis of `room` units, the longest first, each at least `gap`
    from the names already placed (names of 1,000 contigs never print over each other)."""
    total = max(1, int(np.sum(lengths)))
    centres = (offsets_ + np.asarray(lengths) / 2) / total * room
    placed: list[float] = []
    shown = []
    for i in np.argsort(-np.asarray(lengths), kind="stable"):
        if all(abs(centres[i] - c) >= gap for c in placed):
            placed.append(centres[i])
            shown.append(int(i))
        if len(placed) * gap >= room:
            break
    return sorted(shown, key=lambda i: offsets_[i])


def _label_records(axis, offsets_, lengths, names, room_points: float, fontsize: float) -> None:
    """Record names at record centres where they fit (see _shown_labels)."""
    shown = _shown_labels(offsets_, lengths, room_points, fontsize * 1.3)
    axis.set_ticks([offsets_[i] + lengths[i] / 2 for i in shown])
    axis.set_ticklabels([names[i] for i in shown], fontsize=fontsize)
    axis.set_tick_params(length=0)


MAX_BORDERS = 300  # record borders drawn on a side of a PNG dotplot at most (ten times as many in the HTML one)


def _borders(starts, most: int) -> np.ndarray:
    """Where borders between records go, or none when there are more than `most` records."""
    return starts[1:].astype(float) if starts.size <= most else np.zeros(0)


def _genome_title(genome: str, role: str, records: int, length: int) -> str:
    """An axis title: the genome, its role and size; the unit of the ticks when they are positions."""
    size = f"{records:,} records, {length:,} bp" if records > 1 else f"{length:,} bp; position in {bp_unit(length)[1]}"
    return f"{genome} ({role}, {size})"


def grid_dotplot(dots: Dots, qnames, rnames, qgenome: str, rgenome: str, path: str,
                 min_identity: float | None = None) -> None:
    """Genome-by-genome dotplot: reference chromosomes end to end on x, query chromosomes on y (in
    the Layout's order; a flipped query record is marked '(-)'), borders and short names drawn,
    positions along each genome in bp, kb or Mb on the top and right axes."""
    layout = dots.layout
    size = _figure_size(layout.width, layout.height)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    norm = Normalize(*dots.identity_range(min_identity))
    dots.draw(ax, norm)
    # record borders: one collection a side (1,000 contigs are 1,000 lines, not 1,000 artists), and
    # none on a side of more than MAX_BORDERS records, whose borders would paint the plot grey
    xs, ys = _borders(layout.roff, MAX_BORDERS), _borders(np.sort(layout.qoff), MAX_BORDERS)
    borders = [[(x, 0), (x, layout.height)] for x in xs] + [[(0, y), (layout.width, y)] for y in ys]
    if borders:
        ax.add_collection(LineCollection(borders, colors="0.8", linewidths=0.5, zorder=1))
    ax.set_xlim(0, layout.width)
    ax.set_ylim(0, layout.height)
    qshort = [n + (" (-)" if f else "") for n, f in zip(short_names(qnames), layout.flip)]
    fontsize = 7 if max(len(qnames), len(rnames)) > 20 else 8
    # An axis of one record gets positions; an axis of several gets names at the record centres and
    # positions along the genome on the opposite side.
    sides = ((ax.xaxis, layout.roff, layout.rlens, short_names(rnames), size[0] - 2.6, layout.width, "x"),
             (ax.yaxis, layout.qoff, layout.qlens, qshort, size[1] - 1.6, layout.height, "y"))
    for axis, offs, lengths, names, inches, span, which in sides:
        if len(names) == 1:
            axis.set_major_locator(MaxNLocator(6))
            axis.set_major_formatter(bp_formatter(span))
            continue
        _label_records(axis, offs, lengths, names, inches * 72, fontsize)
        secondary = ax.secondary_xaxis("top") if which == "x" else ax.secondary_yaxis("right")
        other = secondary.xaxis if which == "x" else secondary.yaxis
        other.set_major_locator(MaxNLocator(6))
        other.set_major_formatter(bp_formatter(span))
        secondary.tick_params(labelsize=7, colors="0.4")
        secondary.set_xlabel(bp_unit(span)[1], fontsize=7, color="0.4") if which == "x" else \
            secondary.set_ylabel(bp_unit(span)[1], fontsize=7, color="0.4")
    if len(rnames) > 1:
        ax.tick_params(axis="x", labelrotation=90)
    ax.set_xlabel(_genome_title(rgenome, "reference", len(rnames), layout.width))
    ax.set_ylabel(_genome_title(qgenome, "query", len(qnames), layout.height))
    ax.set_title(f"{qgenome} vs {rgenome}: {dots.count:,} HSPs", fontsize=10)
    _colour_bars(fig, ax, norm)
    save_png(fig, path)


def coverage_heatmap(query_matrix: np.ndarray, reference_matrix: np.ndarray, qnames, rnames, qgenome: str,
                     rgenome: str, path: str, qtotal: int | None = None, rtotal: int | None = None) -> None:
    """Two heatmaps side by side, reference records on x and query records on y (longest first):
    the fraction of each query record covered by HSPs with each reference record, and the fraction
    of each reference record covered. Cells, labels and the figure size follow the record counts."""
    nq, nr = query_matrix.shape
    qtotal, rtotal = qtotal or nq, rtotal or nr
    cell = max(0.012, min(0.4, 10.0 / max(nq, nr, 1)))  # inches a cell: 10 inches for the longer side at most
    panel_w, panel_h = max(2.4, nr * cell), max(2.4, nq * cell)
    labels_x = labels_y = cell * 72 >= 6  # a name where a cell is at least 6 points high
    fontsize = min(7.0, cell * 72 * 0.8)
    fig, axes = plt.subplots(1, 2, figsize=(2 * panel_w + (2.8 if labels_y else 1.8) + 1.6,
                                            panel_h + (2.0 if labels_x else 1.4)), layout="constrained")
    for ax, matrix, title in ((axes[0], query_matrix, f"{qgenome} covered"),
                              (axes[1], reference_matrix, f"{rgenome} covered")):
        image = ax.imshow(matrix, vmin=0, vmax=1, cmap="viridis", aspect="auto", interpolation="nearest")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(f"{rgenome} ({nr:,} of {rtotal:,} records)" if nr < rtotal else rgenome, fontsize=8)
        if labels_x:
            ax.set_xticks(range(nr), [str(n) for n in short_names(rnames)], rotation=90, fontsize=fontsize)
        else:
            ax.set_xticks([])
        if labels_y and ax is axes[0]:
            ax.set_yticks(range(nq), [str(n) for n in short_names(qnames)], fontsize=fontsize)
        else:
            ax.set_yticks([])
        if nq * nr <= 100:  # few cells: their values written in them
            for (i, j), value in np.ndenumerate(matrix):
                ax.text(j, i, f"{value:.1%}", ha="center", va="center", fontsize=7,
                        color="black" if value > 0.5 else "white")
    axes[0].set_ylabel(f"{qgenome} ({nq:,} of {qtotal:,} records)" if nq < qtotal else qgenome, fontsize=8)
    fig.colorbar(image, ax=axes, label="fraction covered (both strands)", fraction=0.05, aspect=25)
    fig.suptitle("Coverage per chromosome pair, longest records first", fontsize=10)
    save_png(fig, path)


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _stable_ids(html: str) -> str:
    """Bokeh's random document and element ids replaced by ids made from the page itself, so the
    same HSPs give the same bytes (a rerun, a resumed run and `filter` compare equal)."""
    import hashlib
    import uuid

    digest = hashlib.sha1(UUID.sub("", html).encode()).hexdigest()
    names: dict[str, str] = {}
    return UUID.sub(lambda m: names.setdefault(m[0], str(uuid.uuid5(uuid.NAMESPACE_OID, f"{digest}-{len(names)}"))),
                    html)


def html_dotplot(dots: Dots, qnames, rnames, qgenome: str, rgenome: str, path: str,
                 min_identity: float | None = None) -> None:
    """An interactive dotplot in one self-contained HTML file (Bokeh with its JavaScript inline, so
    it opens offline): zoom and pan; hover shows both records, coordinates, strand, length and
    identity of an HSP. It carries the dots.max_lines longest HSPs (every HSP of a small run)."""
    from bokeh.embed import file_html
    from bokeh.models import (ColorBar, ColumnDataSource, FixedTicker, HoverTool, LinearColorMapper,
                              NumeralTickFormatter)
    from bokeh.plotting import figure
    from bokeh.resources import INLINE

    from bokeh.util import serialization

    # Bokeh numbers its models from a process-wide counter: start it afresh so the file depends on
    # the HSPs only, not on what the process drew before (with _stable_ids below)
    with serialization._simple_id_lock:
        serialization._simple_id = 999
    layout, lines = dots.layout, dots.lines
    qshort, rshort = np.array(short_names(qnames), dtype=object), np.array(short_names(rnames), dtype=object)
    low, high = dots.identity_range(min_identity)
    width = 900
    height = int(min(900, max(300, width * layout.height / max(1, layout.width))))
    fig = figure(width=width, height=height, x_range=(0, layout.width), y_range=(0, layout.height),
                 title=f"{qgenome} vs {rgenome}: {lines['x0'].size:,} of {dots.count:,} HSPs (the longest)",
                 x_axis_label=f"{rgenome} (reference, bp)", y_axis_label=f"{qgenome} (query, bp)",
                 tools="pan,wheel_zoom,box_zoom,reset,save", active_scroll="wheel_zoom", output_backend="webgl")
    for drawn, palette in ((0, "Blues256"), (1, "Reds256")):
        keep = lines["drawn"] == drawn
        if not keep.any():
            continue
        colours = [matplotlib.colors.to_hex(c) for c in RAMPS[drawn](np.linspace(0, 1, 256))]
        mapper = LinearColorMapper(palette=colours, low=low, high=high)
        qrec, rrec = lines["qrec"][keep].astype(np.int64), lines["rrec"][keep].astype(np.int64)
        source = ColumnDataSource({
            "x0": lines["x0"][keep], "y0": lines["y0"][keep], "x1": lines["x1"][keep], "y1": lines["y1"][keep],
            "identity": np.round(lines["identity"][keep], 2), "query": qshort[qrec], "reference": rshort[rrec],
            "qstart": lines["qstart"][keep] + 1, "qend": lines["qend"][keep],
            "rstart": lines["rstart"][keep] + 1, "rend": lines["rstart"][keep] + lines["qend"][keep] - lines["qstart"][keep],
            "strand": np.where(lines["strand"][keep] == 0, "+", "-"),
            "length": lines["qend"][keep] - lines["qstart"][keep]})
        fig.segment("x0", "y0", "x1", "y1", source=source, line_width=2,
                    line_color={"field": "identity", "transform": mapper}, legend_label=f"{STRAND_NAMES[drawn]} as drawn")
        fig.add_layout(ColorBar(color_mapper=mapper, title=f"identity {STRAND_NAMES[drawn]} (%)", width=10), "right")
    fig.add_tools(HoverTool(tooltips=[("query", "@query:@qstart{0,0}-@qend{0,0}"),
                                      ("reference", "@reference:@rstart{0,0}-@rend{0,0}"),
                                      ("strand", "@strand"), ("length", "@length{0,0} bp"),
                                      ("identity", "@identity{0.00} %")], line_policy="interp"))
    # record borders as one glyph (a Span each would make 20,000 contigs quadratic to build)
    xs, ys = _borders(layout.roff, 10 * MAX_BORDERS), _borders(np.sort(layout.qoff), 10 * MAX_BORDERS)
    if xs.size or ys.size:
        fig.segment(np.concatenate((xs, np.zeros(ys.size))), np.concatenate((np.zeros(xs.size), ys)),
                    np.concatenate((xs, np.full(ys.size, float(layout.width)))),
                    np.concatenate((np.full(xs.size, float(layout.height)), ys)), line_color="#cccccc", line_width=1,
                    level="underlay")
    fig.xaxis.formatter = fig.yaxis.formatter = NumeralTickFormatter(format="0,0")
    # names where they fit, as in the PNG (12 pixels apart)
    if len(rnames) > 1:
        shown = _shown_labels(layout.roff, layout.rlens, width, 14)
        centres = layout.roff + layout.rlens / 2
        fig.xaxis.ticker = FixedTicker(ticks=[float(centres[i]) for i in shown])
        fig.xaxis.major_label_overrides = {float(centres[i]): str(rshort[i]) for i in shown}
        fig.xaxis.major_label_orientation = 1.2
    if len(qnames) > 1:
        shown = _shown_labels(layout.qoff, layout.qlens, height, 12)
        centres = layout.qoff + layout.qlens / 2
        fig.yaxis.ticker = FixedTicker(ticks=[float(centres[i]) for i in shown])
        fig.yaxis.major_label_overrides = {float(centres[i]): str(qshort[i]) + (" (-)" if layout.flip[i] else "")
                                           for i in shown}
    if fig.legend:
        fig.legend.location = "top_left"
        fig.legend.click_policy = "hide"
    html = _stable_ids(file_html(fig, INLINE, title=f"{qgenome} vs {rgenome}"))
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(html)
