"""The warm command (gpu_kernels/warm.py): its refusal without a GPU, its input, its large-table rehearsal."""
import os
import subprocess
import sys

from conftest import ROOT
from gpu_kernels import Params
from gpu_kernels.backend import NumpyBackend
from gpu_kernels.chains import chain_hsps
from gpu_kernels.hsps import sort_rows
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
