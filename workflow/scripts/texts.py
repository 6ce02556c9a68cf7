"""Snakemake script: a genome pair's HSP table in its text formats (PAF, GECKO CSV, MUMmer delta)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.merge import write_texts  # noqa: E402
from gpu_kernels.workflow.outputs import TEXT_KINDS  # noqa: E402

sm = snakemake  # noqa: F821

run(sm, lambda: write_texts(sm.input.hsps, {kind: sm.output.get(kind) for kind in TEXT_KINDS if sm.output.get(kind)}))
