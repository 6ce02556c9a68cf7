# Whole-genome comparison: every chromosome of one genome against every chromosome of another,
# both strands, exhaustively; then PAF, GECKO CSV, coverage tables, dotplots and a report.
#   snakemake --cores 2                               # the bundled default run (config/config.yaml)
#   snakemake --cores 2 --configfile my.yaml           # your own genomes: my.yaml replaces the default
from snakemake.utils import min_version

min_version("8.0")


# The bundled config unless --configfile names another (--config key=value still applies on top).
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/index.smk"
include: "workflow/rules/compare.smk"
include: "workflow/rules/merge.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/plots.smk"
include: "workflow/rules/summary.smk"


rule all:
    input:
        final_outputs(),
    default_target: True
