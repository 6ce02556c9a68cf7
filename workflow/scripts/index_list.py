"""Snakemake script: every genome's index files listed once (a many-genomes row reads its genomes' files there)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.genome import write_index_list  # noqa: E402

sm = snakemake  # noqa: F821

run(sm, lambda: write_index_list(sm.output[0], list(sm.params.genomes), list(sm.input.codes), list(sm.input.tables),
                                list(sm.input.screens)))
