"""Snakemake script: grid dotplot, coverage heatmap and pair dotplots of a genome pair, drawn from its
gathered dots."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.genome import Genome  # noqa: E402
from gpu_kernels.workflow.parts import assembled_alignments  # noqa: E402
from gpu_kernels.workflow.pictures import gathered_pictures  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards

run(sm, lambda: gathered_pictures(sm.input.dots, sm.input.coverage, Genome(w.query, None, sm.input.qtable),
                                  Genome(w.reference, None, sm.input.rtable), sm.output.grid or None,
                                  sm.output.heatmap or None, sm.output.pairs or None, sm.output.html or None,
                                  sm.threads, sm.input.chains or None, tuple(sm.params.layers),
                                  assembled_alignments(sm.input.alignments) if sm.input.alignments else None,
                                  tuple(sm.params.formats), sm.params.frame, sm.params.low, sm.params.order))
