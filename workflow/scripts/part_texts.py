"""Snakemake script: the texts of a compare job's alignments, on the CPU."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import genomes, run  # noqa: E402

from gpu_kernels.workflow.parts import write_part_texts  # noqa: E402

sm = snakemake  # noqa: F821
w = sm.wildcards


def step():
    query, reference = genomes(sm)
    write_part_texts(sm.input.text_parts, query, w.qbin, reference, list(sm.params.rbins), tuple(sm.params.kinds),
                     sm.output[0])


run(sm, step)
