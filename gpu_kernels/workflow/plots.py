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


def _coords(hsps: dict, qoff=0, roff=0):
    """(x0, y0, x1, y1) of every HSP, query on x and reference on y; reverse HSPs run against the diagonal."""
    strand = np.asarray(hsps["strand"])
    rend = hsps["rend"] if "rend" in hsps else hsps["rstart"] + (hsps["qend"] - hsps["qstart"])
    x0, x1 = hsps["qstart"] + qoff, hsps["qend"] + qoff
    y0 = np.where(strand == 0, hsps["rstart"], rend) + roff
    y1 = np.where(strand == 0, rend, hsps["rstart"]) + roff
    return x0, y0, x1, y1


MAX_LINES = 100_000  # segments drawn as lines; the rest are rasterized to the pixels they fall on
RASTER = 1000        # raster cells a side for the rest


def _draw(ax, x0, y0, x1, y1, strand):
    """Forward segments blue, reverse red. Beyond MAX_LINES segments, the longest are drawn as lines
    and the others as the raster cells their midpoints fall in: at most what the pixels can show."""
    strand = np.asarray(strand)
    lines = np.arange(strand.size)
    if strand.size > MAX_LINES:
        lines = np.argpartition(-np.abs(x1 - x0), MAX_LINES)[:MAX_LINES]
        rest = np.ones(strand.size, dtype=bool)
        rest[lines] = False
        _raster(ax, (x0[rest] + x1[rest]) / 2, (y0[rest] + y1[rest]) / 2, strand[rest])
    segments = np.stack((np.stack((x0[lines], y0[lines]), axis=1), np.stack((x1[lines], y1[lines]), axis=1)), axis=1)
    for value, colour, label in ((0, FORWARD, "forward"), (1, REVERSE, "reverse")):
        chosen = strand[lines] == value
        ax.add_collection(LineCollection(segments[chosen], colors=colour, linewidths=1.2, label=label))


def _raster(ax, x, y, strand) -> None:
    """Points too many to draw one by one (segment midpoints), as filled raster cells (by strand)
    under the lines."""
    xmax, ymax = max(1.0, float(x.max())), max(1.0, float(y.max()))
    for value, colour in ((0, FORWARD), (1, REVERSE)):
        mask = strand == value
        if not mask.any():
            continue
        # integer binning with one bincount: far faster than histogram2d on 10^8 points
        ix = np.minimum((x[mask] * (RASTER / xmax)).astype(np.int64), RASTER - 1)
        iy = np.minimum((y[mask] * (RASTER / ymax)).astype(np.int64), RASTER - 1)
        counts = np.bincount(iy * RASTER + ix, minlength=RASTER * RASTER).reshape(RASTER, RASTER)
        rgba = np.zeros(counts.shape + (4,))
        rgba[..., :3] = matplotlib.colors.to_rgb(colour)
        rgba[..., 3] = counts > 0
        ax.imshow(rgba, origin="lower", extent=(0, xmax, 0, ymax), aspect="auto", interpolation="nearest",
                  zorder=0)


def _save(fig, path: str) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)


def pair_dotplot(hsps: dict, qname: str, rname: str, qlen: int, rlen: int, path: str) -> None:
    """Dotplot of one chromosome pair: forward HSPs blue, reverse HSPs red."""
    fig, ax = plt.subplots(figsize=(6, 6))
    _draw(ax, *_coords(hsps), hsps["strand"])
    ax.set_xlim(0, qlen)
    ax.set_ylim(0, rlen)
    ax.set_xlabel(f"{qname} (bp)")
    ax.set_ylabel(f"{rname} (bp)")
    ax.set_title(f"{qname} vs {rname}: {hsps['qstart'].size} HSPs", fontsize=9)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    _save(fig, path)


def grid_dotplot(hsps: dict, qnames, qlens, rnames, rlens, qgenome: str, rgenome: str, path: str,
                 max_labels: int = 40) -> None:
    """Genome-by-genome dotplot: chromosomes end to end on both axes, borders and names drawn."""
    qoff = np.concatenate(([0], np.cumsum(qlens)[:-1]))
    roff = np.concatenate(([0], np.cumsum(rlens)[:-1]))
    fig, ax = plt.subplots(figsize=(8, 8))
    _draw(ax, *_coords(hsps, qoff[hsps["qrec"]], roff[hsps["rrec"]]), hsps["strand"])
    qtotal, rtotal = int(np.sum(qlens)), int(np.sum(rlens))
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
    ax.set_title(f"{qgenome} vs {rgenome}: {hsps['qstart'].size} HSPs (blue forward, red reverse)", fontsize=9)
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
