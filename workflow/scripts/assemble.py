"""Snakemake script: a genome pair's chains and the numbers of its alignments, assembled from its compare
jobs' parts."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import genomes, pair_meta, run  # noqa: E402

from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.workflow.outputs import CHAIN_KINDS  # noqa: E402
from gpu_kernels.workflow.parts import assemble_pair  # noqa: E402

sm = snakemake  # noqa: F821


def step():
    query, reference = genomes(sm)
    params = Params(**sm.params.engine)
    paths = {kind: sm.output.get(kind) for kind in CHAIN_KINDS}
    assemble_pair(list(sm.params.parts), query, reference, params, paths, pair_meta(sm, query, reference, params),
                  tuple(sm.params.texts), sm.output.assembled, bool(sm.params.all_chains), bool(sm.params.write_all),
                  sm.params.chains_share)


run(sm, step)
