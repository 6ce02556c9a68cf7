"""The interactive dotplot: one self-contained HTML file (Bokeh, its JavaScript inline), drawn from
what dots.py gathered, in the colours of plots.py."""
from __future__ import annotations

import re

import matplotlib
import numpy as np

from .dots import Dots, short_names
from .plots import LAYER_NAMES, LAYER_STYLES, LAYERS, MAX_BORDERS, RAMPS, STRAND_NAMES, border_positions, shown_labels, atomic_path


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _stable_ids(html: str, keep=()) -> str:
    """Bokeh's random document and element ids replaced by ids made from the page itself, so the
    same HSPs give the same bytes (a rerun, a resumed run and `filter` compare equal). keep: text the
    page shows (record and genome names) whose UUIDs are the user's, left as they are."""
    import hashlib
    import uuid

    own = set(UUID.findall(" ".join(str(text) for text in keep)))
    digest = hashlib.sha1(UUID.sub("", html).encode()).hexdigest()
    names: dict[str, str] = {}

    def stable(match) -> str:
        if match[0] in own:
            return match[0]
        return names.setdefault(match[0], str(uuid.uuid5(uuid.NAMESPACE_OID, f"{digest}-{len(names)}")))

    return UUID.sub(stable, html)


def _segment_source(lines: dict, drawn: int, layout, qshort, rshort):
    """The ColumnDataSource of the lines of one drawn orientation (None where there are none): ends,
    identity, and for the hover both records' spans, strand and length."""
    from bokeh.models import ColumnDataSource

    keep = lines["drawn"] == drawn
    if not keep.any():
        return None
    qrec, rrec = lines["qrec"][keep].astype(np.int64), lines["rrec"][keep].astype(np.int64)
    # the reference end from the segment (an HSP's rstart + length, a chain's own end)
    rend = np.maximum(lines["x0"][keep], lines["x1"][keep]) - layout.roff[rrec]
    return ColumnDataSource({
        "x0": lines["x0"][keep], "y0": lines["y0"][keep], "x1": lines["x1"][keep], "y1": lines["y1"][keep],
        "identity": np.round(lines["identity"][keep], 2), "query": qshort[qrec], "reference": rshort[rrec],
        "qstart": lines["qstart"][keep] + 1, "qend": lines["qend"][keep], "rstart": lines["rstart"][keep] + 1,
        "rend": rend, "strand": np.where(lines["strand"][keep] == 0, "+", "-"),
        "length": lines["qend"][keep] - lines["qstart"][keep]})


def colour_key(low: float, high: float):
    """One compact key for both orientations, as the PNGs have: two ramps side by side (+ forward,
    − reverse) on one identity axis, in a narrow figure beside the dotplot."""
    from bokeh.plotting import figure

    ramp = np.linspace(0, 1, 256)
    rgba = (np.stack([RAMPS[0](ramp), RAMPS[1](ramp)], axis=1) * 255).astype(np.uint8)
    key = figure(width=95, sizing_mode="stretch_height", min_height=200, x_range=(0, 2), y_range=(low, high),
                 toolbar_location=None, tools="", title="identity (%)", y_axis_location="right")
    key.image_rgba(image=[rgba.view(np.uint32).reshape(256, 2)], x=0, y=low, dw=2, dh=high - low)
    key.xaxis.ticker = [0.5, 1.5]
    key.xaxis.major_label_overrides = {0.5: "+", 1.5: "\u2212"}
    key.grid.visible = False
    key.title.text_font_size = "9pt"
    return key


def html_dotplot(dots: Dots, qnames, rnames, qgenome: str, rgenome: str, path: str,
                 min_identity: float | None = None, layers: dict | None = None) -> None:
    """An interactive dotplot in one self-contained HTML file (Bokeh with its JavaScript inline, so
    it opens offline) that fills the browser window: zoom and pan; hover shows both records, coordinates, strand, length and
    identity of an HSP. It carries the dots.max_lines longest HSPs (every HSP of a small run); with
    layers (plots.draw_layers), the chains over them, each layer shown or hidden from the legend."""
    from bokeh.embed import file_html
    from bokeh.layouts import row
    from bokeh.models import AllLabels, FixedTicker, HoverTool, Legend, LinearColorMapper, NumeralTickFormatter
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
    # the page fills its window (stretch_both); width and height here only space the record names
    width = 1200
    height = int(min(900, max(300, width * layout.height / max(1, layout.width))))
    fig = figure(sizing_mode="stretch_both", min_width=400, min_height=300, x_range=(0, layout.width),
                 y_range=(0, layout.height),
                 title=f"{qgenome} vs {rgenome}: {lines['x0'].size:,} of {dots.count:,} HSPs (the longest)",
                 x_axis_label=f"{rgenome} (reference, bp)", y_axis_label=f"{qgenome} (query, bp)",
                 tools="pan,wheel_zoom,box_zoom,reset,save", active_scroll="wheel_zoom", output_backend="webgl")
    mappers = {}
    for drawn in (0, 1):
        colours = [matplotlib.colors.to_hex(c) for c in RAMPS[drawn](np.linspace(0, 1, 256))]
        mappers[drawn] = LinearColorMapper(palette=colours, low=low, high=high)
    # each layer a glyph per drawn orientation, its legend entry a toggle (click_policy hide); the
    # legend beside the plot, not over its top left, where a genome's first records are drawn
    fig.add_layout(Legend(location="top_left", click_policy="hide", label_text_font_size="9pt"), "right")
    for name in LAYERS:
        if layers and name not in layers:
            continue
        layer = dots if name == "hsps" else (layers or {}).get(name)
        if layer is None:
            continue
        alpha, line_width, _ = LAYER_STYLES[name] if layers else (1.0, 2.0, 0)
        for drawn in (0, 1):
            source = _segment_source(layer.lines, drawn, layout, qshort, rshort)
            if source is None:
                continue
            label = f"{LAYER_NAMES[name if layers else 'hsps']}, {STRAND_NAMES[drawn]}"
            fig.segment("x0", "y0", "x1", "y1", source=source, line_width=line_width + 0.8, line_alpha=alpha,
                        line_color={"field": "identity", "transform": mappers[drawn]}, legend_label=label)
    fig.add_tools(HoverTool(tooltips=[("query", "@query:@qstart{0,0}-@qend{0,0}"),
                                      ("reference", "@reference:@rstart{0,0}-@rend{0,0}"),
                                      ("strand", "@strand"), ("length", "@length{0,0} bp"),
                                      ("identity", "@identity{0.00} %")], line_policy="interp"))
    # record borders as one glyph (a Span each would make 20,000 contigs quadratic to build)
    xs, ys = border_positions(layout.roff, 10 * MAX_BORDERS), border_positions(np.sort(layout.qoff), 10 * MAX_BORDERS)
    if xs.size or ys.size:
        fig.segment(np.concatenate((xs, np.zeros(ys.size))), np.concatenate((np.zeros(xs.size), ys)),
                    np.concatenate((xs, np.full(ys.size, float(layout.width)))),
                    np.concatenate((np.full(xs.size, float(layout.height)), ys)), line_color="#cccccc", line_width=1,
                    level="underlay")
    fig.xaxis.formatter = fig.yaxis.formatter = NumeralTickFormatter(format="0,0")
    # names where they fit, as in the PNG (12 pixels apart)
    if len(rnames) > 1:
        shown = shown_labels(layout.roff, layout.rlens, width, 14)
        centres = layout.roff + layout.rlens / 2
        fig.xaxis.ticker = FixedTicker(ticks=[float(centres[i]) for i in shown])
        fig.xaxis.major_label_overrides = {float(centres[i]): str(rshort[i]) for i in shown}
        fig.xaxis.major_label_orientation = 1.2
        fig.xaxis.major_label_policy = AllLabels()  # shown_labels spaced them (Bokeh's own policy dropped them)
    if len(qnames) > 1:
        shown = shown_labels(layout.qoff, layout.qlens, height, 12)
        centres = layout.qoff + layout.qlens / 2
        fig.yaxis.ticker = FixedTicker(ticks=[float(centres[i]) for i in shown])
        fig.yaxis.major_label_overrides = {float(centres[i]): str(qshort[i]) + (" (-)" if layout.flip[i] else "")
                                           for i in shown}
        fig.yaxis.major_label_policy = AllLabels()
    page = row(fig, colour_key(low, high), sizing_mode="stretch_both")
    html = _stable_ids(file_html(page, INLINE, title=f"{qgenome} vs {rgenome}"),
                       [qgenome, rgenome, *qnames, *rnames])
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(html)

