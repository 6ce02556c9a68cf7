"""Snakemake script: a genome pair's HSPs gathered into the dots its pictures draw."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.gather import gather_pair  # noqa: E402
from gpu_kernels.workflow.genome import Genome  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards

run(sm, lambda: gather_pair(sm.params.hsps, sm.input.coverage, sm.input.layout, Genome(w.query, None, sm.input.qtable),
                            Genome(w.reference, None, sm.input.rtable), str(sm.output[0]), bool(sm.params.whole),
                            bool(sm.params.html), int(sm.params.max_pair_dotplots), sm.params.order, sm.threads))
