"""Snakemake script: merge the bin pairs of a genome pair."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.workflow.genome import Genome  # noqa: E402
from gpu_kernels.workflow.merge import merge  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards


def step():
    query = Genome(w.query, None, sm.input.qtable)
    reference = Genome(w.reference, None, sm.input.rtable)
    merge(list(sm.params.hsps), list(sm.params.stats), query, reference, Params(**sm.params.engine), sm.output.hsps,
          None, dict(sm.params.fasta))


run(sm, step)
