"""A genome set's ANI outputs, from its rows' ANI tables (workflow/many.py): `ani.tsv` (a pair a
line, in the genomes' order), pyANI's matrices, and a clustered heatmap with its dendrogram."""
from __future__ import annotations

import logging

import numpy as np

from ..ani import matrices, read_rows, write_matrices, write_rows

log = logging.getLogger(__name__)

# where a pair with nothing aligned sits in the clustering: below any ANI an alignment gives
UNRELATED_ANI = 70.0
# a pair whose alignments hold less than this share of the smaller genome is drawn and clustered as
# unrelated: two genera share a few conserved genes (rRNA operons) whose identity, over about 1 % of
# the genomes, says nothing of the genomes' distance, where pairs FastANI puts at 80-81 % share 7 % and
# more (exact seeds align less of such a pair than the 3 kb fragments FastANI maps, whose share its
# --minFraction, 0.2, counts)
MIN_SHARED = 0.05


def write_set(rows_paths: list[str], genomes: list[str], ani_path: str, matrix_folder: str, heatmap_path: str,
              formats: tuple = ()) -> None:
    """The set's tables and heatmap (heatmap_path: PNG, and each of `formats` beside it)."""
    table = read_rows(rows_paths)
    at = {g: i for i, g in enumerate(genomes)}
    table = table.assign(_q=table["query"].map(at), _r=table["reference"].map(at)).sort_values(["_q", "_r"])
    table = table.drop(columns=["_q", "_r"]).reset_index(drop=True)
    write_rows(ani_path, table)
    frames = matrices(table, genomes)
    write_matrices(frames, matrix_folder)
    draw_heatmap(ani_square(frames["percentage_identity"], frames["alignment_coverage"]), genomes, heatmap_path,
                 formats)
    log.info("%d genomes, %d pairs: ANI %s", len(genomes), len(table),
             f"{table['ani'].min():.2f} to {table['ani'].max():.2f} %" if len(table) else "none")


def ani_square(identity, coverage) -> np.ndarray:
    """The identity matrix (matrices': fractions, NaN where nothing aligned or the pair was not
    compared) in percent, UNRELATED_ANI in the NaN cells and in those of pairs that share less than
    MIN_SHARED of the smaller genome (coverage: matrices' aligned fractions, the larger of a pair's
    two taken as the smaller genome's)."""
    square = identity.to_numpy(dtype=float) * 100.0
    cover = coverage.to_numpy(dtype=float)
    shared = np.fmax(cover, cover.T)
    square[~(shared >= MIN_SHARED)] = np.nan
    return np.nan_to_num(square, nan=UNRELATED_ANI)


def cluster_order(square: np.ndarray):
    """The genomes' order and the linkage of average-linkage (UPGMA) clustering on 100 - ANI."""
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    if square.shape[0] < 2:
        return np.arange(square.shape[0]), None
    distance = np.clip(100.0 - square, 0.0, None)
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method="average")
    return leaves_list(tree), tree


def draw_heatmap(square: np.ndarray, genomes: list[str], path: str, formats: tuple = ()) -> None:
    """The ANI heatmap (square: ani_square's, the genomes' order), genomes in the clustering's order,
    its dendrogram above and beside it; the colour scale spans the ANI shown (95 to 100 at least)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy.cluster.hierarchy import dendrogram

    from .plots import save_png

    order, tree = cluster_order(square)
    n = len(genomes)
    side = min(30.0, max(5.0, 0.16 * n + 3.0))
    size = max(3.0, min(9.0, 600.0 / max(n, 1)))
    # room for the names beside and under the heatmap (about 0.6 em a character), not taken from it
    names_in = 0.2 + 0.6 * size / 72.0 * max(map(len, genomes), default=0) if n <= 150 else 0.3
    width, height = side + 1.6 + names_in, side + 1.4 + names_in
    fig = plt.figure(figsize=(width, height))
    grid = fig.add_gridspec(2, 2, width_ratios=(1.2, side), height_ratios=(1.2, side), wspace=0.02, hspace=0.02,
                            left=0.2 / width, right=1.0 - names_in / width, bottom=names_in / height,
                            top=1.0 - 0.6 / height)
    heat = fig.add_subplot(grid[1, 1])
    if tree is not None:
        for cell, orientation in ((grid[0, 1], "top"), (grid[1, 0], "left")):
            ax = fig.add_subplot(cell)
            dendrogram(tree, orientation=orientation, no_labels=True, color_threshold=0, above_threshold_color="0.3",
                       ax=ax)
            # scipy puts leaf i at 10 i + 5: the span of the heatmap's columns (rows top down)
            if orientation == "top":
                ax.set_xlim(0, 10 * n)
            else:
                ax.set_ylim(10 * n, 0)
            ax.set_axis_off()
    values = square[np.ix_(order, order)]
    shown = square[square > UNRELATED_ANI]
    low = float(np.floor(min(shown.min(), 95.0))) if shown.size else 95.0
    image = heat.imshow(np.where(values > UNRELATED_ANI, values, np.nan), cmap="viridis", vmin=low, vmax=100,
                        interpolation="nearest", aspect="auto")
    heat.set_facecolor("0.85")  # pairs with nothing aligned, or too little (MIN_SHARED)
    names = [genomes[i] for i in order]
    if n <= 150:
        heat.set_xticks(range(n), names, rotation=90, fontsize=size)
        heat.set_yticks(range(n), names, fontsize=size)
        heat.yaxis.tick_right()
    else:
        heat.set_xticks([])
        heat.set_yticks([])
    corner = fig.add_subplot(grid[0, 0])  # the colour key in the corner the dendrograms leave
    corner.set_axis_off()
    bar = fig.colorbar(image, ax=corner, fraction=0.5, aspect=8)
    bar.set_label("ANI (%)")
    if low < 95.0:
        bar.ax.axhline(95.0, color="white", linewidth=1.0)
    fig.suptitle(f"ANI of {n} genomes, average-linkage clustering", y=1.0 - 0.15 / height)
    fig.text(0.5, 1.0 - 0.4 / height, f"grey: less than {MIN_SHARED:.0%} of the smaller genome aligned",
             ha="center", fontsize=8, color="0.35")
    save_png(fig, path, formats=tuple(formats))
