"""Shared start of every script: the project on the path, logging to the job's log file."""
import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from gpu_kernels.errors import InputError, os_error_line  # noqa: E402
from gpu_kernels.workflow.jobs import setup_logging  # noqa: E402


def genomes(snakemake) -> tuple:
    """The job's query and reference genomes (workflow.genome.Genome) from its index inputs (qcodes,
    qtable, rcodes, rtable) and wildcards."""
    from gpu_kernels.workflow.genome import Genome

    w, i = snakemake.wildcards, snakemake.input
    return Genome(w.query, i.qcodes, i.qtable), Genome(w.reference, i.rcodes, i.rtable)


def claim_gpu(snakemake) -> None:
    """On the CuPy backend, a GPU and a slot of it no other running job holds (device.claim_device).
    jobs_per_gpu and turns_per_gpu are read from the config, not params: no output depends on them, so
    they are no rerun triggers."""
    if snakemake.params.backend == "cupy":
        from gpu_kernels.device import claim_device

        claim_device(jobs_per_gpu=snakemake.config.get("jobs_per_gpu", 1),
                     turns_per_gpu=snakemake.config.get("turns_per_gpu", 1))


def pair_meta(snakemake, query, reference, params) -> dict:
    """What a genome pair's tables say of the run (their metadata; the delta's header names the FASTA
    files): both genomes' records, the parameters, the compare jobs' seed counts (params.stats: their
    tables), the genomes' names and FASTA files (params.fasta)."""
    from gpu_kernels.formats import read_tsv

    stats = [row for p in snakemake.params.stats for row in read_tsv(p)]
    w = snakemake.wildcards
    return {"query": {"names": list(query.names), "lengths": query.lengths.tolist()},
            "reference": {"names": list(reference.names), "lengths": reference.lengths.tolist()},
            "params": params.as_dict(), "seeds": sum(int(r["seeds"]) for r in stats),
            "kept_seeds": sum(int(r["kept_seeds"]) for r in stats), "query_genome": w.query,
            "reference_genome": w.reference, **snakemake.params.fasta}


def start(snakemake) -> None:
    """Log to the job's log file; the compiled CPU stages use the job's threads, not every core."""
    os.environ["GPU_GENOME_COMPARE_THREADS"] = str(max(1, int(snakemake.threads)))
    setup_logging(snakemake.log[0] if snakemake.log else None)


def run(snakemake, step) -> None:
    """Run a step; a user error or a full disk becomes one line in the log and on stderr, and a
    failed job; anything else also leaves its traceback in the job's log."""
    import logging

    start(snakemake)
    try:
        step()
    except (InputError, OSError) as error:
        line = error.line() if isinstance(error, InputError) else os_error_line(error)
        logging.getLogger("workflow").error(line)
        sys.stderr.write(f"error: {line}\n")
        sys.exit(1)
    except Exception:
        logging.getLogger("workflow").exception("the job failed")
        raise
