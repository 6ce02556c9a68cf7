# Configuration, the comparison plan, and the one helper that builds every path.
import os
import sys

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

# workflow.basedir is workflow/ where workflow/Snakefile is run, the repository root where the top-level
# Snakefile (which includes it) is
ROOT = (
    os.path.dirname(workflow.basedir)
    if os.path.basename(workflow.basedir) == "workflow"
    else workflow.basedir
)
sys.path.insert(0, ROOT)

from gpu_kernels.device import gpu_available
from gpu_kernels.workflow.config import (
    check_config_file,
    coerce_overrides,
    comparison_pairs,
    expanded_size_error,
    genome_spellings,
    schema_error,
)
from gpu_kernels.errors import InputError
from gpu_kernels.workflow.genome import Chromosome, bin_name, make_bins, scan_genomes
from gpu_kernels.workflow.outputs import (
    ALIGN_KINDS,
    PAIR_OUTPUTS,
    CHAIN_KINDS,
    PICTURE_KINDS,
    TEMPLATES,
    TEXT_KINDS,
)
from gpu_kernels.pipeline import texts_of
from gpu_kernels.ani import MATRICES
from gpu_kernels.workflow.many import members_digest, rows_of
from gpu_kernels.workflow.jobs import part_prefix, share_path
from gpu_kernels.workflow.report import run_description
from gpu_kernels.workflow.sweep import engine_params, override_set, param_sets
from gpu_kernels.workflow.sizing import (
    MALLOC_TUNABLES,
    PART_TEXTS_THREADS,
    bin_size,
    compare_threads,
)

os.environ.setdefault("GLIBC_TUNABLES", MALLOC_TUNABLES)  # the jobs inherit it


def fail(message):
    """Stop before any job runs, with one line."""
    sys.stderr.write(f"error: {message}\n")
    sys.exit(1)


SCHEMA = os.path.join(ROOT, "config", "schema.yaml")
try:
    for _file in workflow.configfiles:
        check_config_file(_file)
except InputError as error:
    fail(error.line())
if (
    _problem := expanded_size_error(config)
) is not None:  # before anything prints or walks the values
    fail(_problem)
# A genome name YAML reads as a number (`001:`, `0x1F:`) or as null keeps its spelling in the config
# file (genome_spellings); one it reads as a boolean (`yes:`, `on:`) is refused, to be quoted.
if isinstance(config.get("genomes"), dict):
    for _name in config["genomes"]:
        if isinstance(_name, bool):
            fail(
                f"genome name {_name}: YAML reads yes, no, on, off, true and false as booleans; quote the name"
            )
    _SPELLED = genome_spellings(workflow.configfiles)
    _spelled = lambda name: (
        name if isinstance(name, str) else _SPELLED.get(name, str(name))
    )
    config["genomes"] = {
        _spelled(_name): _fasta for _name, _fasta in config["genomes"].items()
    }
    for _pair in (config.get("comparisons") or {}).get("pairs") or []:
        if isinstance(_pair, dict):
            _pair.update(
                {
                    key: _spelled(_pair[key])
                    for key in ("query", "reference")
                    if key in _pair
                }
            )
for _name in config.get("genomes") or {}:
    if "_vs_" in str(_name):
        fail(
            f"genome name '{_name}': '_vs_' separates the two genomes of a pair in result paths; rename it"
        )
coerce_overrides(config, SCHEMA)  # --config 'engine={k: 20}' gives the string '20'
if (_problem := schema_error(config, SCHEMA)) is not None:
    fail(_problem)
# the engine keys the user's config sets, before the schema's defaults fill the rest: a preset's
# values take the place of those not set
_GIVEN_ENGINE = dict(config.get("engine") or {})
validate(config, SCHEMA, set_default=True)

RESULTS = config["results"]
SUMMARY = "summary"  # the summary table's and plot's name (an engine override run names its own)
if not str(RESULTS).strip():
    fail("results: empty; name the output directory (the default is results)")
if "{" in str(RESULTS) or "}" in str(RESULTS):
    fail(
        f"results: {RESULTS!r} holds a brace, which Snakemake reads as a wildcard; name another directory"
    )
if os.path.exists(RESULTS) and not os.path.isdir(RESULTS):
    fail(f"results: {RESULTS} is a file, not a directory; name another")
OUT = config["outputs"]


class _Keep(dict):
    """Leaves placeholders it has no value for, so they stay Snakemake wildcards."""

    def __missing__(self, key):
        return f"{{{key}}}"


def path(kind, **values):
    """The path of an output kind; unfilled placeholders remain wildcards."""
    return TEMPLATES[kind].format_map(_Keep(results=RESULTS, summary=SUMMARY, **values))


def log_path(rule, *wildcards, kind="log"):
    """The log file (or benchmark table, kind="benchmark") of a rule's job, one per wildcard combination."""
    parts = [rule] + [f"{{{w}}}" for w in wildcards]
    return path(kind, name=os.path.join(*parts))


# Genomes: scanned (and cached) before any job runs, so bad input stops the run at once.
for _name, _fasta in config["genomes"].items():
    if not os.path.exists(_fasta):
        fail(f"genome {_name}: {_fasta}: no such file")
if len({os.path.abspath(p) for p in config["genomes"].values()}) < len(
    config["genomes"]
):
    print("warning: two genome names point at the same FASTA file", file=sys.stderr)
try:
    # with each genome's sketch, what the outputs' size estimates read (sizes.smk), in a run of genome
    # pairs; its content digest, what a row depends on, in a many-genomes run
    SCANS = scan_genomes(
        {
            g: (
                fa,
                path("scan", genome=g),
                None if config["comparisons"]["many"] else path("sketch", genome=g),
                bool(config["comparisons"]["many"]),
            )
            for g, fa in config["genomes"].items()
        }
    )
except InputError as error:
    fail(error.line())
CHROMOSOMES = {g: chromosomes for g, (chromosomes, _) in SCANS.items()}
DIGESTS = {g: digest for g, (_, digest) in SCANS.items()}


def genome_bases(genome):
    """A genome's bases, from its scan."""
    return sum(c.length for c in CHROMOSOMES[genome])


BIN_SIZE = {g: bin_size(config["bins"]["size"], genome_bases(g)) for g in CHROMOSOMES}
BIN_MEMBERS = {g: make_bins(c, BIN_SIZE[g]) for g, c in CHROMOSOMES.items()}
BINS = {
    g: [bin_name(i) for i in range(len(members))] for g, members in BIN_MEMBERS.items()
}
BIN_BASES = {
    g: [sum(CHROMOSOMES[g][i].length for i in m) for m in members]
    for g, members in BIN_MEMBERS.items()
}


try:
    PAIRS = comparison_pairs(list(config["genomes"]), config["comparisons"])
except InputError as error:
    fail(error.line())
# names SAM or VCF cannot hold, refused before any job runs: each genome in the roles its pairs give it
from gpu_kernels.formats.alignments import sam_name_problem
from gpu_kernels.formats.vcf import vcf_name_problem

_queries, _references = {q for q, _ in PAIRS}, {r for _, r in PAIRS}
for _key, _check in (("alignments_sam", sam_name_problem), ("vcf", vcf_name_problem)):
    for _g in sorted(_queries | _references) if OUT[_key] else ():
        _names = [c.name for c in CHROMOSOMES[_g]]
        _problem = _check(
            _names if _g in _queries else [], _names if _g in _references else []
        )
        if _problem:
            fail(f"outputs.{_key}: genome {_g}: {_problem}")
try:
    SETS = param_sets(config["engine"], config.get("sweep"))
    # each set's engine keys the user set
    _GIVEN = param_sets(_GIVEN_ENGINE, config.get("sweep"))
    # engine keys given with --config make a set of their own (k20), never written over `default`'s results
    _overridden = (workflow.config_settings.config or {}).get("engine")
    if isinstance(_overridden, dict) and _overridden and list(SETS) == ["default"]:
        SETS = dict([override_set(config["engine"], list(_overridden))])
        _GIVEN = {next(iter(SETS)): _GIVEN_ENGINE}
        SUMMARY = f"summary_{next(iter(SETS))}"  # its own summary too: the plain run's stays as it was
except InputError as error:
    fail(error.line())
for (
    _set,
    _engine,
) in SETS.items():  # a sweep's sets pass the engine section's schema too
    if (
        _problem := schema_error(_engine, SCHEMA, "engine", f"sweep set {_set}:")
    ) is not None:
        fail(_problem)
try:
    PARAMS = {
        name: engine_params(engine, set(_GIVEN[name])) for name, engine in SETS.items()
    }
except InputError as error:
    fail(f"engine parameters: {error.line()}")
for _set, _params in PARAMS.items():
    if _params.seeding.soft_mask:
        fail(
            "engine.soft_mask: the workflow's genome index keeps no lowercase; run align or compare on the "
            "FASTA files with --soft-mask"
        )
    for _genome, _chroms in CHROMOSOMES.items():
        _short = [c for c in _chroms if c.length < _params.seeding.k]
        if (
            _short
        ):  # aligned nowhere, as nucmer and minimap2 take such contigs; the tables list them uncovered
            sys.stderr.write(
                f"note: {config['genomes'][_genome]}: {len(_short)} records shorter than k = "
                f"{_params.seeding.k} (the first '{_short[0].name}', {_short[0].length} bp): no HSP can "
                "hold them\n"
            )


BACKEND = config["backend"]
if BACKEND == "auto":
    BACKEND = "cupy" if gpu_available() else "numpy"


onstart:
    # Checked when jobs are about to run here, not when the workflow is parsed: a dry run and a
    # cluster's submit host need no GPU (a GPU job that finds none on its node fails there, one line).
    disk_check()
    if (
        BACKEND == "cupy"
        and workflow.local_exec
        and not workflow.remote_exec
        and not gpu_available()
    ):
        fail(
            "backend: cupy, but CuPy is not installed or finds no CUDA device (install cupy-cuda12x, or set "
            "backend: auto)"
        )


# A genome name may hold '_' but never '_vs_', so QUERY_vs_REFERENCE splits one way only.
GENOME_NAME = "[A-Za-z0-9](?:(?!_vs_)[A-Za-z0-9._-])*"


wildcard_constraints:
    genome=GENOME_NAME,
    query=GENOME_NAME,
    reference=GENOME_NAME,
    set="[A-Za-z0-9][A-Za-z0-9._-]*",
    qbin="b[0-9]+",
    rgroup="g[0-9]+|whole",


def reference_groups(set_name, reference):
    """{group name: reference bins} of the compare jobs of one query bin, in order: consecutive bins
    of at most bins.group_size bases (a bigger bin alone), so one process compares its query bin
    with all of them. MUMs need the whole reference at once (uniqueness is decided over the whole
    reference genome): one group, `whole`."""
    if PARAMS[set_name].matching.mode == "mum":
        return {"whole": ["whole"]}
    bins = [
        Chromosome(name, bases)
        for name, bases in zip(BINS[reference], BIN_BASES[reference])
    ]
    groups = make_bins(
        bins, config["bins"]["group_size"]
    )  # the rule that makes bins of records
    return {
        f"g{i + 1:05d}": [bins[j].name for j in members]
        for i, members in enumerate(groups)
    }


def compare_jobs(set_name, query, reference):
    """(query bin, reference group, its reference bins) of every compare job of a genome pair, in
    the order the merge reads their tables."""
    groups = reference_groups(set_name, reference)
    return [(qb, group, rbins) for qb in BINS[query] for group, rbins in groups.items()]


def group_paths(kind, wc):
    """The outputs (kind bin_hsps or bin_stats) of every compare job of the genome pair, in merge
    order."""
    return [
        path(
            kind, set=wc.set, query=wc.query, reference=wc.reference, qbin=qb, rgroup=g
        )
        for qb, g, _ in compare_jobs(wc.set, wc.query, wc.reference)
    ]


def compare_outputs(wc):
    """Input function: the output folder of every compare job of the job's genome pair."""
    return [
        path(
            "bin_group",
            set=wc.set,
            query=wc.query,
            reference=wc.reference,
            qbin=qb,
            rgroup=g,
        )
        for qb, g, _ in compare_jobs(wc.set, wc.query, wc.reference)
    ]


def all_hsps(set_name, query, reference):
    """Whether a genome pair's exhaustive HSP table and its texts are written (outputs.hsps; auto: for
    pairs of at most outputs.hsps_auto_bases bases). Else its jobs keep the HSPs in chains, which the
    coverage tables and dotplots read."""
    if OUT["hsps"] != "auto":
        return bool(OUT["hsps"])
    return genome_bases(query) + genome_bases(reference) <= OUT["hsps_auto_bases"]


def hsps_kept(wc):
    """Params function of compare: whether its HSP table is written (the pair's merged table is, as
    the exact-match modes' MUMmer text needs it, or outputs.chained_hsps asks for the HSPs in chains
    as one table)."""
    return (
        hsp_table_written(wc.set, wc.query, wc.reference)
        or PARAMS[wc.set].matching.mode != "hsp"
        or OUT["chained_hsps"]
    )


# what each compare job's share of the pictures holds (shares.make_share)
SHARE = {
    "whole": OUT["grid_dotplot"] or OUT["html_dotplot"],
    "html": OUT["html_dotplot"],
    "max_pair_plots": OUT["max_pair_dotplots"] if OUT["pair_dotplots"] else 0,
}


def lowest_identity(wc):
    """Params function: where the dotplots' identity colour scale starts (the HSPs' min_identity;
    the exact-match modes' matches are all 100 %)."""
    params = PARAMS[wc.set]
    return params.extension.min_identity if params.matching.mode == "hsp" else 99.0


MANY = config["comparisons"]["many"]
# many-genomes mode's pair outputs: workflow kind -> align.write_aligned's kind (chains: pairs.CHAIN_PATHS')
MANY_KINDS = {**ALIGN_KINDS, **{kind: kind for kind in CHAIN_KINDS}}


def final_outputs():
    """Everything rule all asks for."""
    if MANY:
        sets = [path(kind, set=s) for s in SETS for kind in ("ani", "ani_heatmap")]
        matrices = [path("ani_matrix", set=s, matrix=m) for s in SETS for m in MATRICES]
        return sets + matrices
    kinds = [
        "stats",
        "coverage_pairs",
        "coverage_query",
        "coverage_reference",
        "coverage_genomes",
    ]
    kinds += [
        kind
        for kind in CHAIN_KINDS
        + tuple(ALIGN_KINDS)
        + PICTURE_KINDS  # the HSP table and texts: hsp_targets
        if OUT[kind]
    ]
    targets = [
        path(kind, set=s, query=q, reference=r)
        for s in SETS
        for q, r in PAIRS
        for kind in kinds
    ]
    targets += [
        path("mummer", set=s, query=q, reference=r)
        for s in SETS
        for q, r in PAIRS
        if PARAMS[s].matching.mode != "hsp"
    ]
    return targets + [path("summary_tsv"), path("summary_png")]


def row_threads(wc):
    """Threads of a many-genomes row job (rules/many.smk's ROWS): two (its host half beside its device
    turns, or a CPU compare's passes), or one on the CPU where two a row would leave rows waiting for
    cores."""
    cores = host_cores()
    return 1 if BACKEND != "cupy" and cores and 2 * len(ROWS) > cores else 2


def host_cores():
    """--cores where it is given (0 where it is not: a report, a cluster's submit host)."""
    try:
        return int(workflow.cores)
    except (WorkflowError, TypeError, ValueError):
        return 0


def pair_category(kind, what):
    """Where an output of a genome pair goes in the report: a category per pair (and parameter set),
    the kind of output as its subcategory, and a label saying what it is (not its path).
    """
    label = (
        "{query} vs {reference}" if len(SETS) == 1 else "{set}: {query} vs {reference}"
    )
    return {"category": label, "subcategory": kind, "labels": {"output": what}}


# What the report's front page says about the run (workflow/report/workflow.rst renders it): read
# when `snakemake --report` parses the workflow after the run, so the jobs' times are known then.
config["_report"] = run_description(
    config,
    CHROMOSOMES,
    PAIRS,
    PARAMS,
    BACKEND,
    os.path.dirname(path("benchmark", name="x")),
    [
        (
            f"{q} vs {r}" if len(SETS) == 1 else f"{name}: {q} vs {r}",
            os.path.dirname(path("coverage_genomes", set=name, query=q, reference=r)),
        )
        for name in SETS
        for q, r in PAIRS
    ],
)
