"""Assembly gaps (runs of N) in alignments: an N's base is unknown, so a column holding one scores 0 in
the fills, the ends' extensions and the drop scores (scoring.h's column_score; the oracle,
tests/oracle_align.py, checks every piece of that on drawn chains). Here, end to end through `align`: an
alignment crosses a gap where both sides go on collinearly, and ends at one it cannot cross with its
flanks kept; identities leave the unknown columns out."""
import numpy as np
import pytest

from gpu_kernels.__main__ import main

LETTERS = np.frombuffer(b"ACGTN", dtype=np.uint8)


def write(path, name: str, codes: np.ndarray) -> str:
    path.write_bytes(b">" + name.encode() + b"\n" + LETTERS[codes].tobytes() + b"\n")
    return str(path)


def gapped_pair(tmp_path, length: int, runs: list[tuple[str, int, int]], seed: int = 5):
    """A query 2 % substituted from a random reference of `length` bases (not within 20 bases of a
    run), then runs (side, start, bases) of N written over either."""
    rng = np.random.default_rng(seed)
    reference = rng.integers(0, 4, length).astype(np.uint8)
    query = reference.copy()
    hit = rng.random(length) < 0.02
    query[hit] = (query[hit] + rng.integers(1, 4, int(hit.sum()))) % 4
    for side, start, bases in runs:  # a flank's last bases unsubstituted: an extension ends at its best cell
        query[start - 20:start + bases + 20] = reference[start - 20:start + bases + 20]
        (query if side == "q" else reference)[start:start + bases] = 4
    return write(tmp_path / "q.fa", "q", query), write(tmp_path / "r.fa", "r", reference)


def aligned(tmp_path, query: str, reference: str, *options) -> list[tuple[int, int, int, int]]:
    paf = tmp_path / "a.paf"
    assert main(["align", query, reference, "-o", str(paf), "--backend", "numpy", *options]) == 0
    rows = [line.split("\t") for line in paf.read_text().splitlines()]
    return sorted((int(r[2]), int(r[3]), int(r[7]), int(r[8])) for r in rows)


@pytest.mark.parametrize("strand", ["+", "-"])
def test_an_alignment_crosses_n_runs_of_100_where_both_sides_go_on(tmp_path, strand):
    """A run of 100 N in the reference and another in the query, each inside a collinear stretch: one
    alignment from end to end (with N against a base as a mismatch it was cut at both, as nucmer's)."""
    query, reference = gapped_pair(tmp_path, 120_000, [("r", 40_000, 100), ("q", 80_000, 100)])
    if strand == "-":
        from gpu_kernels.fasta import read_fasta

        codes = next(iter(read_fasta(query))).codes
        query = write(tmp_path / "q_minus.fa", "q", np.where(codes < 4, 3 - codes, codes)[::-1])
    assert aligned(tmp_path, query, reference) == [(0, 120_000, 0, 120_000)]


def test_an_n_run_of_50000_ends_both_alignments_at_its_edges(tmp_path):
    """50,000 N in the reference: no chain bridges it (max_gap), so the alignments on either side end
    at it, each with its flank to the last base (the extension does not stop short of the run)."""
    query, reference = gapped_pair(tmp_path, 160_000, [("r", 50_000, 50_000)])
    assert aligned(tmp_path, query, reference) == [(0, 50_000, 0, 50_000), (100_000, 160_000, 100_000, 160_000)]


def test_an_unsized_gap_keeps_both_flanks(tmp_path):
    """A gap of unknown size (100 N in the query where the reference holds 2,000 bases): the long indel
    splits the alignment (split_indel), and each side keeps its flank up to the N run."""
    rng = np.random.default_rng(9)
    reference = rng.integers(0, 4, 100_000).astype(np.uint8)
    query = np.concatenate((reference[:50_000], np.full(100, 4, np.uint8), reference[52_000:]))
    q, r = write(tmp_path / "q.fa", "q", query), write(tmp_path / "r.fa", "r", reference)
    rows = aligned(tmp_path, q, r)
    assert rows[0][:3] == (0, 50_000, 0) and rows[0][3] >= 50_000
    assert rows[-1][1:] == (98_100, 52_000, 100_000) and rows[-1][0] <= 50_100


def test_identities_leave_the_unknown_columns_out(tmp_path):
    """The table counts an alignment's N columns (`unknown`, of its mismatches), and the ANI of the
    pair is that of its known columns: a copy with 5,000 N written in has the ANI of the copy."""
    import pyarrow.parquet as pq

    from gpu_kernels.ani import pair_ani

    query, reference = gapped_pair(tmp_path, 120_000, [("q", 60_000, 5_000)])
    table = tmp_path / "a.parquet"
    assert main(["align", query, reference, "--table", str(table), "--backend", "numpy"]) == 0
    al = {name: np.asarray(v) for name, v in pq.read_table(table).to_pydict().items() if name != "cigar"}
    assert al["unknown"].sum() == 5_000 and (al["mismatches"] >= al["unknown"]).all()
    row = pair_ani(al, [120_000], [120_000])
    assert 97.8 < row["ani"] < 98.2 and row["mismatches"] == al["mismatches"].sum() - 5_000
