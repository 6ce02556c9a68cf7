"""Snakemake script: a genome's row of the set's pairs, aligned in one process (workflow/many.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.workflow.many import align_row, genomes_of  # noqa: E402

sm = snakemake  # noqa: F821


def step():
    if sm.params.backend == "cupy":
        from gpu_kernels.device import claim_device

        claim_device(jobs_per_gpu=sm.config.get("jobs_per_gpu", 1))  # not a rerun trigger: no output depends on it
    genomes = genomes_of(sm.params.genomes, sm.input.codes, sm.input.tables)
    paths = {(q, r): dict(kinds) for q, r, kinds in sm.params.pairs}
    align_row(list(paths), genomes, dict(sm.params.fasta), Params(**sm.params.engine), sm.params.backend,
              lambda q, r: paths[(q, r)], sm.output.rows, bool(sm.params.sam_seq))


run(sm, step)
