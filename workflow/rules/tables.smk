# Coverage tables of both genomes: unions of HSP intervals per chromosome pair, per chromosome, per genome.
# The pass over the HSPs runs beside the pair's assembly (it needs none of it); the tables add the
# backbone's and the alignments' coverage once those are made, and the pictures read the same numbers.


rule hsp_coverage:
    input:
        hsps=dots_table,
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        temp(path("hsp_coverage")),
    log:
        log_path("hsp_coverage", "set", "query", "reference"),
    benchmark:
        log_path("hsp_coverage", "set", "query", "reference", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    # the table's reading threads, each copying its row groups into page-locked memory for the GPU: four
    # keep it ahead of assemble, which runs beside it
    threads: 4
    resources:
        gpu=1 if BACKEND == "cupy" else 0,
    params:
        hsps=dots_tables,
        backend=BACKEND,
    script:
        "../scripts/hsp_coverage.py"


rule coverage:
    input:
        hsps=path("hsp_coverage"),
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
    script:
        "../scripts/coverage.py"
