# Plots: the genome grid dotplot (PNG and interactive HTML), the coverage heatmap, and dotplots of the
# most covered chromosome pairs. Their dots are merged from the compare jobs' shares while the pair is
# assembled (hsp_coverage), placed along the pair's backbone (the chains table's) and drawn with the
# chains and alignments once those are made.


rule plots:
    input:
        dots=path("dots"),
        coverage=path("hsp_coverage"),  # the coverage tables' HSP pass: the heatmap
        chains=path("chains_table") if OUT["chains_table"] else [],
        # the one-to-one alignments' numbers (the assembled pair's), not their texts
        alignments=path("assembled") if OUT["alignments_table"] else [],
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        grid=(
            report(
                path("grid_dotplot"),
                caption="../report/grid.rst",
                **pair_category("Dotplots", "genome dotplot (PNG)"),
            )
            if OUT["grid_dotplot"]
            else []
        ),
        html=(
            report(
                path("html_dotplot"),
                caption="../report/html.rst",
                **pair_category("Dotplots", "interactive dotplot (HTML)"),
            )
            if OUT["html_dotplot"]
            else []
        ),
        heatmap=(
            report(
                path("coverage_heatmap"),
                caption="../report/heatmap.rst",
                **pair_category("Coverage", "coverage heatmap"),
            )
            if OUT["coverage_heatmap"]
            else []
        ),
        pairs=(
            report(
                directory(path("pair_dotplots")),
                patterns=["{name}.png"],
                caption="../report/pairs.rst",
                **pair_category("Chromosome pairs", "{name}"),
            )
            if OUT["pair_dotplots"]
            else []
        ),
        figures=[
            path(kind)[: -len("png")] + fmt
            for kind in ("grid_dotplot", "coverage_heatmap")
            if OUT[kind]
            for fmt in OUT["figure_formats"]
            if fmt != "png"
        ],
    log:
        log_path("plots", "set", "query", "reference"),
    benchmark:
        log_path("plots", "set", "query", "reference", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    # drawing processes side by side: half the cores less one, 7 to 15, so that it runs beside the
    # alignments' texts (8) and leaves a core to the coverage tables and the summary, which become
    # ready with it; Snakemake lowers it to --cores
    threads: min(15, max(7, host_cores() // 2 - 1))
    params:
        low=lowest_identity,
        layers=OUT["dotplot_layers"],
        formats=OUT["figure_formats"],
        frame=OUT["pair_dotplot_frame"],
        order=OUT["dotplot_order"],
    script:
        "../scripts/plots.py"
