"""Snakemake script: a genome pair's compare jobs' shares merged into the coverage tables' numbers and
the pictures' dots, and beside it on threads the dotplots' layout along the pair's backbone (from the
compare jobs' parts)."""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.workflow.gather import backbone_layout  # noqa: E402
from gpu_kernels.workflow.genome import Genome  # noqa: E402
from gpu_kernels.workflow.shares import merge_shares  # noqa: E402
from gpu_kernels.workflow.tables import save_numbers  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards


def step():
    query, reference = Genome(w.query, None, sm.input.qtable), Genome(w.reference, None, sm.input.rtable)
    with ThreadPoolExecutor(1) as pool:
        layout = pool.submit(backbone_layout, list(sm.params.parts), query, reference, Params(**sm.params.engine),
                             bool(sm.params.all_chains), sm.threads)
        share = dict(sm.params.share)
        numbers, gathered = merge_shares(list(sm.params.shares), query, reference, layout.result, sm.params.order,
                                         bool(share["whole"]), bool(share["html"]), int(share["max_pair_plots"]))
    save_numbers(sm.output.coverage, numbers)
    gathered.save(sm.output.dots)


run(sm, step)
