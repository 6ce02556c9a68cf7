"""Pictures of a genome pair with matplotlib: the grid dotplot, pair dotplots, the coverage heatmap
(PNG, and SVG or PDF beside it where outputs.figure_formats asks), drawn from what dots.py gathered.

Conventions, as mummerplot and D-GENIES draw them: the reference on x, the query on y; positions in
bp, kb or Mb; chromosome borders and short names (the accession of a `gi|...|ref|NC_...|` header);
forward (as drawn) in reds and reverse in blues, as mummerplot colours them, darker where identity
is higher, with one colour key for both; query contigs ordered and oriented along the reference by
their best hits unless file order is asked for.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap, Normalize  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

from ..formats import atomic_path  # noqa: E402
from .dots import HTML_LINES, LINE_FIELDS, MAX_LINES, RASTER, Dots, Layout, file_stem, short_names  # noqa: E402,F401


def _ramp(name: str) -> LinearSegmentedColormap:
    """The darker two thirds of a matplotlib ramp: pale colours vanish on white."""
    base = plt.get_cmap(name)
    return LinearSegmentedColormap.from_list(f"{name}_dark", base(np.linspace(0.35, 1.0, 256)))


RAMPS = (_ramp("Reds"), _ramp("Blues"))  # by drawn orientation: forward, reverse (mummerplot's colours)
STRAND_NAMES = ("forward", "reverse")


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



# How a layer of a dotplot is drawn (outputs.dotplot_layers): the HSPs faded under the chains, the
# backbone over them, thicker, and the one-to-one alignments on top; LAYERS: the drawing order
LAYER_STYLES = {"hsps": (0.25, 1.0, 2), "chains": (0.6, 1.4, 3), "backbone": (1.0, 2.2, 4),
                "alignments": (1.0, 2.4, 5)}
LAYER_NAMES = {"hsps": "HSPs", "chains": "other chains", "backbone": "backbone chains",
               "alignments": "one-to-one alignments"}
LAYERS = ("hsps", "chains", "backbone", "alignments")


def draw_layers(dots: Dots, layers: dict, ax, norm: Normalize) -> None:
    """The HSPs' dots, faded where chain layers are drawn over them, then each chain layer (a dict
    name -> Dots, among LAYER_STYLES; "hsps" in it, even None, draws the HSPs)."""
    if not layers:
        draw_dots(dots, ax, norm)
        return
    for name in LAYERS:
        if name in layers and (name == "hsps" or layers[name] is not None):
            alpha, width, zorder = LAYER_STYLES[name]
            draw_dots(dots if name == "hsps" else layers[name], ax, norm, alpha, width, zorder)


def _layers_title(dots: Dots, layers: dict) -> str:
    text = f"{dots.count:,} {dots.unit}"
    if layers and layers.get("backbone") is not None:
        text += f", {layers['backbone'].count:,} backbone chains"
    if layers and layers.get("alignments") is not None:
        text += f", {layers['alignments'].count:,} alignments"
    return text


def draw_dots(dots: Dots, ax, norm: Normalize, alpha: float = 1.0, linewidth: float = 1.2, zorder: int = 2) -> None:
    """Raster cells under the lines, each coloured by identity on its orientation's ramp."""
    for drawn in (0, 1):
        cells = dots.cells[drawn].reshape(RASTER, RASTER)
        filled = cells > 0
        if dots.rastered and filled.any():
            # a byte a channel: a quarter of the colours' memory, and the image resampled as bytes
            rgba = RAMPS[drawn](norm(np.where(filled, cells, np.nan)), bytes=True)
            rgba[..., 3] = filled * np.uint8(round(alpha * 255))
            ax.imshow(rgba, origin="lower", extent=(0, dots.width, 0, dots.height), aspect="auto",
                      interpolation="nearest", zorder=zorder - 2)
    lines = dots.lines
    segments = np.stack((np.stack((lines["x0"], lines["y0"]), axis=1),
                         np.stack((lines["x1"], lines["y1"]), axis=1)), axis=1)
    for drawn in (0, 1):
        keep = lines["drawn"] == drawn
        if keep.any():
            paths, colours = colour_paths(segments[keep], RAMPS[drawn](norm(lines["identity"][keep]), alpha=alpha))
            ax.add_collection(LineCollection(paths, colors=colours, linewidths=linewidth, zorder=zorder))


def colour_paths(segments: np.ndarray, rgba: np.ndarray) -> tuple[list, np.ndarray]:
    """Segments (n, 2, 2) of colours rgba (n, 4) as one path a colour (a ramp has 256), the segments
    apart by NaN points (which break a path where matplotlib draws it): a LineCollection of 20,000
    paths spent more time making matplotlib's Path objects than drawing them. Each colour's segments
    keep their order, drawn after those of the colours before it."""
    colours, group = np.unique(rgba, axis=0, return_inverse=True)
    group = group.ravel()
    order = np.argsort(group, kind="stable")
    points = np.concatenate((segments[order], np.full((order.size, 1, 2), np.nan)), axis=1).reshape(-1, 2)
    ends = np.cumsum(np.bincount(group, minlength=len(colours))) * 3
    return np.split(points, ends[:-1]), colours


def colour_key(fig, norm: Normalize, ax=None, cax=None, fontsize: float = 7) -> None:
    """One compact key for both orientations: a bar of two columns, forward and reverse ramps side by
    side on one identity axis (beside ax, or in cax)."""
    mappable = matplotlib.cm.ScalarMappable(norm=norm, cmap=RAMPS[0])
    bar = fig.colorbar(mappable, cax=cax) if cax is not None else \
        fig.colorbar(mappable, ax=ax, fraction=0.03, pad=0.01, aspect=20, shrink=0.6)
    ramp = np.linspace(0, 1, 256)[:, None]
    key = np.concatenate([RAMPS[0](ramp), RAMPS[1](ramp)], axis=1)
    low, high = norm.vmin, norm.vmax
    bar.ax.imshow(key, origin="lower", extent=(0, 1, low, high), aspect="auto", interpolation="nearest", zorder=3)
    bar.ax.set_xlim(0, 1)
    bar.ax.set_ylim(low, high)
    bar.ax.axvline(0.5, color="white", linewidth=0.6, zorder=4)
    for x, sign in ((0.25, "+"), (0.75, "\u2212")):
        bar.ax.text(x, 1.01, sign, transform=bar.ax.transAxes, ha="center", va="bottom", fontsize=fontsize + 1)
    bar.set_label("identity (%); + forward, \u2212 reverse", fontsize=fontsize)
    bar.ax.tick_params(labelsize=fontsize)


FIGURE_FORMATS = ("png", "svg", "pdf")
# What makes a file differ between two saves of one picture, removed: dates, the software stamp, and
# the SVG's random element ids
_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
             "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}


def save_png(fig, path: str, dpi: int = 130, formats: tuple = ()) -> None:
    """Write a figure atomically (no software stamp, so the same picture gives the same bytes) as PNG,
    or as SVG or PDF where path ends so, and beside it in each other format asked for (`svg`, `pdf`:
    path with that suffix), then close it."""
    own = path.rsplit(".", 1)[-1].lower()
    own = own if own in FIGURE_FORMATS else "png"
    stem = path[:-len(own) - 1] if path.lower().endswith("." + own) else path
    for kind in (own, *[f for f in formats if f != own]):
        target = path if kind == own else f"{stem}.{kind}"
        with atomic_path(target) as tmp, matplotlib.rc_context({"svg.hashsalt": "gpu-genome-compare"}):
            fig.savefig(tmp, format=kind, dpi=dpi, metadata=_METADATA[kind])
    plt.close(fig)


def _figure_size(width: float, height: float, longest: float = 8.0) -> tuple[float, float]:
    """Plot area in proportion to the two lengths (at most 4:1), plus room for labels and colour bars."""
    ratio = min(4.0, max(0.25, height / max(1.0, width)))
    w, h = (longest, longest * ratio) if ratio <= 1 else (longest / ratio, longest)
    return max(w, 3.0) + 1.8, max(h, 2.5) + 1.6


# ---------------------------------------------------------------------------------------------
# The pictures


def aligned_frame(dots: Dots, layers: dict | None, margin: float = 0.05) -> tuple[float, float, float, float]:
    """(x0, x1, y0, y1): the region of a pair dotplot that holds what it draws on top (the one-to-one
    alignments, else the backbone chains, else the HSPs: lines and raster cells), widened by `margin`
    of the chromosome on each side; the whole chromosomes where that region is most of them."""
    xs, ys = [], []
    top = next((layers[name] for name in ("alignments", "backbone") if (layers or {}).get(name) is not None
                and layers[name].count), dots)
    for layer in [top]:
        lines = layer.lines
        xs += [lines["x0"], lines["x1"]]
        ys += [lines["y0"], lines["y1"]]
        cells = np.flatnonzero((layer.cells[0] > 0) | (layer.cells[1] > 0)) if layer.rastered else np.zeros(0, int)
        xs.append((cells % RASTER + np.array([[0], [1]])).ravel() * (layer.width / RASTER))
        ys.append((cells // RASTER + np.array([[0], [1]])).ravel() * (layer.height / RASTER))
    x, y = np.concatenate(xs), np.concatenate(ys)
    if not x.size:
        return 0.0, dots.width, 0.0, dots.height
    x0, x1 = max(0.0, x.min() - margin * dots.width), min(dots.width, x.max() + margin * dots.width)
    y0, y1 = max(0.0, y.min() - margin * dots.height), min(dots.height, y.max() + margin * dots.height)
    if (x1 - x0) > 0.7 * dots.width and (y1 - y0) > 0.7 * dots.height:
        return 0.0, dots.width, 0.0, dots.height
    return x0, x1, y0, y1


def pair_dotplot(dots: Dots, qname: str, rname: str, path: str, min_identity: float | None = None,
                 layers: dict | None = None, frame: str = "aligned", formats: tuple = ()) -> None:
    """Dotplot of one chromosome pair: reference on x, query on y, positions in bp, kb or Mb, HSPs
    coloured by identity (forward reds, reverse blues), the two scales equal up to 4:1. frame
    "aligned" shows the region that holds the HSPs (aligned_frame: a contig's hits on a chromosome,
    not a 4:1 strip of empty chromosome), "whole" the two chromosomes.

    Margins are fixed in inches, not solved by a layout engine: a run draws 50 of these, and
    constrained layout would triple the time of each."""
    x0, x1, y0, y1 = aligned_frame(dots, layers) if frame == "aligned" else (0.0, dots.width, 0.0, dots.height)
    ratio = min(4.0, max(0.25, (y1 - y0) / max(1.0, x1 - x0)))
    w, h = (6.0, 6.0 * ratio) if ratio <= 1 else (6.0 / ratio, 6.0)
    w, h = max(w, 2.0), max(h, 2.0)
    left, bottom, top, right = 0.85, 0.6, 0.4, 0.95
    fig = plt.figure(figsize=(left + w + right, bottom + h + top))
    width, height = fig.get_size_inches()
    ax = fig.add_axes((left / width, bottom / height, w / width, h / height))
    norm = Normalize(*dots.identity_range(min_identity))
    draw_layers(dots, layers, ax, norm)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    for axis, span, name in ((ax.xaxis, dots.width, rname), (ax.yaxis, dots.height, qname)):
        axis.set_major_locator(MaxNLocator(6))
        axis.set_major_formatter(bp_formatter(span))
        axis.set_label_text(f"{name} ({bp_unit(span)[1]})", fontsize=9)
    ax.tick_params(labelsize=8)
    region = "" if (x0, x1, y0, y1) == (0.0, dots.width, 0.0, dots.height) else " (aligned region)"
    ax.set_title(f"{qname} vs {rname}{region}: {_layers_title(dots, layers)}", fontsize=9)
    bar_h = min(h, 3.0) * 0.8
    cax = fig.add_axes(((left + w + 0.15) / width, (bottom + (h - bar_h) / 2) / height, 0.22 / width, bar_h / height))
    colour_key(fig, norm, cax=cax)
    save_png(fig, path, dpi=110, formats=formats)


def shown_labels(offsets_, lengths, room: float, gap: float) -> list[int]:
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
    """Record names at record centres where they fit (see shown_labels)."""
    shown = shown_labels(offsets_, lengths, room_points, fontsize * 1.3)
    axis.set_ticks([offsets_[i] + lengths[i] / 2 for i in shown])
    axis.set_ticklabels([names[i] for i in shown], fontsize=fontsize)
    axis.set_tick_params(length=0)


MAX_BORDERS = 300  # record borders drawn on a side of a PNG dotplot at most (ten times as many in the HTML one)


def border_positions(starts, most: int) -> np.ndarray:
    """Where borders between records go, or none when there are more than `most` records."""
    return starts[1:].astype(float) if starts.size <= most else np.zeros(0)


def _genome_title(genome: str, role: str, records: int, length: int) -> str:
    """An axis title: the genome, its role and size; the unit of the ticks when they are positions."""
    size = f"{records:,} records, {length:,} bp" if records > 1 else f"{length:,} bp; position in {bp_unit(length)[1]}"
    return f"{genome} ({role}, {size})"


def grid_dotplot(dots: Dots, qnames, rnames, qgenome: str, rgenome: str, path: str,
                 min_identity: float | None = None, layers: dict | None = None, formats: tuple = ()) -> None:
    """Genome-by-genome dotplot: reference chromosomes end to end on x, query chromosomes on y (in
    the Layout's order; a flipped query record is marked '(-)'), borders and short names drawn,
    positions along each genome in bp, kb or Mb on the top and right axes."""
    layout = dots.layout
    size = _figure_size(layout.width, layout.height)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    norm = Normalize(*dots.identity_range(min_identity))
    draw_layers(dots, layers, ax, norm)
    # record borders: one collection a side (1,000 contigs are 1,000 lines, not 1,000 artists), and
    # none on a side of more than MAX_BORDERS records, whose borders would paint the plot grey
    xs, ys = border_positions(layout.roff, MAX_BORDERS), border_positions(np.sort(layout.qoff), MAX_BORDERS)
    borders = [[(x, 0), (x, layout.height)] for x in xs] + [[(0, y), (layout.width, y)] for y in ys]
    if borders:
        ax.add_collection(LineCollection(borders, colors="0.8", linewidths=0.5, zorder=1))
    ax.set_xlim(0, layout.width)
    ax.set_ylim(0, layout.height)
    qshort = [n + (" (-)" if f else "") for n, f in zip(short_names(qnames), layout.flip)]
    fontsize = 7 if max(len(qnames), len(rnames)) > 20 else 8
    # An axis of one record gets positions; an axis of several gets names at the record centres and
    # positions along the genome on the opposite side.
    sides = ((ax.xaxis, layout.roff, layout.rlens, short_names(rnames), size[0] - 1.8, layout.width, "x"),
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
    ax.set_title(f"{qgenome} vs {rgenome}: {_layers_title(dots, layers)}", fontsize=10)
    colour_key(fig, norm, ax=ax)
    save_png(fig, path, formats=formats)


def coverage_heatmap(query_matrix: np.ndarray, reference_matrix: np.ndarray, qnames, rnames, qgenome: str,
                     rgenome: str, path: str, qtotal: int | None = None, rtotal: int | None = None,
                     formats: tuple = ()) -> None:
    """Two heatmaps side by side, reference records on x and query records on y in the dotplot's
    order (the first query record at the bottom, as in the dotplot): the fraction of each query
    record covered by HSPs with each reference record, and the fraction of each reference record
    covered. Cells, labels and the figure size follow the record counts; a few cells carry their
    values, written large enough to read."""
    nq, nr = query_matrix.shape
    qtotal, rtotal = qtotal or nq, rtotal or nr
    cell = max(0.012, min(0.4, 10.0 / max(nq, nr, 1)))  # inches a cell: 10 inches for the longer side at most
    panel_w, panel_h = max(2.4, nr * cell), max(2.4, nq * cell)
    labels_x = labels_y = cell * 72 >= 6  # a name where a cell is at least 6 points high
    fontsize = min(7.0, cell * 72 * 0.8)
    fig, axes = plt.subplots(1, 2, figsize=(2 * panel_w + (2.8 if labels_y else 1.8) + 1.6,
                                            panel_h + (2.0 if labels_x else 1.4)), layout="constrained")
    values = min(16.0, max(7.0, min(panel_w / nr, panel_h / nq) * 72 * 0.18))  # the written values' size
    for ax, matrix, title in ((axes[0], query_matrix, f"{qgenome} covered"),
                              (axes[1], reference_matrix, f"{rgenome} covered")):
        image = ax.imshow(matrix, vmin=0, vmax=1, cmap="viridis", aspect="auto", interpolation="nearest",
                          origin="lower")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(f"{rgenome} ({nr:,} of {rtotal:,} records)" if nr < rtotal else rgenome, fontsize=8)
        if labels_x:
            ax.set_xticks(range(nr), [str(n) for n in short_names(rnames)], rotation=90 if nr > 1 else 0,
                          fontsize=fontsize)
        else:
            ax.set_xticks([])
        if labels_y and ax is axes[0]:
            ax.set_yticks(range(nq), [str(n) for n in short_names(qnames)], fontsize=fontsize)
        else:
            ax.set_yticks([])
        if nq * nr <= 100:  # few cells: their values written in them
            for (i, j), value in np.ndenumerate(matrix):
                ax.text(j, i, f"{value:.1%}", ha="center", va="center", fontsize=values,
                        color="black" if value > 0.5 else "white")
    axes[0].set_ylabel(f"{qgenome} ({nq:,} of {qtotal:,} records)" if nq < qtotal else qgenome, fontsize=8)
    fig.colorbar(image, ax=axes, label="fraction covered (both strands)", fraction=0.05, aspect=25)
    fig.suptitle("Coverage per chromosome pair, records in the dotplot's order", fontsize=10)
    save_png(fig, path, formats=formats)


def stacked_dotplot(dots_list: list, qgenomes: list, rnames, rgenome: str, path: str,
                    min_identity: float | None = None) -> None:
    """Several assemblies against one reference (D-GENIES' many-against-one view): a row a query
    genome, all on the reference's x axis (records end to end, short names, borders), each row's
    height in proportion to its genome's length, one colour key."""
    heights = [max(1.0, d.layout.height) for d in dots_list]
    width = dots_list[0].layout.width
    fig, axes = plt.subplots(len(dots_list), 1, sharex=True, squeeze=False, layout="constrained",
                             figsize=(10.0, min(14.0, 1.5 + 2.2 * len(dots_list))),
                             gridspec_kw={"height_ratios": [h / max(heights) + 0.3 for h in heights]})
    axes = axes[:, 0]
    low = min(d.identity_range(min_identity)[0] for d in dots_list)
    norm = Normalize(low, 100.0)
    layout = dots_list[0].layout
    xs = border_positions(layout.roff, MAX_BORDERS)
    for ax, dots, genome in zip(axes, dots_list, qgenomes):
        draw_dots(dots, ax, norm)
        ys = border_positions(np.sort(dots.layout.qoff), MAX_BORDERS)
        borders = [[(x, 0), (x, dots.layout.height)] for x in xs] + [[(0, y), (width, y)] for y in ys]
        if borders:
            ax.add_collection(LineCollection(borders, colors="0.8", linewidths=0.5, zorder=1))
        ax.set_xlim(0, width)
        ax.set_ylim(0, dots.layout.height)
        ax.yaxis.set_major_locator(MaxNLocator(4))
        ax.yaxis.set_major_formatter(bp_formatter(dots.layout.height))
        ax.set_ylabel(f"{genome}\n({bp_unit(dots.layout.height)[1]})", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_title(f"{genome}: {dots.count:,} {dots.unit}", fontsize=8, loc="left")
    if len(rnames) > 1:
        _label_records(axes[-1].xaxis, layout.roff, layout.rlens, short_names(rnames), 8.5 * 72, 7)
        axes[-1].tick_params(axis="x", labelrotation=90)
    else:
        axes[-1].xaxis.set_major_locator(MaxNLocator(6))
        axes[-1].xaxis.set_major_formatter(bp_formatter(width))
    axes[-1].set_xlabel(_genome_title(rgenome, "reference", len(rnames), width))
    colour_key(fig, norm, ax=list(axes))
    save_png(fig, path)
