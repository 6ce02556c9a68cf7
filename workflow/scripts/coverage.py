"""Snakemake script: coverage tables of a genome pair."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.genome import Genome  # noqa: E402
from gpu_kernels.workflow.parts import assembled_alignments  # noqa: E402
from gpu_kernels.workflow.tables import coverage_tables  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards

def step():
    if sm.params.backend == "cupy":
        from gpu_kernels.device import claim_device

        claim_device(jobs_per_gpu=sm.config.get("jobs_per_gpu", 1))  # not a rerun trigger: no output depends on it
    coverage_tables(sm.params.hsps, Genome(w.query, None, sm.input.qtable), Genome(w.reference, None, sm.input.rtable),
                    sm.output.pairs, sm.output.query, sm.output.reference, sm.output.genomes, sm.params.backend,
                    sm.threads, sm.input.chains or None, assembled_alignments(sm.input.alignments) if sm.input.alignments else None)


run(sm, step)
