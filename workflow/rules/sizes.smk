# What follows from the genomes' sizes (gpu_kernels/workflow/sizing.py) and sketches (estimate.py): each
# pair's parameters (fast mode under engine.fast auto), the disk check before the first job, each
# pair's outputs' estimated sizes (printed by a dry run and at the start), and by them which pairs
# write their HSP table and texts and every chain under outputs.hsps auto.
import dataclasses
import functools

from gpu_kernels.workflow.estimate import (
    Widths,
    estimate_params,
    output_bytes,
    size_table,
)
from gpu_kernels.workflow.sizing import (
    disk_need,
    disk_problem,
    fast_choice,
    fast_line,
    fits,
    free_bytes,
    repeat_bound,
)
from gpu_kernels.workflow.sketch import load_sketch

# the HSP texts the outputs ask for (written where hsps_fit says)
HSP_TEXTS = [kind for kind in TEXT_KINDS if OUT[kind]]


@functools.lru_cache(maxsize=None)
def params_of(set_name, query, reference):
    """A genome pair's parameters: its set's, in fast mode where `engine.fast: auto` chooses it for the
    pair's size or its repeat content (sizing.fast_choice, from the pair's estimate at the set's own
    word-frequency cap); a line says so where the repeat content chose it."""
    chosen, counts = fast_choice(
        PARAMS[set_name],
        SETS[set_name],
        (genome_bases(query), genome_bases(reference)),
        lambda: estimate_with(set_name, query, reference, PARAMS[set_name]),
    )
    if chosen != PARAMS[set_name] and repeat_bound(counts) and workflow.is_main_process:
        line = fast_line(chosen, counts, "max_freq", "engine.fast: false")
        print(f"{set_name}/{query}_vs_{reference}: {line}", file=sys.stderr)
    return chosen


@functools.lru_cache(maxsize=None)
def sketch_of(genome):
    """A genome's sketch (the scan's), read once; None for a read set."""
    return load_sketch(path("sketch", genome=genome))


@functools.lru_cache(maxsize=None)
def estimate_with(set_name, query, reference, params):
    """A genome pair's counts (estimate.estimate_params) from its genomes' sketches under these
    parameters, made once; None where a genome has none (a read set)."""
    sketches = [sketch_of(g) for g in (query, reference)]
    if None in sketches:
        return None
    return estimate_params(
        *sketches, (genome_bases(query), genome_bases(reference)), params
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


@functools.lru_cache(maxsize=None)
def pair_estimate(set_name, query, reference):
    """(counts, widths) of a genome pair (estimate.py), from its genomes' sketches; None where a genome
    has none (a read set)."""
    counts = estimate_with(
        set_name, query, reference, params_of(set_name, query, reference)
    )
    if counts is None:
        return None
    gz = [str(config["genomes"][g]).endswith(".gz") for g in (query, reference)]
    copies = sum(genome_bases(g) for g, z in zip((query, reference), gz) if z)
    return counts, Widths.of(CHROMOSOMES[query], CHROMOSOMES[reference], copies)


def estimated_bytes(set_name, query, reference, kinds, all_chains=True, copies=True):
    """The estimated bytes of a pair's outputs of these kinds (estimate.output_bytes), or None. copies:
    with the plain FASTA copies a delta writes beside itself for a gzipped genome (a genome's size, not
    what outputs.auto_share weighs)."""
    made = pair_estimate(set_name, query, reference)
    if made is None:
        return None
    counts, widths = made
    widths = widths if copies else dataclasses.replace(widths, copies=0)
    plots = min(counts.record_pairs, OUT["max_pair_dotplots"])
    return output_bytes(
        counts, widths, kinds, all_chains, plots, len(OUT["figure_formats"])
    )


def weighs_little(set_name, query, reference, kinds):
    """Whether a pair writes its outputs of these kinds that outputs.hsps governs (the HSP table and
    texts, every chain): its compare jobs keep every HSP (all_hsps) and, under outputs.hsps auto,
    their estimated size (from the genomes' sketches, before any job runs; a delta's FASTA copies
    left out) is at most outputs.auto_share bytes a base of the pair (sizing.fits). A read set has no
    sketch: not under auto."""
    if not all_hsps(set_name, query, reference):
        return False
    if OUT["hsps"] is True:
        return True
    sizes = estimated_bytes(set_name, query, reference, kinds, copies=False)
    bases = genome_bases(query) + genome_bases(reference)
    return sizes is not None and fits(sum(sizes.values()), bases, OUT["auto_share"])


def hsps_fit(set_name, query, reference, kinds):
    """Whether a pair's HSP outputs of these kinds (the table `hsps`, its texts) are written."""
    return weighs_little(set_name, query, reference, kinds)


def every_chain(set_name, query, reference):
    """Whether a pair's chains' outputs hold every chain (else the backbone's)."""
    return weighs_little(set_name, query, reference, CHAIN_KINDS)


def written_kinds(set_name, query, reference):
    """The output kinds a pair writes (the config's outputs, the HSP ones where hsps_fit says)."""
    kinds = [k for k in CHAIN_KINDS + tuple(ALIGN_KINDS) if OUT[k]]
    if hsp_table_written(set_name, query, reference):
        kinds.append("hsps")
        if HSP_TEXTS and hsps_fit(set_name, query, reference, HSP_TEXTS):
            kinds += HSP_TEXTS
    kinds += [
        "coverage_pairs",
        "coverage_query",
        "coverage_reference",
        "coverage_genomes",
    ]
    kinds += [k for k in PICTURE_KINDS if OUT.get(k)]
    return kinds


def size_lines():
    """The table a run and a dry run print as they build the job graph: each pair's outputs' estimated
    size a family and in all, beside the pair's bases (estimate.size_table)."""
    rows = []
    for s in SETS:
        for q, r in PAIRS if PARAMS[s].matching.mode == "hsp" else []:
            sizes = estimated_bytes(
                s, q, r, written_kinds(s, q, r), every_chain(s, q, r)
            )
            if sizes is not None:
                rows.append(
                    (f"{s}/{q}_vs_{r}", sizes, genome_bases(q) + genome_bases(r))
                )
    table = size_table(rows)
    if not table:
        return []
    return [
        "estimated outputs, from the genomes' sketches (under outputs.hsps auto a pair's HSP texts and "
        f"every chain are written where they weigh at most outputs.auto_share = {OUT['auto_share']:g} bytes a "
        "base):"
    ] + table


@functools.lru_cache(maxsize=None)
def print_sizes():
    """size_lines, on standard error, once (by the main process: a cluster's jobs do not)."""
    if workflow.is_main_process:
        for line in size_lines():
            print(line, file=sys.stderr)


def hsp_table_written(set_name, query, reference):
    """Whether a pair's exhaustive HSP table (hsps.parquet) is written (hsps_fit). Where it is not,
    the coverage tables and dotplots read its compare jobs' tables."""
    return hsps_fit(set_name, query, reference, ["hsps"])


def hsp_targets():
    """Input function of the all rule. The HSP tables and texts of the pairs that write them
    (hsps_fit; the texts need the table, which weighs less). Prints the outputs' estimates first
    (print_sizes): the graph of every run and dry run is built through here."""
    print_sizes()
    return [
        path(kind, set=s, query=q, reference=r)
        for s in SETS
        for q, r in PAIRS
        if hsp_table_written(s, q, r)
        for kind in ["hsps"]
        + (HSP_TEXTS if HSP_TEXTS and hsps_fit(s, q, r, HSP_TEXTS) else [])
    ]
