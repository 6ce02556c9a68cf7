"""Snakemake script: a genome's row of the set's pairs, aligned in one process into the row's folder
(workflow/many.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import claim_gpu, run  # noqa: E402

from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.workflow.genome import read_index_list  # noqa: E402
from gpu_kernels.workflow.many import ROW_ANI, align_row, pair_paths  # noqa: E402

sm = snakemake  # noqa: F821


def step():
    claim_gpu(sm)
    genomes = read_index_list(sm.input.index_list, sm.params.genomes)
    folder = sm.output[0]
    os.makedirs(folder, exist_ok=True)
    align_row([tuple(p) for p in sm.params.pairs], genomes, dict(sm.params.fasta), Params(**sm.params.engine),
              sm.params.backend, pair_paths(folder, dict(sm.params.kinds)), os.path.join(folder, ROW_ANI),
              bool(sm.params.sam_seq), float(sm.params.snps_min_ani), screen=float(sm.params.screen))


run(sm, step)
