# Merge: the bin pairs of a genome pair into one HSP table (every HSP, or those in chains: outputs.hsps)
# and a stats table; then its text formats
# (PAF, GECKO CSV, MUMmer delta: those outputs.<kind> asks for), beside the chains and coverage rules.


rule merge:
    input:
        groups=compare_outputs,
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        hsps=path("hsp_table"),
    log:
        log_path("merge", "set", "query", "reference", "hsptable"),
    benchmark:
        log_path("merge", "set", "query", "reference", "hsptable", kind="benchmark")
    wildcard_constraints:
        hsptable="hsps|chained_hsps",
    conda:
        "../envs/engine.yaml"
    params:
        fasta=lambda wc: {
            "query_fasta": config["genomes"][wc.query],
            "reference_fasta": config["genomes"][wc.reference],
        },
        engine=pair_engine,
        hsps=lambda wc: group_paths("bin_hsps", wc),
        stats=lambda wc: group_paths("bin_stats", wc),
    script:
        "../scripts/merge.py"


rule stats:
    input:
        groups=compare_outputs,
    output:
        stats=report(
            path("stats"),
            caption="../report/stats.rst",
            **pair_category("Job statistics", "compare jobs"),
        ),
    log:
        log_path("stats", "set", "query", "reference"),
    conda:
        "../envs/engine.yaml"
    params:
        stats=lambda wc: group_paths("bin_stats", wc),
    script:
        "../scripts/stats.py"


rule texts:
    input:
        hsps=path("hsps"),
    output:
        **{kind: path(kind) for kind in TEXT_KINDS if OUT[kind]},
    log:
        log_path("texts", "set", "query", "reference"),
    benchmark:
        log_path("texts", "set", "query", "reference", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    threads: 8  # the rows are printed on threads and written at their places by several more
    script:
        "../scripts/texts.py"


rule mummer_text:
    input:
        hsps=path("hsps"),
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        path("mummer"),
    log:
        log_path("mummer_text", "set", "query", "reference"),
    benchmark:
        log_path("mummer_text", "set", "query", "reference", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    script:
        "../scripts/mummer_text.py"
