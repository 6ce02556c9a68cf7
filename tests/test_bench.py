"""The benchmarks stay runnable: every script's --help works, the index lists every script, and no
benchmark reaches into tests/ (the tests may use bench/common, never the reverse)."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")


def scripts() -> list[str]:
    out = []
    for folder in (BENCH, os.path.join(BENCH, "studies")):
        out += [os.path.relpath(os.path.join(folder, f), BENCH) for f in sorted(os.listdir(folder))
                if f.endswith((".py", ".sh"))]
    return out


@pytest.mark.parametrize("script", scripts())
def test_every_bench_script_answers_help(script):
    path = os.path.join(BENCH, script)
    command = ["bash", path, "--help"] if script.endswith(".sh") else [sys.executable, path, "--help"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage" in proc.stdout.lower()


def test_the_index_lists_every_script_and_helper():
    index = open(os.path.join(BENCH, "README.md")).read()
    named = set(re.findall(r"`((?:studies/|common/)?[a-z_]+\.(?:py|sh))", index))
    helpers = {os.path.join("common", f) for f in os.listdir(os.path.join(BENCH, "common"))
               if f.endswith(".py") and f != "__init__.py"}
    assert set(scripts()) | helpers <= named, sorted(set(scripts()) | helpers - named)


def test_no_bench_script_imports_the_tests():
    for folder, subfolders, files in os.walk(BENCH):
        subfolders[:] = [f for f in subfolders if f != "out"]  # bench/out: a run's outputs, not the project's
        for name in files:
            if name.endswith((".py", ".sh")):
                text = open(os.path.join(folder, name)).read()
                assert not re.search(r"""sys\.path\.insert\([^)]*["']tests["']|from (wfhelpers|hspsets|oracle|generate|conftest) import""",
                                     text), os.path.join(folder, name)
