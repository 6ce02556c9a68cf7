"""Snakemake script: a genome pair's bin-pair stats tables as one."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.merge import merge_stats  # noqa: E402

sm = snakemake  # noqa: F821

run(sm, lambda: merge_stats(list(sm.params.stats), sm.output.stats))
