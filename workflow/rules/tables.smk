# Coverage tables of both genomes: unions of HSP intervals per chromosome pair, per chromosome, per genome.
# Each compare job keeps its share of them and of the pictures' dots (shares.py) from its HSPs while they
# are on the device, so no HSP table is read here: hsp_coverage merges the shares beside the pair's
# assembly (it needs nothing of it); the tables add the backbone's and the alignments' coverage once
# those are made, and the pictures read the same numbers.


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
    params:
        shares=lambda wc: [share_path(p) for p in group_paths("bin_hsps", wc)],
        max_pair_plots=SHARE["max_pair_plots"],
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
