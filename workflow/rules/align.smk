# Alignments: a genome pair's chains and gapped alignments assembled from its compare jobs' parts
# (the homology pipeline's: gpu_kernels/pipeline.py); the one-to-one backbone is chosen over the whole
# pair here. Windows of both genomes' codes are read only where a backbone chain was aligned by no part. The
# alignments' texts are written by a job of their own, beside the coverage tables and dotplots, which
# read the alignments' numbers alone.


rule assemble:
    input:
        groups=compare_outputs,
        qcodes=path("codes", genome="{query}"),
        qtable=path("chromosomes", genome="{query}"),
        rcodes=path("codes", genome="{reference}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        **{kind: path(kind) for kind in CHAIN_KINDS if OUT[kind]},
        # the alignments' numbers and where their texts are: removed once its readers are done
        assembled=temp(directory(path("assembled"))),
    log:
        log_path("assemble", "set", "query", "reference"),
    benchmark:
        log_path("assemble", "set", "query", "reference", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    # the parts read on threads (it keeps about one and a half cores busy): four, so that it starts
    # as the compare jobs end, beside the last texts' jobs and the coverage tables' HSP pass
    threads: 4
    params:
        engine=pair_engine,
        fasta=lambda wc: {
            "query_fasta": config["genomes"][wc.query],
            "reference_fasta": config["genomes"][wc.reference],
        },
        stats=lambda wc: group_paths("bin_stats", wc),
        all_chains=lambda wc: all_hsps(wc.set, wc.query, wc.reference),
        # under hsps auto, every chain in the outputs only where they weigh little (every_chain), and
        # where the chains found do (their share)
        write_all=lambda wc: every_chain(wc.set, wc.query, wc.reference),
        chains_share=None if OUT["hsps"] is True else OUT["auto_share"],
        parts=lambda wc: [part_prefix(p) for p in group_paths("bin_hsps", wc)],
        texts=texts_of(ALIGN_KINDS[kind] for kind in ALIGN_KINDS if OUT[kind]),
    script:
        "../scripts/assemble.py"


rule alignments:
    input:
        assembled=path("assembled"),
        texts=lambda wc: group_paths("bin_texts", wc),
        qcodes=path("codes", genome="{query}"),
        qtable=path("chromosomes", genome="{query}"),
        rcodes=path("codes", genome="{reference}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        **{kind: path(kind) for kind in ALIGN_KINDS if OUT[kind]},
    log:
        log_path("alignments", "set", "query", "reference"),
    benchmark:
        log_path("alignments", "set", "query", "reference", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    threads: 8  # the texts are read and printed on threads
    # the compare jobs' texts are removed once this job holds every kind its outputs need, before the
    # largest (the SNPs) is written; --notemp keeps them. A resource, not a param: a param would rerun
    # finished pairs, compare jobs and all, whenever the flag changed
    resources:
        keep_texts=int(workflow.storage_settings.notemp),
    params:  # what the tables' metadata and the delta's header say: the assembled pair's (assemble's)
        engine=pair_engine,
        fasta=lambda wc: {
            "query_fasta": config["genomes"][wc.query],
            "reference_fasta": config["genomes"][wc.reference],
        },
        sam_seq=OUT["sam_seq"],
    script:
        "../scripts/alignments.py"
