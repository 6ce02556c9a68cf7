# Coverage tables: union of HSP query intervals per chromosome pair and per query chromosome.


rule coverage:
    input:
        hsps=path("hsps"),
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        pairs=report(path("coverage_pairs"), category="Coverage", caption="../report/coverage.rst"),
        query=report(path("coverage_query"), category="Coverage", caption="../report/coverage.rst"),
    params:
        backend=BACKEND,
    resources:
        gpu=1 if BACKEND == "cupy" else 0,
    conda:
        "../envs/engine.yaml"
    log:
        log_path("coverage", "set", "query", "reference"),
    benchmark:
        log_path("coverage", "set", "query", "reference", kind="benchmark"),
    script:
        "../scripts/coverage.py"
