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
              "--set-resources", "compare:mem_mb=2000", "assemble:mem_mb=2000",
              # the CI node has 2 CPUs: a job asking more stays pending (PartitionConfig), so every rule that
              # asks for threads is given 2
              "--set-threads", *[f"{rule}=2" for rule in threaded_rules()],
              "--slurm-status-command", "squeue", "--slurm-no-account",
              "--slurm-init-seconds-before-status-checks", "1", timeout=900)
    after = set(subprocess.run(["squeue", "-h", "-t", "all", "-o", "%i"], capture_output=True, text=True).stdout.split())
    assert len(after - before) >= 5, "the jobs did not go through SLURM"  # index x2, compare, merge, coverage, ...
    assert comparable(cluster) == comparable(local)


def threaded_rules() -> list[str]:
    """The workflow's rules that ask for threads."""
    import re

    rules = "".join(open(os.path.join(ROOT, "workflow", "rules", name)).read()
                    for name in os.listdir(os.path.join(ROOT, "workflow", "rules")))
    return sorted(set(re.findall(r"rule (\w+):(?:(?!\nrule ).)*?\n\s+threads:", rules, re.S)))


def test_every_threaded_rule_is_found():
    assert {"compare", "assemble", "alignments", "plots", "part_texts", "index"} <= set(threaded_rules())


def test_the_readmes_slurm_command_keeps_the_profiles_limits_and_sends_gpu_jobs_to_gpus():
    """The README's SLURM command gave --default-resources with a partition and an account alone: on
    the command line that section replaces the profile's whole, so every job got 1,000 MB and no
    runtime, and coverage jobs (now hsp_coverage), which ask for a GPU, went to the CPU partition. The command now
    repeats every memory and time limit of the profile, and every rule that asks for a GPU gets a
    GPU partition, in the README and in the profile's comment alike."""
    import re

    import yaml

    profile_path = os.path.join(ROOT, "profiles", "slurm", "config.yaml")
    profile = yaml.safe_load(open(profile_path))
    rules = "".join(open(os.path.join(ROOT, "workflow", "rules", name)).read()
                    for name in os.listdir(os.path.join(ROOT, "workflow", "rules")))
    gpu_rules = set(re.findall(r"rule (\w+):(?:(?!\nrule ).)*?\n\s+gpu=1 if", rules, re.S))
    assert gpu_rules == {"compare", "row"}  # row: many genomes (comparisons.many)
    readme = open(os.path.join(ROOT, "README.md")).read()
    comment = "".join(line.lstrip("# ") for line in open(profile_path) if line.startswith("#"))
    for text in (readme, comment):
        lines = [line.strip() for line in text.splitlines()]
        first = lines.index("snakemake --profile profiles/slurm \\")
        last = next(i for i in range(first, len(lines)) if not lines[i].endswith("\\"))
        words = " ".join(line.rstrip("\\") for line in lines[first + 1:last + 1]).split()
        defaults = words[words.index("--default-resources") + 1:words.index("--set-resources")]
        per_rule = words[words.index("--set-resources") + 1:]
        given = dict(word.split("=", 1) for word in defaults)
        assert {key: int(given[key]) for key in profile["default-resources"]} == profile["default-resources"]
        for rule, values in profile["set-resources"].items():
            for key, value in values.items():
                assert f"{rule}:{key}={value}" in per_rule, (rule, key)
        for rule in gpu_rules:
            assert f"{rule}:slurm_partition=gpu" in per_rule, rule
