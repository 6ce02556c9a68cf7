"""Snakemake script: chain a genome pair's HSPs and write the chains and their alignments."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.chaining import write_chains  # noqa: E402
from gpu_kernels.workflow.outputs import ALIGN_KINDS, CHAIN_KINDS  # noqa: E402

sm = snakemake  # noqa: F821


def step():
    if sm.params.backend == "cupy":
        from gpu_kernels.device import claim_device

        claim_device()
    aligned = {ALIGN_KINDS[kind]: sm.output.get(kind) for kind in ALIGN_KINDS}
    index = {name: sm.input.get(name) for name in ("qcodes", "qtable", "rcodes", "rtable")}
    write_chains(sm.input.hsps, {kind: sm.output.get(kind) for kind in CHAIN_KINDS}, sm.params.backend,
                 aligned, index)


run(sm, step)
