"""Snakemake script: a genome pair's alignments (their numbers assembled) with the texts its compare jobs'
part_texts jobs made."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import genomes, run  # noqa: E402

from gpu_kernels.workflow.outputs import ALIGN_KINDS  # noqa: E402
from gpu_kernels.workflow.parts import write_pair_alignments  # noqa: E402

sm = snakemake  # noqa: F821


def step():
    query, reference = genomes(sm)
    paths = {ALIGN_KINDS[kind]: sm.output.get(kind) for kind in ALIGN_KINDS}
    write_pair_alignments(sm.input.assembled, list(sm.input.texts), query, reference, paths, bool(sm.params.sam_seq),
                          release=not sm.resources.get("keep_texts", 0))


run(sm, step)
