# Chains: a genome pair's HSPs chained, the one-to-one backbone kept; PAF, UCSC chain and Parquet.


rule chains:
    input:
        hsps=path("hsps"),
    output:
        **{kind: path(kind) for kind in CHAIN_KINDS if OUT[kind]},
    conda:
        "../envs/engine.yaml"
    log:
        log_path("chains", "set", "query", "reference"),
    benchmark:
        log_path("chains", "set", "query", "reference", kind="benchmark"),
    script:
        "../scripts/chains.py"
