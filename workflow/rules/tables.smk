# Coverage tables of both genomes: unions of HSP intervals per chromosome pair, per chromosome, per genome.
# The pass over the HSPs runs beside the pair's assembly (it needs none of it), and beside it the
# dotplots' layout along the pair's backbone is chosen from the compare jobs' parts (as assemble
# chooses it), so the dots are gathered before the assembly ends; the tables add the backbone's and
# the alignments' coverage once those are made, and the pictures read the same numbers.


rule hsp_coverage:
    input:
        hsps=dots_table,
        parts=compare_outputs if OUT["chains_table"] else [],
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        coverage=temp(path("hsp_coverage")),
        layout=temp(path("dots_layout")),
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
        engine=pair_engine,
        all_chains=lambda wc: all_hsps(wc.set, wc.query, wc.reference),
        # the parts whose backbone orders the dotplots (none: they order by the HSPs, or file order)
        parts=lambda wc: (
            [part_prefix(p) for p in group_paths("bin_hsps", wc)]
            if OUT["chains_table"] and OUT["dotplot_order"] == "reference"
            else []
        ),
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
