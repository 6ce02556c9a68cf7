# Many genomes (comparisons.many): a job a genome, aligning its pairs with the genomes listed before
# it (its row) one after another in one process (gpu_kernels/workflow/many.py); then the set's ANI
# table, pyANI's matrices and the clustered heatmap. Adding a genome at the end of the list adds one
# row and leaves the finished rows as they were.

ROWS = rows_of(list(config["genomes"]), PAIRS)


def row_outputs(set_name, pairs):
    """[query, reference, {write kind: path}] of each pair of a row: the outputs it asks for."""
    return [
        [
            q,
            r,
            {
                MANY_KINDS[kind]: path(kind, set=set_name, query=q, reference=r)
                for kind in MANY_KINDS
                if OUT[kind]
            },
        ]
        for q, r in pairs
    ]


for _set in SETS:
    for _number, (_genome, _pairs) in enumerate(ROWS.items()):
        if not _pairs:
            continue
        _members = sorted(
            {g for pair in _pairs for g in pair}, key=list(config["genomes"]).index
        )

        rule:
            name:
                f"row_{_set}_{_number + 1}"
            input:
                codes=[path("codes", genome=g) for g in _members],
                tables=[path("chromosomes", genome=g) for g in _members],
            output:
                rows=path("ani_row", set=_set, genome=_genome),
                pairs=[
                    p
                    for _, _, paths in row_outputs(_set, _pairs)
                    for p in paths.values()
                ],
            log:
                path("log", name=f"row/{_set}/{_genome}"),
            benchmark:
                path("benchmark", name=f"row/{_set}/{_genome}")
            conda:
                "../envs/engine.yaml"
            threads: 2  # each pair's placement, alignments and texts (the device takes a pair at a time, turns.py)
            resources:
                gpu=1 if BACKEND == "cupy" else 0,
            params:
                engine=PARAMS[_set].as_dict(),
                backend=BACKEND,
                genomes=_members,
                pairs=row_outputs(_set, _pairs),
                fasta={g: os.path.abspath(config["genomes"][g]) for g in _members},
                sam_seq=OUT["sam_seq"],
            script:
                "../scripts/many.py"


rule ani:
    input:
        rows=lambda wc: [
            path("ani_row", set=wc.set, genome=g) for g, pairs in ROWS.items() if pairs
        ],
    output:
        ani=path("ani"),
        matrices=[path("ani_matrix", matrix=m) for m in MATRICES],
        heatmap=path("ani_heatmap"),
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
