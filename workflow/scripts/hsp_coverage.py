"""Snakemake script: a genome pair's compare jobs' shares merged into the coverage tables' numbers and
one share of the pictures (placed in the dotplots' layout by the plots rule)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.genome import Genome  # noqa: E402
from gpu_kernels.workflow.shares import merge_shares, save_share  # noqa: E402
from gpu_kernels.workflow.tables import save_numbers  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards


def step():
    query, reference = Genome(w.query, None, sm.input.qtable), Genome(w.reference, None, sm.input.rtable)
    numbers, share = merge_shares(list(sm.params.shares), query, reference, int(sm.params.max_pair_plots))
    save_numbers(sm.output.coverage, numbers)
    save_share(sm.output.dots, share)


run(sm, step)
