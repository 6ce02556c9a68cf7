# Chains: a genome pair's HSPs chained, the one-to-one backbone kept; PAF, UCSC chain and Parquet.
# Both genomes' codes: the chains' blocks are placed on the sequences, and the chains' gapped alignments
# are made here too (they need the chains the rule holds).


rule chains:
    input:
        qcodes=path("codes", genome="{query}"),
        qtable=path("chromosomes", genome="{query}"),
        rcodes=path("codes", genome="{reference}"),
        rtable=path("chromosomes", genome="{reference}"),
        hsps=path("hsps"),
    output:
        **{kind: path(kind) for kind in (*CHAIN_KINDS, *ALIGN_KINDS) if OUT[kind]},
    log:
        log_path("chains", "set", "query", "reference"),
    benchmark:
        log_path("chains", "set", "query", "reference", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    threads: 4  # the host's part: reading the table, the chains' blocks and backbone
    resources:
        gpu=1 if BACKEND == "cupy" else 0,
    params:
        backend=BACKEND,
    script:
        "../scripts/chains.py"
