"""Snakemake script: encode one genome (codes.2bit, two bits a base, the chromosome table and, in a
many-genomes run, the screen sketch)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.genome import write_index  # noqa: E402

sm = snakemake  # noqa: F821
run(sm, lambda: write_index(sm.input.fasta, sm.output.codes, sm.output.chromosomes, sm.params.bin_size,
                            sm.output.get("screen")))
