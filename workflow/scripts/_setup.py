"""Shared start of every script: the project on the path, logging to the job's log file."""
import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from gpu_kernels.errors import InputError  # noqa: E402
from gpu_kernels.workflow.steps import setup_logging  # noqa: E402


def start(snakemake) -> None:
    """Log to the job's log file; the compiled CPU stages use the job's threads, not every core."""
    os.environ["GPU_GENOME_COMPARE_THREADS"] = str(max(1, int(snakemake.threads)))
    setup_logging(snakemake.log[0] if snakemake.log else None)


def run(snakemake, step) -> None:
    """Run a step; a user error becomes one line in the log and on stderr, and a failed job."""
    start(snakemake)
    try:
        step()
    except InputError as error:
        import logging

        logging.getLogger("workflow").error(error.line())
        sys.stderr.write(f"error: {error.line()}\n")
        sys.exit(1)
