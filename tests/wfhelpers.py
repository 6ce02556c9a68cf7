"""Helpers of the workflow tests: a working directory, a Snakemake call, outputs compared byte for byte."""
import csv
import os
import subprocess
import sys

from conftest import ROOT

SNAKEFILE = os.path.join(ROOT, "workflow", "Snakefile")


def workdir(tmp_path):
    """A working directory that sees the repository's config/ and resources/."""
    for name in ("config", "resources"):
        os.symlink(os.path.join(ROOT, name), tmp_path / name)
    return tmp_path


def snakemake(cwd, *args, check=True, timeout=600):
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", SNAKEFILE, "-d", str(cwd), *args],
                          cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def read_tsv(path):
    with open(path) as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def parquet_content(path) -> bytes:
    """A table's rows and metadata, timings left out."""
    import json

    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = json.loads((table.schema.metadata or {}).get(b"gpu_kernels", b"{}"))  # a job's part has none
    if isinstance(meta.get("stats"), dict):
        meta["stats"] = {k: v for k, v in meta["stats"].items() if not k.endswith("_s")}
    return repr((table.to_pydict(), meta)).encode()


def comparable(cwd):
    """Every output's bytes, with timing columns of stats tables removed."""
    out = {}
    for path in sorted((cwd / "results").rglob("*")):
        rel = str(path.relative_to(cwd))
        if path.is_dir() or "/logs/" in rel or rel.endswith((".json", ".snakemake_timestamp", ".part")):
            continue
        data = path.read_bytes()
        if rel.endswith(".tsv") and (b"total_s" in data or b"compare_s" in data):
            rows = read_tsv(path)
            data = str([{k: v for k, v in r.items() if not k.endswith("_s")} for r in rows]).encode()
        if rel.endswith(".parquet"):
            data = parquet_content(path)
        if rel.endswith("summary.png"):
            continue  # plots the compare times
        if rel.endswith(".delta"):  # its header names the FASTA files by absolute paths, the run's folder
            data = data.replace(str(cwd).encode(), b"RUN")
        out[rel] = data
    return out


def coverage_of(table, folder):
    """A genome pair's coverage tables made from an HSP table as the hsp_coverage and coverage rules
    make them, into folder: (query Genome, reference Genome, [pairs, query, reference, genomes] paths);
    the HSP pass's numbers (what the pictures read) are folder / hsp_coverage.npz."""
    from gpu_kernels.formats import read_meta
    from gpu_kernels.workflow.genome import Genome
    from gpu_kernels.workflow.tables import coverage_tables, hsp_coverage

    meta = read_meta(str(table))
    query = Genome.of("Q", meta["query"]["names"], meta["query"]["lengths"])
    reference = Genome.of("R", meta["reference"]["names"], meta["reference"]["lengths"])
    tables = [str(folder / f"{name}.tsv") for name in ("pairs", "query", "reference", "genomes")]
    hsp_coverage(str(table), query, reference, str(folder / "hsp_coverage.npz"))
    coverage_tables(str(folder / "hsp_coverage.npz"), query, reference, *tables)
    return query, reference, tables
