"""Snakemake script: encode one genome (codes.2bit, two bits a base, and the chromosome table)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _setup import run  # noqa: E402

from gpu_kernels.workflow.genome import write_index  # noqa: E402

run(snakemake, lambda: write_index(snakemake.input.fasta, snakemake.output.codes,  # noqa: F821
                                   snakemake.output.chromosomes, snakemake.params.bin_size))  # noqa: F821
