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

run(sm, lambda: coverage_tables(
    sm.input.hsps, Genome(w.query, None, sm.input.qtable), Genome(w.reference, None, sm.input.rtable),
    sm.output.pairs, sm.output.query, sm.output.reference, sm.output.genomes, sm.input.chains or None,
    assembled_alignments(sm.input.alignments) if sm.input.alignments else None))
