# Merge: the bin pairs of a genome pair into one HSP table, PAF, GECKO CSV and a stats table.


rule merge:
    input:
        hsps=bin_outputs("bin_hsps"),
        stats=bin_outputs("bin_stats"),
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        hsps=path("hsps"),
        stats=report(path("stats"), caption="../report/stats.rst", **pair_category("Job statistics", "compare jobs")),
        paf=path("paf") if OUT["paf"] else [],
        csv=path("gecko_csv") if OUT["gecko_csv"] else [],
    params:
        engine=lambda wc: PARAMS[wc.set].as_dict(),
    conda:
        "../envs/engine.yaml"
    log:
        log_path("merge", "set", "query", "reference"),
    benchmark:
        log_path("merge", "set", "query", "reference", kind="benchmark"),
    script:
        "../scripts/merge.py"


rule mummer_text:
    input:
        hsps=path("hsps"),
        qtable=path("chromosomes", genome="{query}"),
        rtable=path("chromosomes", genome="{reference}"),
    output:
        path("mummer"),
    conda:
        "../envs/engine.yaml"
    log:
        log_path("mummer_text", "set", "query", "reference"),
    benchmark:
        log_path("mummer_text", "set", "query", "reference", kind="benchmark"),
    script:
        "../scripts/mummer_text.py"
