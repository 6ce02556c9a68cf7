# Compare: one job per bin pair of a genome pair and parameter set (a bin is one chromosome, or many small contigs).


rule compare:
    input:
        qcodes=path("codes", genome="{query}"),
        qtable=path("chromosomes", genome="{query}"),
        rcodes=path("codes", genome="{reference}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        hsps=path("bin_hsps"),
        stats=path("bin_stats"),
    params:
        engine=lambda wc: PARAMS[wc.set].as_dict(),
        backend=BACKEND,
    threads: 2  # the CPU stages' threads (words, seeds, extension); Snakemake lowers it to --cores
    resources:
        gpu=1 if BACKEND == "cupy" else 0,
    conda:
        "../envs/engine.yaml"
    log:
        log_path("compare", "set", "query", "reference", "qbin", "rbin"),
    benchmark:
        log_path("compare", "set", "query", "reference", "qbin", "rbin", kind="benchmark"),
    script:
        "../scripts/compare.py"
