"""Dotplots stay drawable with many HSPs: beyond MAX_LINES segments the rest are rasterized."""
import warnings

import numpy as np

from gpu_kernels.workflow import plots


def many_hsps(n: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    qstart = rng.integers(0, 10**6, n)
    length = rng.integers(64, 5000, n)
    return {"qrec": rng.integers(0, 2, n).astype(np.int32), "rrec": rng.integers(0, 3, n).astype(np.int32),
            "strand": rng.integers(0, 2, n).astype(np.int8), "qstart": qstart, "qend": qstart + length,
            "rstart": rng.integers(0, 10**6, n)}


def test_dotplots_rasterize_beyond_max_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(plots, "MAX_LINES", 500)
    hsps = many_hsps(20_000)
    qlens, rlens = np.array([10**6 + 5000] * 2), np.array([10**6 + 5000] * 3)
    grid = plots.Dots(qlens.sum(), rlens.sum(), plots.offsets(qlens), plots.offsets(rlens)).add(hsps)
    pair = plots.Dots(10**6 + 5000, 10**6 + 5000).add({c: v[:300] for c, v in hsps.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plots.grid_dotplot(grid, np.array(["q1", "q2"]), qlens, np.array(["r1", "r2", "r3"]), rlens, "Q", "R",
                           str(tmp_path / "grid.png"))
        plots.pair_dotplot(pair, "q1", "r1", 10**6 + 5000, 10**6 + 5000, str(tmp_path / "pair.png"))
    assert (grid.count, grid.rastered, grid.lines.shape[1]) == (20_000, 20_000 - 500, 500)
    assert (pair.count, pair.rastered) == (300, 0)  # the small pair plot draws every HSP as a line
    assert (tmp_path / "grid.png").stat().st_size > 10_000 and (tmp_path / "pair.png").exists()


def test_dots_gathered_in_chunks_equal_dots_gathered_at_once(monkeypatch):
    """Streaming a table a chunk at a time keeps the same longest lines and marks the same cells."""
    monkeypatch.setattr(plots, "MAX_LINES", 700)
    hsps = many_hsps(30_000, seed=4)
    hsps["qend"] = hsps["qstart"] + 64 + np.random.default_rng(1).permutation(30_000)  # distinct lengths
    qlens, rlens = np.array([10**6 + 40_000] * 2), np.array([10**6 + 40_000] * 3)
    args = (qlens.sum(), rlens.sum(), plots.offsets(qlens), plots.offsets(rlens))
    whole = plots.Dots(*args).add(hsps)
    chunked = plots.Dots(*args)
    for at in range(0, 30_000, 2_345):
        chunked.add({c: v[at:at + 2_345] for c, v in hsps.items()})
    order = lambda lines: lines[:, np.argsort(lines[2] - lines[0])]  # noqa: E731
    assert np.array_equal(order(whole.lines), order(chunked.lines))
    assert np.array_equal(whole.cells, chunked.cells) and whole.cells.sum() > 1000
    assert whole.rastered == chunked.rastered == 30_000 - 700
