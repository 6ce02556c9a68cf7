# Many genomes (comparisons.many): a job a genome, aligning its pairs with the genomes listed before
# it (its row) one after another in one process (gpu_kernels/workflow/many.py), into the row's
# folder (a pair's outputs in QUERY_vs_REFERENCE/ there, and the row's ANI rows); then the set's ANI
# table, pyANI's matrices and the clustered heatmap. Adding a genome at the end of the list adds one
# row and leaves the finished rows as they were. A row is one output (its folder), so that Snakemake
# plans 1,000 genomes' half a million pairs as 1,000 jobs.

for _set, _params in PARAMS.items():
    if _params.matching.mode != "hsp":
        fail(
            f"comparisons.many aligns genome pairs (engine.mode hsp); set {_set} asks for "
            f"engine.mode {_params.matching.mode}: compare exact matches without comparisons.many"
        )

ROWS = {
    g: pairs for g, pairs in rows_of(list(config["genomes"]), PAIRS).items() if pairs
}


_ORDER = {g: i for i, g in enumerate(config["genomes"])}
# the genomes of each row's pairs, in the list's order
MEMBERS = {
    row: sorted({g for pair in pairs for g in pair}, key=_ORDER.__getitem__)
    for row, pairs in ROWS.items()
}


# What each row, and the set's ANI table, hold: a digest of their genomes' names and contents (the scan's)
# and pairs, written again where it changes (a params trigger), so that a genome replaced, inserted,
# removed or renamed reruns exactly the rows whose members it changes, and the set's table. (A row's own
# params cannot do it: the index list's job, rerun whenever the list changes, hides its dependents'
# reasons from Snakemake, and they reach it through ancient().)
rule row_members:
    output:
        path("row_members"),
    log:
        log_path("row_members", "set", "genome"),
    localrule: True
    conda:
        "../envs/engine.yaml"
    params:
        digest=lambda wc: members_digest(ROWS[wc.genome], MEMBERS[wc.genome], DIGESTS),
    shell:
        "echo {params.digest} > {output} 2> {log}"


rule set_members:
    output:
        path("set_members"),
    log:
        log_path("set_members", "set"),
    localrule: True
    conda:
        "../envs/engine.yaml"
    params:
        digest=members_digest(PAIRS, list(config["genomes"]), DIGESTS),
    shell:
        "echo {params.digest} > {output} 2> {log}"


# Every genome's index files listed once: a row reads its genomes' files through this list, so that
# it names two inputs rather than two a genome (a million at 1,000 genomes, which took Snakemake
# minutes to plan). The list is rewritten when a genome is added: ancient(), so that this leaves the
# finished rows as they were (a row's own genome's files still rerun it when they change).
rule index_list:
    input:
        codes=[path("codes", genome=g) for g in config["genomes"]],
        tables=[path("chromosomes", genome=g) for g in config["genomes"]],
        screens=[path("screen", genome=g) for g in config["genomes"]],
    output:
        path("index_list"),
    log:
        log_path("index_list"),
    conda:
        "../envs/engine.yaml"
    params:
        genomes=list(config["genomes"]),
    # a script, not a run: block, which Snakemake runs by parsing the whole workflow again (12 s of a
    # 2-core run of ten genomes)
    script:
        "../scripts/index_list.py"


rule row:
    input:
        codes=path("codes"),
        table=path("chromosomes"),
        index_list=ancient(path("index_list")),
        members=path("row_members"),
    output:
        directory(path("row")),
    log:
        log_path("row", "set", "genome"),
    benchmark:
        log_path("row", "set", "genome", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    # each pair's placement, alignments and texts beside the next pair's turn on the device (turns.py);
    # on the CPU a row's compare takes its threads too, and one thread a row where the rows outnumber
    # half the cores keeps every core on a row (ten genomes on 2 cores: 26 s against 30 s)
    threads: row_threads
    resources:
        gpu=1 if BACKEND == "cupy" else 0,
    params:
        engine=lambda wc: PARAMS[wc.set].as_dict(),
        backend=BACKEND,
        genomes=lambda wc: MEMBERS[wc.genome],
        pairs=lambda wc: ROWS[wc.genome],
        kinds={MANY_KINDS[kind]: PAIR_OUTPUTS[kind] for kind in MANY_KINDS if OUT[kind]},
        fasta=lambda wc: {
            g: os.path.abspath(config["genomes"][g]) for g in MEMBERS[wc.genome]
        },
        sam_seq=OUT["sam_seq"],
        snps_min_ani=OUT["snps_min_ani"],
        screen=config["comparisons"]["screen"],
    script:
        "../scripts/many.py"


rule ani:
    input:
        rows=lambda wc: [path("row", set=wc.set, genome=g) for g in ROWS],
        members=path("set_members"),
    output:
        ani=report(
            path("ani"),
            category="ANI",
            caption="../report/ani.rst",
            labels={"output": "table"},
        ),
        matrices=[path("ani_matrix", matrix=m) for m in MATRICES],
        heatmap=report(
            path("ani_heatmap"),
            category="ANI",
            caption="../report/ani.rst",
            labels={"output": "heatmap"},
        ),
    log:
        log_path("ani", "set"),
    benchmark:
        log_path("ani", "set", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    params:
        genomes=list(config["genomes"]),
        formats=[f for f in OUT["figure_formats"] if f != "png"],
    script:
        "../scripts/ani.py"
