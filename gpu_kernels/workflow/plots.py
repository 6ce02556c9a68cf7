"""Plots: per-pair dotplots, the genome-by-genome grid dotplot, the coverage heatmap (PNG, matplotlib)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402

from ..formats import atomic_path  # noqa: E402

FORWARD = "#1f5fbf"
REVERSE = "#d62728"


MAX_LINES = 20_000   # segments drawn as lines (more than a 660-pixel plot shows); the rest are rasterized
RASTER = 1000        # raster cells a side for the rest


class Dots:
    """The segments of one dotplot, gathered a chunk of HSPs at a time in bounded memory: the
    MAX_LINES longest are kept as lines and every other one marks the raster cell of its midpoint
    (at most what the pixels can show), so 10^8 HSPs draw as fast as 10^5.

    Query on x, reference on y; reverse HSPs run against the diagonal. qoff and roff (arrays by
    record index) place records end to end, for the grid dotplot."""

    def __init__(self, width: float, height: float, qoff=None, roff=None):
        self.width, self.height = max(1.0, float(width)), max(1.0, float(height))
        self.qoff, self.roff = qoff, roff
        self.cells = np.zeros((2, RASTER * RASTER), dtype=bool)
        self.lines = np.zeros((5, 0), dtype=np.float64)  # x0, y0, x1, y1, strand
        self.count = self.rastered = 0

    def add(self, hsps: dict) -> "Dots":
        """Take a chunk of HSPs (qstart, qend, rstart, strand, and qrec/rrec for a grid)."""
        strand = np.asarray(hsps["strand"])
        if strand.size == 0:
            return self
        self.count += strand.size
        qstart, qend, rstart = (np.asarray(hsps[c], dtype=np.int64) for c in ("qstart", "qend", "rstart"))
        qoff = self.qoff[np.asarray(hsps["qrec"])] if self.qoff is not None else 0
        roff = self.roff[np.asarray(hsps["rrec"])] if self.roff is not None else 0
        length = qend - qstart
        # Only a segment longer than the shortest kept line (once MAX_LINES are kept), and not shorter
        # than the chunk's own MAX_LINES-th longest, can become a line: every other one goes straight
        # to the raster, without building its segment.
        floor = self.lines[2, 0] - self.lines[0, 0] + 1 if self.lines.shape[1] >= MAX_LINES else -np.inf
        if length.size > MAX_LINES:
            floor = max(floor, np.partition(length, length.size - MAX_LINES)[length.size - MAX_LINES])
        short = length < floor
        if short.any():
            self._mark(*(np.compress(short, a) if np.ndim(a) else a
                         for a in (qstart + qend + 2 * qoff, rstart + rstart + length + 2 * roff, strand)))
            keep = ~short
            qstart, qend, rstart, length, strand = (a[keep] for a in (qstart, qend, rstart, length, strand))
            qoff, roff = (a[keep] if np.ndim(a) else a for a in (qoff, roff))
        rend = rstart + length
        forward = strand == 0
        chunk = np.stack([qstart + qoff, np.where(forward, rstart, rend) + roff, qend + qoff,
                          np.where(forward, rend, rstart) + roff, strand]).astype(np.float64)
        lines = np.concatenate([self.lines, chunk], axis=1)
        if lines.shape[1] > MAX_LINES:
            order = np.argpartition(-(lines[2] - lines[0]), MAX_LINES)
            rest = lines[:, order[MAX_LINES:]]
            self._mark(rest[0] + rest[2], rest[1] + rest[3], rest[4])
            lines = lines[:, order[:MAX_LINES]]
            # the shortest kept line first: the threshold the next chunk is compared with
            lines[:, [0, np.argmin(lines[2] - lines[0])]] = lines[:, [np.argmin(lines[2] - lines[0]), 0]]
        self.lines = lines
        return self

    def _mark(self, x2, y2, strand) -> None:
        """Mark the raster cells of midpoints given doubled (x0 + x1, y0 + y1), by strand."""
        ix = np.clip((x2 * (RASTER / (2 * self.width))).astype(np.int64), 0, RASTER - 1)
        iy = np.clip((y2 * (RASTER / (2 * self.height))).astype(np.int64), 0, RASTER - 1)
        cell = iy * RASTER + ix
        reverse = np.asarray(strand).astype(bool)
        self.cells[0, cell[~reverse]] = True
        self.cells[1, cell[reverse]] = True
        self.rastered += cell.size

    def draw(self, ax) -> None:
        """Raster cells under the lines; forward blue, reverse red."""
        for value, colour in ((0, FORWARD), (1, REVERSE)):
            if self.rastered and self.cells[value].any():
                rgba = np.zeros((RASTER, RASTER, 4))
                rgba[..., :3] = matplotlib.colors.to_rgb(colour)
                rgba[..., 3] = self.cells[value].reshape(RASTER, RASTER)
                ax.imshow(rgba, origin="lower", extent=(0, self.width, 0, self.height), aspect="auto",
                          interpolation="nearest", zorder=0)
        x0, y0, x1, y1, strand = self.lines
        segments = np.stack((np.stack((x0, y0), axis=1), np.stack((x1, y1), axis=1)), axis=1)
        for value, colour, label in ((0, FORWARD, "forward"), (1, REVERSE, "reverse")):
            ax.add_collection(LineCollection(segments[strand == value], colors=colour, linewidths=1.2, label=label))


def _dots(hsps, width: float, height: float, qoff=None, roff=None) -> Dots:
    """Dots as given, or gathered from a dict of HSP columns or an iterable of such chunks."""
    if isinstance(hsps, Dots):
        return hsps
    dots = Dots(width, height, qoff, roff)
    for chunk in ([hsps] if isinstance(hsps, dict) else hsps):
        dots.add(chunk)
    return dots


def offsets(lengths) -> np.ndarray:
    """Where each record starts when records are laid end to end."""
    lengths = np.asarray(lengths, dtype=np.int64)
    return np.concatenate(([0], np.cumsum(lengths)[:-1]))


def _save(fig, path: str) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)


def pair_dotplot(hsps, qname: str, rname: str, qlen: int, rlen: int, path: str) -> None:
    """Dotplot of one chromosome pair (hsps: Dots, HSP columns, or chunks of them): forward HSPs
    blue, reverse HSPs red."""
    dots = _dots(hsps, qlen, rlen)
    fig, ax = plt.subplots(figsize=(6, 6))
    dots.draw(ax)
    ax.set_xlim(0, qlen)
    ax.set_ylim(0, rlen)
    ax.set_xlabel(f"{qname} (bp)")
    ax.set_ylabel(f"{rname} (bp)")
    ax.set_title(f"{qname} vs {rname}: {dots.count} HSPs", fontsize=9)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    _save(fig, path)


def grid_dotplot(hsps, qnames, qlens, rnames, rlens, qgenome: str, rgenome: str, path: str,
                 max_labels: int = 40) -> None:
    """Genome-by-genome dotplot (hsps: Dots, HSP columns, or chunks of them): chromosomes end to end
    on both axes, borders and names drawn."""
    qoff, roff = offsets(qlens), offsets(rlens)
    qtotal, rtotal = int(np.sum(qlens)), int(np.sum(rlens))
    dots = _dots(hsps, qtotal, rtotal, qoff, roff)
    fig, ax = plt.subplots(figsize=(8, 8))
    dots.draw(ax)
    for x in qoff[1:]:
        ax.axvline(x, color="0.75", linewidth=0.5)
    for y in roff[1:]:
        ax.axhline(y, color="0.75", linewidth=0.5)
    _label_axis(ax.set_xticks, ax.set_xticklabels, qoff, qlens, qnames, max_labels, rotation=90)
    _label_axis(ax.set_yticks, ax.set_yticklabels, roff, rlens, rnames, max_labels, rotation=0)
    ax.set_xlim(0, qtotal)
    ax.set_ylim(0, rtotal)
    ax.set_xlabel(f"{qgenome} ({qtotal:,} bp)")
    ax.set_ylabel(f"{rgenome} ({rtotal:,} bp)")
    ax.set_title(f"{qgenome} vs {rgenome}: {dots.count} HSPs (blue forward, red reverse)", fontsize=9)
    fig.tight_layout()
    _save(fig, path)


def _label_axis(set_ticks, set_labels, offsets, lengths, names, max_labels: int, rotation: int) -> None:
    """Chromosome names at chromosome centres, only for the longest max_labels chromosomes."""
    lengths = np.asarray(lengths)
    shown = np.sort(np.argsort(-lengths, kind="stable")[:max_labels])
    set_ticks(offsets[shown] + lengths[shown] / 2)
    set_labels([str(names[i]) for i in shown], rotation=rotation, fontsize=7)


def coverage_heatmap(matrix: np.ndarray, qnames, rnames, qgenome: str, rgenome: str, path: str,
                     max_side: int = 60) -> None:
    """Heatmap of query coverage per chromosome pair (rows query, columns reference), longest first."""
    rows = np.arange(matrix.shape[0])[:max_side]
    cols = np.arange(matrix.shape[1])[:max_side]
    shown = matrix[np.ix_(rows, cols)]
    fig, ax = plt.subplots(figsize=(2 + 0.25 * len(cols), 1.5 + 0.25 * len(rows)))
    image = ax.imshow(shown, vmin=0, vmax=1, cmap="viridis", aspect="auto", interpolation="nearest")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([str(rnames[i]) for i in cols], rotation=90, fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([str(qnames[i]) for i in rows], fontsize=7)
    ax.set_xlabel(rgenome)
    ax.set_ylabel(qgenome)
    fig.colorbar(image, ax=ax, label="query coverage (both strands)")
    ax.set_title("coverage per chromosome pair", fontsize=9)
    fig.tight_layout()
    _save(fig, path)
