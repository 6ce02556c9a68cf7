# Summary: one row per parameter set and genome pair (the sweep summary), as a table and a plot.


rule summary:
    input:
        stats=[
            path("stats", set=s, query=q, reference=r) for s in SETS for q, r in PAIRS
        ],
        coverage=[
            path("coverage_genomes", set=s, query=q, reference=r)
            for s in SETS
            for q, r in PAIRS
        ],
    output:
        tsv=report(
            path("summary_tsv"),
            category="Summary",
            caption="../report/summary.rst",
            labels={"output": "table"},
        ),
        png=report(
            path("summary_png"),
            category="Summary",
            caption="../report/summary.rst",
            labels={"output": "plot"},
        ),
    log:
        log_path(SUMMARY),
    benchmark:
        log_path(SUMMARY, kind="benchmark")
    conda:
        "../envs/engine.yaml"
    params:
        runs=[
            {
                "set": s,
                "query": q,
                "reference": r,
                "params": params_of(s, q, r).as_dict(),
            }
            for s in SETS
            for q, r in PAIRS
        ],
    script:
        "../scripts/summary.py"
