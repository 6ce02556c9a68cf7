"""Bad input: one line naming file, record and problem; exit status 2; no traceback; no output file."""
import gzip
import os
import random
import subprocess
import sys

import pytest

from conftest import ROOT

_RNG = random.Random(1)
GOOD = ">g\n" + "".join(_RNG.choice("ACGT") for _ in range(200)) + "\n"


def run_cli(tmp_path, query_text, ref_text=GOOD, *options, raw=False):
    q = tmp_path / "q.fa"
    r = tmp_path / "r.fa"
    (q.write_bytes if raw else q.write_text)(query_text)
    r.write_text(ref_text)
    out = tmp_path / "out.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(q), str(r), "-o", str(out), *options],
                          cwd=ROOT, capture_output=True, text=True)
    return proc, out


@pytest.mark.parametrize("text, expected", [
    ("ACGT\n>x\nACGT\n", "before the first '>'"),
    (">a\n\n>b\n" + "ACGT" * 20 + "\n", "record 'a': empty record"),
    (">a\n" + "ACGT" * 20 + "\n>a\n" + "ACGT" * 20 + "\n", "record 'a': duplicate record name"),
    (">a\nACGT\n", "record 'a': 4 bp is shorter than k = 32"),
    (">a\n" + "N" * 100 + "\n", "record 'a': no A, C, G or T"),
    (">\n" + "ACGT" * 20 + "\n", "empty record name"),
    (">a\nACGT12ACGT" + "ACGT" * 20 + "\n", "unexpected character '1'"),
    ("", "empty file"),
])
def test_malformed_fasta(tmp_path, text, expected):
    proc, out = run_cli(tmp_path, text)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and "q.fa" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_binary_bytes(tmp_path):
    proc, out = run_cli(tmp_path, b">a\n\x00\x01\x02\xff" + b"ACGT" * 20, raw=True)
    assert proc.returncode == 2 and "binary" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


@pytest.mark.parametrize("options, expected", [
    (["--k", "7"], "k = 7 is outside 8..32"),
    (["--k", "33"], "k = 33 is outside 8..32"),
    (["--min-identity", "101"], "min_identity = 101.0 is outside 0..100"),
    (["--min-identity", "-1"], "outside 0..100"),
])
def test_bad_parameters(tmp_path, options, expected):
    proc, out = run_cli(tmp_path, GOOD, GOOD, *options)
    assert proc.returncode == 2 and expected in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_missing_file(tmp_path):
    out = tmp_path / "out.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(tmp_path / "nope.fa"), str(tmp_path / "nope.fa"),
                           "-o", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "nope.fa: no such file" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


def test_gzip_and_good_run(tmp_path):
    q = tmp_path / "q.fa.gz"
    with gzip.open(q, "wt") as handle:
        handle.write(GOOD.lower())
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    out = tmp_path / "out.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(q), str(r), "-o", str(out), "--min-len", "32"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert rows and rows[0][:4] == ["g", "200", "0", "200"] and rows[0][4] == "+" and rows[0][9] == "200"
    assert proc.stdout.startswith("1 HSPs (1 forward, 0 reverse)")
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".part")]


def test_version():
    """--version names the program and the installed version (the console script is the same entry point)."""
    import gpu_kernels

    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "--version"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == f"gpu-genome-compare {gpu_kernels.__version__}"
