"""The warm command (gpu_kernels/warm.py): its refusal without a GPU, its input, its large-table rehearsal, and
its run at install (kernels.warm_at_install)."""
import os
import subprocess
import sys

from conftest import ROOT
from gpu_kernels import Params
from gpu_kernels.backend import NumpyBackend
from gpu_kernels.chains import chain_hsps
from gpu_kernels.hsps import sort_rows
from gpu_kernels.kernels import warm_at_install
from gpu_kernels.warm import _records, rehearse_large_chains
from gpu_kernels.warm_command import warm_pair


def test_warm_without_a_gpu_says_so_in_one_line():
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "warm"], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["error: warm: CuPy finds no CUDA device (the CPU backend compiles "
                                                "nothing when it runs)"]


def test_the_warm_pair_gives_every_stage_work(tmp_path):
    """warm_pair (the warm command's input): chains on both strands and on both record pairs, split
    alignments, variants."""
    query, reference = warm_pair(str(tmp_path))
    paf = tmp_path / "a.paf"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "align", query, reference, "-o", str(paf), "--backend",
                    "numpy"], check=True, capture_output=True)
    rows = [line.split("\t") for line in paf.read_text().splitlines()]
    assert {(r[4], r[5]) for r in rows} == {(s, f"reference{k}") for s in "+-" for k in (1, 2)}
    assert len({(r[0], r[5]) for r in rows}) == 3  # the moved stretch aligns to the other record
    assert any(int(r[9]) < int(r[10]) for r in rows)  # mismatches and gaps to fill


def test_the_large_rehearsal_chains_the_rehearsal_table_alone():
    """Its lone rows pass every whole-table stage and make no chain: the chains are those of the
    rehearsal table chained alone."""
    backend = NumpyBackend()
    seqs, table = _records(backend)
    alone, _, _ = chain_hsps(sort_rows(table, 1, 1), seqs.lengths, seqs.lengths, Params())
    assert rehearse_large_chains(backend, least_rows=1 << 20) == alone["qrec"].size > 1000


def _fake_python(tmp_path, probe_status: int, warm_status: int):
    """A stand-in interpreter that records each call's first argument and environment and answers the
    GPU probe and the warm command with the given statuses."""
    script = tmp_path / "python"
    script.write_text("#!/bin/sh\n"
                      f"printf '%s|%s|%s\\n' \"$1\" \"${{PYTHONPATH:-}}\" \"${{PYTHONNOUSERSITE:-unset}}\" >> {tmp_path}/calls\n"
                      f"if [ \"$1\" = -c ]; then exit {probe_status}; fi\n"
                      f"echo 'a message' >&2; exit {warm_status}\n")
    script.chmod(0o755)
    return str(script), tmp_path / "calls"


def test_install_runs_warm_where_cupy_finds_a_gpu_outside_pips_isolation(tmp_path, monkeypatch):
    """The warm command runs with the package root on the path and without the variables of pip's
    build isolation (which would hide CuPy), and its last line goes to the install's log."""
    monkeypatch.setenv("PYTHONNOUSERSITE", "1")
    monkeypatch.setenv("PYTHONPATH", "/tmp/pip-build-env-x1y2/site")
    monkeypatch.delenv("GPU_GENOME_COMPARE_WARM", raising=False)
    python, calls = _fake_python(tmp_path, 0, 0)
    line = warm_at_install(str(tmp_path / "src"), python)
    assert line == "CuPy's kernels for this GPU: a message"
    assert calls.read_text().splitlines() == [f"-c|{tmp_path / 'src'}|unset", f"-m|{tmp_path / 'src'}|unset"]


def test_install_without_a_gpu_or_with_warm_failing_says_so_and_goes_on(tmp_path, monkeypatch):
    monkeypatch.delenv("GPU_GENOME_COMPARE_WARM", raising=False)
    python, calls = _fake_python(tmp_path, 1, 0)
    assert warm_at_install(str(tmp_path), python).startswith("no GPU that CuPy finds")
    assert len(calls.read_text().splitlines()) == 1  # the probe alone
    calls.unlink()
    python, calls = _fake_python(tmp_path, 0, 3)
    assert warm_at_install(str(tmp_path), python) == ("warning: CuPy's kernels not compiled at install (a message): "
                                                      "the first GPU run compiles them")
    calls.unlink()
    monkeypatch.setenv("GPU_GENOME_COMPARE_WARM", "0")
    assert "GPU_GENOME_COMPARE_WARM=0" in warm_at_install(str(tmp_path), python)
    assert not calls.exists()


def test_install_outside_pip_keeps_the_users_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/opt/site")
    monkeypatch.delenv("GPU_GENOME_COMPARE_WARM", raising=False)
    python, calls = _fake_python(tmp_path, 0, 0)
    warm_at_install(str(tmp_path / "src"), python)
    assert calls.read_text().splitlines()[0].split("|")[1] == f"{tmp_path / 'src'}:/opt/site"


def test_the_warm_command_builds_matplotlibs_font_list(tmp_path):
    """The first pictures after install read matplotlib's font list rather than building it in their job."""
    env = {**os.environ, "MPLCONFIGDIR": str(tmp_path)}
    code = "from gpu_kernels.warm_command import font_cache; font_cache()"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT)
    assert list(tmp_path.glob("fontlist-*.json"))
