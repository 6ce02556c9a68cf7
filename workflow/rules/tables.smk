# Coverage tables of both genomes: unions of HSP intervals per chromosome pair, per chromosome, per genome.


rule coverage:
    input:
        hsps=dots_table,
        chains=path("chains_table") if OUT["chains_table"] else [],
        # the one-to-one alignments' numbers (the assembled pair's), not their texts
        alignments=path("assembled") if OUT["alignments_table"] else [],
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        pairs=report(
            path("coverage_pairs"),
            caption="../report/coverage.rst",
            **pair_category("Coverage", "per chromosome pair"),
        ),
        query=report(
            path("coverage_query"),
            caption="../report/coverage.rst",
            **pair_category("Coverage", "per query chromosome"),
        ),
        reference=report(
            path("coverage_reference"),
            caption="../report/coverage.rst",
            **pair_category("Coverage", "per reference chromosome"),
        ),
        genomes=report(
            path("coverage_genomes"),
            caption="../report/coverage.rst",
            **pair_category("Coverage", "per genome"),
        ),
    log:
        log_path("coverage", "set", "query", "reference"),
    benchmark:
        log_path("coverage", "set", "query", "reference", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    threads: 8  # the table's reading threads, each copying its row groups into page-locked memory for the GPU
    resources:
        gpu=1 if BACKEND == "cupy" else 0,
    params:
        hsps=dots_tables,
        backend=BACKEND,
    script:
        "../scripts/coverage.py"
