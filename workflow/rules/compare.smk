# Compare: one job per query bin and group of reference bins (by default the whole reference genome,
# up to bins.group_size bases), compared at once through the homology pipeline: CuPy started, kernels
# loaded and the query bin read once. A bin is one chromosome, or many small contigs.


rule compare:
    input:
        qcodes=path("codes", genome="{query}"),
        qtable=path("chromosomes", genome="{query}"),
        rcodes=path("codes", genome="{reference}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        part=temp(directory(path("bin_group"))),  # a job's part: removed once the pair's rules have read it
        # what its texts are made of: removed once its texts' job has read it (GBs on human-sized
        # genomes, which would otherwise all go at the run's end)
        text_parts=temp(path("bin_text_parts")),
    log:
        log_path("compare", "set", "query", "reference", "qbin", "rgroup"),
    benchmark:
        log_path(
            "compare", "set", "query", "reference", "qbin", "rgroup", kind="benchmark"
        )
    conda:
        "../envs/engine.yaml"
    # the CPU stages' threads (words, seeds, extension; on a GPU, the backbone and the alignments' ends):
    # fewer each where jobs share a GPU, so that they and the texts' jobs fit beside each other
    threads: compare_threads(BACKEND, config["jobs_per_gpu"])
    resources:
        gpu=1 if BACKEND == "cupy" else 0,
    params:
        engine=pair_engine,
        backend=BACKEND,
        rbins=lambda wc: reference_groups(wc.set, wc.reference)[wc.rgroup],
        hsps=lambda wc: path("bin_hsps", **wc),
        stats=lambda wc: path("bin_stats", **wc),
        all_hsps=lambda wc: all_hsps(wc.set, wc.query, wc.reference),
        pieces=lambda wc: all_hsps(wc.set, wc.query, wc.reference)
        and any(OUT[kind] for kind in CHAIN_KINDS),
        write_hsps=hsps_kept,
        share=SHARE,
    script:
        "../scripts/compare.py"


# The texts of a compare job's alignments (CIGAR, cs, delta, SNPs: those the outputs ask for), made on
# the CPU from what the job kept while the GPU takes the next compare job.


rule part_texts:
    input:
        group=path("bin_group"),
        text_parts=path("bin_text_parts"),
        qcodes=path("codes", genome="{query}"),
        qtable=path("chromosomes", genome="{query}"),
        rcodes=path("codes", genome="{reference}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        temp(path("bin_texts")),
    log:
        log_path("part_texts", "set", "query", "reference", "qbin", "rgroup"),
    benchmark:
        log_path(
            "part_texts",
            "set",
            "query",
            "reference",
            "qbin",
            "rgroup",
            kind="benchmark",
        )
    conda:
        "../envs/engine.yaml"
    threads: PART_TEXTS_THREADS
    params:
        kinds=texts_of(ALIGN_KINDS[kind] for kind in ALIGN_KINDS if OUT[kind]),
        rbins=lambda wc: reference_groups(wc.set, wc.reference)[wc.rgroup],
    script:
        "../scripts/part_texts.py"
