"""The SLURM profile against a real SLURM: a one-node cluster on localhost (.ci/slurm_up.sh starts it).

Skipped where no SLURM answers or the executor plugin is missing.
"""
import os
import shutil
import subprocess

import pytest

from conftest import ROOT
from wfhelpers import comparable, snakemake, workdir


def slurm_ready() -> bool:
    if not shutil.which("sinfo"):
        return False
    proc = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True)
    return proc.returncode == 0 and any(s in proc.stdout for s in ("idle", "mix", "alloc"))


def test_slurm_profile_run_equals_local_run(tmp_path):
    if not slurm_ready():
        if os.environ.get("REQUIRE_SLURM"):
            pytest.fail("REQUIRE_SLURM is set but no SLURM cluster answers")
        pytest.skip("no SLURM cluster answers (run .ci/slurm_up.sh as root)")
    pytest.importorskip("snakemake_executor_plugin_slurm")
    (tmp_path / "local").mkdir()
    (tmp_path / "slurm").mkdir()
    local = workdir(tmp_path / "local")
    snakemake(local, "--cores", "2", "--config", "backend=numpy")
    cluster = workdir(tmp_path / "slurm")
    before = set(subprocess.run(["squeue", "-h", "-t", "all", "-o", "%i"], capture_output=True, text=True).stdout.split())
    snakemake(cluster, "--profile", os.path.join(ROOT, "profiles", "slurm"), "--config", "backend=numpy",
              "--jobs", "4", "--default-resources", "slurm_partition=debug", "mem_mb=1000", "runtime=30",
              "--set-resources", "compare:mem_mb=2000", "alignments:mem_mb=2000", "--set-threads", "plots=2",
              "coverage=2", "alignments=2", "part_texts=2", "texts=2",  # the CI node has 2 CPUs
              "--slurm-status-command", "squeue", "--slurm-no-account",
              "--slurm-init-seconds-before-status-checks", "1", timeout=900)
    after = set(subprocess.run(["squeue", "-h", "-t", "all", "-o", "%i"], capture_output=True, text=True).stdout.split())
    assert len(after - before) >= 5, "the jobs did not go through SLURM"  # index x2, compare, merge, coverage, ...
    assert comparable(cluster) == comparable(local)
