# The workflow's entry point at the repository root (the layout the project's design card names);
# workflow/Snakefile is the Snakemake catalog's and does the work: run either from the root.
#   snakemake --cores 2
include: "workflow/Snakefile"


# an included file's default target is not the including one's: the same outputs as workflow/Snakefile's
rule default:
    default_target: True
    input:
        rules.all.input,
