# Plots: the genome grid dotplot, the coverage heatmap, and dotplots of the most covered chromosome pairs.


rule plots:
    input:
        hsps=path("hsps"),
        coverage=path("coverage_pairs"),
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        grid=report(path("grid_dotplot"), category="Dotplots", caption="../report/grid.rst") if OUT["grid_dotplot"] else [],
        heatmap=report(path("coverage_heatmap"), category="Coverage", caption="../report/heatmap.rst") if OUT["coverage_heatmap"] else [],
        pairs=report(directory(path("pair_dotplots")), patterns=["{name}.png"], category="Dotplots",
                     caption="../report/pairs.rst") if OUT["pair_dotplots"] else [],
    params:
        max_pair_dotplots=OUT["max_pair_dotplots"],
    conda:
        "../envs/engine.yaml"
    log:
        log_path("plots", "set", "query", "reference"),
    benchmark:
        log_path("plots", "set", "query", "reference", kind="benchmark"),
    script:
        "../scripts/plots.py"
