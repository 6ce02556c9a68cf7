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
    drawn = []
    real = plots._raster
    monkeypatch.setattr(plots, "_raster", lambda ax, x, y, strand: (drawn.append(x.size), real(ax, x, y, strand)))
    hsps = many_hsps(20_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plots.grid_dotplot(hsps, np.array(["q1", "q2"]), np.array([10**6 + 5000] * 2), np.array(["r1", "r2", "r3"]),
                           np.array([10**6 + 5000] * 3), "Q", "R", str(tmp_path / "grid.png"))
        plots.pair_dotplot({c: v[:300] for c, v in hsps.items()}, "q1", "r1", 10**6 + 5000, 10**6 + 5000,
                           str(tmp_path / "pair.png"))
    assert drawn == [20_000 - 500]  # the small pair plot draws every HSP as a line
    assert (tmp_path / "grid.png").stat().st_size > 10_000 and (tmp_path / "pair.png").exists()
