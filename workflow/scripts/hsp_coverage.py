"""Snakemake script: the coverage tables' pass over a genome pair's HSPs."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import claim_gpu, run  # noqa: E402

from gpu_kernels.workflow.genome import Genome  # noqa: E402
from gpu_kernels.workflow.tables import hsp_coverage  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards


def step():
    claim_gpu(sm)
    hsp_coverage(sm.params.hsps, Genome(w.query, None, sm.input.qtable), Genome(w.reference, None, sm.input.rtable),
                 str(sm.output[0]), sm.params.backend, sm.threads)


run(sm, step)
