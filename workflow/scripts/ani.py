"""Snakemake script: a genome set's ANI table, pyANI's matrices and the ANI heatmap."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.ani_set import write_set  # noqa: E402
from gpu_kernels.workflow.many import ROW_ANI  # noqa: E402

sm = snakemake  # noqa: F821

run(sm, lambda: write_set([os.path.join(row, ROW_ANI) for row in sm.input.rows], list(sm.params.genomes),
                          sm.output.ani, os.path.dirname(sm.output.ani), sm.output.heatmap, tuple(sm.params.formats)))
