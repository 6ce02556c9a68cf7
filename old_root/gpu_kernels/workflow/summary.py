"""The parameter sweep's summary: a row per parameter set and genome pair, and its figure."""
from __future__ import annotations

from ..formats import read_tsv, write_tsv


def axis_range(values) -> tuple[float, float]:
    """(low, high) of a summary panel's axis: from 0, unless the values are close together far from 0
    (a sweep's coverages of 95.1 % and 95.4 %), where the axis starts below the least so that their
    differences show; room to the right for the labels."""
    if not len(values) or max(values) <= 0:
        return 0.0, 1.0
    least, most = float(min(values)), float(max(values))
    spread = most - least
    low = 0.0
    if least > 0 and spread < 0.25 * most:
        low = max(0.0, least - max(spread, 0.02 * most))
    return low, most + 0.3 * (most - low)


def sweep_summary(rows_in: list[dict], tsv_path: str, png_path: str) -> None:
    """One row per parameter set and genome pair: the parameters of its mode, HSPs, coverage of both
    genomes, compare time; and a plot of them with values on the bars."""
    import pandas as pd

    from .report import mode_params

    rows = []
    for item in rows_in:
        stats = read_tsv(item["stats"])
        genomes = {row["side"]: row for row in read_tsv(item["coverage"])}
        rows.append({"set": item["set"], "query": item["query"], "reference": item["reference"],
                     **{key: value for key, value in mode_params(item["params"]).items()
                        if key in ("mode", "min_match", "k", "min_len", "min_identity", "xdrop", "max_freq")},
                     "hsps": sum(int(r["hsps"]) for r in stats),
                     "query_coverage": float(genomes["query"]["coverage_both"]),
                     "reference_coverage": float(genomes["reference"]["coverage_both"]),
                     "compare_jobs": len(stats), "compare_s": round(sum(float(r["total_s"]) for r in stats), 3)})
    table = pd.DataFrame(rows)
    write_tsv(tsv_path, table)
    from .plots import plt, save_png

    fig, axes = plt.subplots(1, 4, figsize=(15, 1.2 + 0.45 * max(2, len(rows))), layout="constrained")
    labels = [f"{r['set']}  {r['query']} vs {r['reference']}" for r in rows]
    panels = (("query_coverage", "query coverage", "{:.2%}"), ("reference_coverage", "reference coverage", "{:.2%}"),
              ("hsps", "HSPs", "{:,.0f}"), ("compare_s", "compare time (s)", "{:,.1f}"))
    for ax, (key, title, text) in zip(axes, panels):
        values = table[key].astype(float).to_numpy()
        low, high = axis_range(values)
        bars = ax.barh(range(len(rows)), values - low, left=low, color="#1f5fbf")
        ax.bar_label(bars, [text.format(v) for v in values], padding=3, fontsize=8)
        ax.set_xlim(low, high)
        if low > 0:
            title += f" (axis from {text.format(low)})"
        ax.set_yticks(range(len(rows)), labels if ax is axes[0] else [], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
    save_png(fig, png_path)
