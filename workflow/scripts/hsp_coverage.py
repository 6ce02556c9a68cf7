"""Snakemake script: the coverage tables' pass over a genome pair's HSPs, and beside it on a thread the
dotplots' layout along the pair's backbone (from the compare jobs' parts)."""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(__file__))
from _setup import claim_gpu, run  # noqa: E402

from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.workflow.gather import backbone_layout, save_layout  # noqa: E402
from gpu_kernels.workflow.genome import Genome  # noqa: E402
from gpu_kernels.workflow.tables import hsp_coverage  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards


def step():
    claim_gpu(sm)
    query, reference = Genome(w.query, None, sm.input.qtable), Genome(w.reference, None, sm.input.rtable)
    with ThreadPoolExecutor(1) as pool:
        layout = pool.submit(backbone_layout, list(sm.params.parts), query, reference, Params(**sm.params.engine),
                             bool(sm.params.all_chains))
        hsp_coverage(sm.params.hsps, query, reference, str(sm.output.coverage), sm.params.backend, sm.threads)
        save_layout(sm.output.layout, layout.result())


run(sm, step)
