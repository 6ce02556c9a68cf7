# Alignments: a genome pair's chains and gapped alignments assembled from its compare jobs' parts
# (the homology pipeline's: gpu_kernels/pipeline.py); the one-to-one backbone is chosen over the whole
# pair here. Both genomes' codes are read only where a backbone chain was aligned by no part.


rule alignments:
    input:
        groups=compare_outputs,
        texts=lambda wc: group_paths("bin_texts", wc),
        qcodes=path("codes", genome="{query}"),
        qtable=path("chromosomes", genome="{query}"),
        rcodes=path("codes", genome="{reference}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        **{kind: path(kind) for kind in (*CHAIN_KINDS, *ALIGN_KINDS) if OUT[kind]},
    log:
        log_path("alignments", "set", "query", "reference"),
    benchmark:
        log_path("alignments", "set", "query", "reference", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    threads: 8  # the texts are printed on threads
    params:
        engine=lambda wc: PARAMS[wc.set].as_dict(),
        fasta=lambda wc: {
            "query_fasta": config["genomes"][wc.query],
            "reference_fasta": config["genomes"][wc.reference],
        },
        stats=lambda wc: group_paths("bin_stats", wc),
        all_chains=lambda wc: all_hsps(wc.set, wc.query, wc.reference),
        parts=lambda wc: [part_prefix(p) for p in group_paths("bin_hsps", wc)],
    script:
        "../scripts/alignments.py"
