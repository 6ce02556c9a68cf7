# What follows from the genomes' sizes (gpu_kernels/workflow/sizing.py): each pair's parameters (fast
# mode under engine.fast auto), the disk check before the first job, and which pairs write their HSP
# table and texts (the stats checkpoint's HSP counts under outputs.hsps auto).
from gpu_kernels.workflow.sizing import (
    disk_need,
    disk_problem,
    fits,
    free_bytes,
    hsp_outputs_bytes,
    pair_params,
    stats_hsps,
)

# the HSP texts the outputs ask for (written where hsps_fit says)
HSP_TEXTS = [kind for kind in TEXT_KINDS if OUT[kind]]


def params_of(set_name, query, reference):
    """A genome pair's parameters: its set's, in fast mode where `engine.fast: auto` chooses it for the
    pair's size (sizing.pair_params)."""
    return pair_params(
        PARAMS[set_name],
        SETS[set_name],
        genome_bases(query),
        genome_bases(reference),
    )


def pair_engine(wc):
    """Params function: the job's genome pair's parameters, by their flat names."""
    return params_of(wc.set, wc.query, wc.reference).as_dict()


def disk_check():
    """One line and a stop where the run's estimated disk need (sizing.disk_need: the genomes still to
    encode, the pairs still to compare) exceeds the free space where results go. Many-genomes runs
    write alignments alone and are not checked."""
    if MANY or not config["check_disk"]:
        return
    index = sum(
        genome_bases(g)
        for g in config["genomes"]
        if not os.path.exists(path("codes", genome=g))
    )
    pending = [
        genome_bases(q) + genome_bases(r)
        for s in SETS
        for q, r in PAIRS
        if not os.path.exists(path("stats", set=s, query=q, reference=r))
    ]
    problem = disk_problem(disk_need(index, pending), free_bytes(RESULTS), RESULTS)
    if problem:
        fail(problem)


def hsps_fit(set_name, query, reference, kinds):
    """Whether a pair's HSP outputs of these kinds (sizing.HSP_BYTES: the table `hsps`, its texts) are
    written: its compare jobs keep every HSP (all_hsps) and, under outputs.hsps auto, their size
    estimated from its HSP count (the stats checkpoint's) is at most outputs.auto_share bytes a base
    of the pair (sizing.fits)."""
    if not all_hsps(set_name, query, reference):
        return False
    if OUT["hsps"] is True:
        return True
    stats = checkpoints.stats.get(set=set_name, query=query, reference=reference)
    estimate = hsp_outputs_bytes(stats_hsps(stats.output.stats), kinds)
    bases = genome_bases(query) + genome_bases(reference)
    return fits(estimate, bases, OUT["auto_share"])


def hsp_table_written(set_name, query, reference):
    """Whether a pair's exhaustive HSP table (hsps.parquet) is written (hsps_fit). Where it is not,
    the coverage tables and dotplots read its compare jobs' tables."""
    return hsps_fit(set_name, query, reference, ["hsps"])


def hsp_targets():
    """Input function of the all rule. The HSP tables and texts of the pairs that write them
    (hsps_fit; the texts need the table, which weighs less). A pair whose stats are not made yet
    stops it until they are (Snakemake evaluates it again); every pair's other outputs, its stats
    among them, are the all rule's plain inputs, so that waiting holds no pair's jobs back.
    """
    return [
        path(kind, set=s, query=q, reference=r)
        for s in SETS
        for q, r in PAIRS
        if hsp_table_written(s, q, r)
        for kind in ["hsps"]
        + (HSP_TEXTS if HSP_TEXTS and hsps_fit(s, q, r, HSP_TEXTS) else [])
    ]
