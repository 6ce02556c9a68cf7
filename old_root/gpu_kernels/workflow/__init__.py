"""The Snakemake workflow's library: rule steps, the genome index, config checks, parameter sweeps,
GPU slots and plots. workflow/scripts/ only unpack Snakemake's arguments and call these.

The engine (`import gpu_kernels`) never imports this package.
"""
