"""Snakemake script: one query bin against a group of reference bins through the homology pipeline."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import claim_gpu, genomes, run  # noqa: E402

from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.workflow.jobs import compare_group  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards


def step():
    claim_gpu(sm)
    query, reference = genomes(sm)
    labels = {"set": w.set, "query": w.query, "reference": w.reference}
    compare_group(query, reference, w.qbin, list(sm.params.rbins), Params(**sm.params.engine), sm.params.backend,
                  sm.params.hsps, sm.params.stats, labels,
                  bool(sm.params.pieces), bool(sm.params.all_hsps), sm.output.text_parts, bool(sm.params.write_hsps),
                  dict(sm.params.share))


run(sm, step)
