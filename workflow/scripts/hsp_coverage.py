"""Snakemake script: the coverage tables' pass over a genome pair's HSPs."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.genome import Genome  # noqa: E402
from gpu_kernels.workflow.tables import hsp_coverage  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards


def step():
    if sm.params.backend == "cupy":
        from gpu_kernels.device import claim_device

        claim_device(jobs_per_gpu=sm.config.get("jobs_per_gpu", 1))  # not a rerun trigger: no output depends on it
    hsp_coverage(sm.params.hsps, Genome(w.query, None, sm.input.qtable), Genome(w.reference, None, sm.input.rtable),
                 str(sm.output[0]), sm.params.backend, sm.threads)


run(sm, step)
