"""Snakemake script: the summary of every parameter set and genome pair."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.summary import sweep_summary  # noqa: E402

sm = snakemake  # noqa: F821
rows = [{**item, "stats": s, "coverage": c} for item, s, c in zip(sm.params.runs, sm.input.stats, sm.input.coverage)]
run(sm, lambda: sweep_summary(rows, sm.output.tsv, sm.output.png))
