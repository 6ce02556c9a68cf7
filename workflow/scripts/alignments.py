"""Snakemake script: a genome pair's chains and alignments assembled from its compare jobs' parts."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import genomes, run  # noqa: E402

from gpu_kernels.formats import read_tsv  # noqa: E402
from gpu_kernels.params import Params  # noqa: E402
from gpu_kernels.workflow.outputs import ALIGN_KINDS, CHAIN_KINDS  # noqa: E402
from gpu_kernels.workflow.parts import assemble_pair  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards


def step():
    query, reference = genomes(sm)
    params = Params(**sm.params.engine)
    paths = {kind: sm.output.get(kind) for kind in CHAIN_KINDS}
    paths.update({ALIGN_KINDS[kind]: sm.output.get(kind) for kind in ALIGN_KINDS})
    stats = [row for p in sm.params.stats for row in read_tsv(p)]
    meta = {"query": {"names": list(query.names), "lengths": query.lengths.tolist()},
            "reference": {"names": list(reference.names), "lengths": reference.lengths.tolist()},
            "params": params.as_dict(), "seeds": sum(int(r["seeds"]) for r in stats),
            "kept_seeds": sum(int(r["kept_seeds"]) for r in stats), "query_genome": w.query, "reference_genome": w.reference,
            **sm.params.fasta}
    assemble_pair(list(sm.params.parts), query, reference, params, paths, meta, list(sm.input.texts),
                  bool(sm.params.all_chains))


run(sm, step)
