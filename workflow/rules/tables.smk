# Coverage tables of both genomes: unions of HSP intervals per chromosome pair, per chromosome, per genome.
# Each compare job keeps its share of them and of the pictures' dots (shares.py) from its HSPs while they
# are on the device, so no HSP table is read here: the shares are merged beside the dotplots' layout
# along the pair's backbone, chosen from the compare jobs' parts as assemble chooses it, before the
# assembly ends; the tables add the backbone's and the alignments' coverage once those are made, and
# the pictures read the same numbers.


rule hsp_coverage:
    input:
        parts=compare_outputs,
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        coverage=temp(path("hsp_coverage")),
        dots=temp(path("dots")),
    log:
        log_path("hsp_coverage", "set", "query", "reference"),
    benchmark:
        log_path("hsp_coverage", "set", "query", "reference", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    # the parts' reading threads and the layout's gathers
    threads: 4
    params:
        shares=lambda wc: group_paths("bin_shares", wc),
        engine=pair_engine,
        all_chains=lambda wc: all_hsps(wc.set, wc.query, wc.reference),
        # the parts whose backbone orders the dotplots (none: they order by the HSPs, or file order)
        parts=lambda wc: (
            [part_prefix(p) for p in group_paths("bin_hsps", wc)]
            if OUT["chains_table"] and OUT["dotplot_order"] == "reference"
            else []
        ),
        order=OUT["dotplot_order"],
        share=SHARE,
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
