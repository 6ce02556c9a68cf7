"""Snakemake script: MEMs or MUMs of a genome pair in MUMmer's text format."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.genome import Genome  # noqa: E402
from gpu_kernels.workflow.merge import write_mummer  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards
run(sm, lambda: write_mummer(sm.input.hsps, Genome(w.query, None, sm.input.qtable),
                             Genome(w.reference, None, sm.input.rtable), sm.output[0]))
