"""Snakemake script: one query bin against a group of reference bins through the homology pipeline."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import genomes, run  # noqa: E402

from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.workflow.jobs import compare_group  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards


def step():
    if sm.params.backend == "cupy":
        from gpu_kernels.device import claim_device

        claim_device(jobs_per_gpu=sm.config.get("jobs_per_gpu", 1))  # not a rerun trigger: no output depends on it
    query, reference = genomes(sm)
    labels = {"set": w.set, "query": w.query, "reference": w.reference}
    compare_group(query, reference, w.qbin, list(sm.params.rbins), Params(**sm.params.engine), sm.params.backend,
                  sm.params.hsps, sm.params.stats, labels,
                  bool(sm.params.pieces), bool(sm.params.all_hsps), sm.output.text_parts)


run(sm, step)
