"""The exact-match modes' batches held to a budget of matches (match_batches.py): long reads against a
genome of young repeat copies were killed at 130.8 GB of host memory (issue 77), holding every tile's
matches and batches cut by bases alone."""
import os

import numpy as np
import pytest

from gpu_kernels import match_batches, matches
from gpu_kernels.backend import NumpyBackend
from gpu_kernels.schema import MATCH
from gpu_kernels.seqset import make_seqset


def repeat_rich(seed: int = 7):
    """Four reference records holding 30 copies each of one 600-base unit (1 % apart), and 40 reads
    drawn from them with 4 % substitutions: a read in a copy matches every other copy."""
    rng = np.random.default_rng(seed)
    unit = rng.integers(0, 4, 600).astype(np.uint8)
    records = []
    for _ in range(4):
        seq = rng.integers(0, 4, 40_000).astype(np.uint8)
        for at in rng.choice(np.arange(0, 39_000, 1_200), 30, replace=False):
            copy = unit.copy()
            hit = rng.random(600) < 0.01
            copy[hit] = (copy[hit] + rng.integers(1, 4, int(hit.sum()))) % 4
            seq[at:at + 600] = copy
        records.append(seq)
    reads = []
    for _ in range(40):
        source = records[int(rng.integers(4))]
        at, length = int(rng.integers(0, 37_000)), int(rng.integers(500, 3_000))
        read = source[at:at + length].copy()
        hit = rng.random(read.size) < 0.04
        read[hit] = (read[hit] + rng.integers(1, 4, int(hit.sum()))) % 4
        reads.append(read if rng.random() < 0.5 else (3 - read[::-1]).copy())
    query = make_seqset([f"read{i}" for i in range(40)], reads)
    reference = make_seqset([f"chr{i}" for i in range(4)], records)
    return query, reference


@pytest.mark.parametrize("unique", [False, True])
@pytest.mark.parametrize("tile", [0, 90_000])
def test_batches_cut_by_their_matches_change_nothing(unique, tile, monkeypatch):
    """With a budget of 500 matches, far under the run's, every batch of two records or more holds at
    most 500 (a record alone holds what it finds), with and without reference tiles, and the rows are
    one pass's, in its order; the tiles' folder is gone afterwards."""
    query, reference = repeat_rich()
    backend = NumpyBackend()
    one = matches.find_matches(query, reference, 20, unique, backend)
    assert one["length"].size > (800 if unique else 5_000)
    folders = []
    made = match_batches.MatchSpill.__init__

    def spy(self, *args):
        made(self, *args)
        folders.append(self.folder)

    monkeypatch.setattr(match_batches.MatchSpill, "__init__", spy)
    batches = list(matches.iter_matches(query, reference, 20, unique, backend, tile_bases=tile, match_rows=500))
    assert len(batches) > 5
    for table, first, end in batches:
        assert table["length"].size <= 500 or end - first == 1
        assert ((table["qrec"] >= first) & (table["qrec"] < end)).all()
    assert [b[1] for b in batches[1:]] == [b[2] for b in batches[:-1]] and batches[-1][2] == 40
    joined = matches._columns([table for table, _, _ in batches])
    for name in MATCH.names:
        assert np.array_equal(joined[name], one[name]), name
    assert len(folders) == (1 if tile else 0) and not any(os.path.exists(f) for f in folders)


def test_a_batch_past_its_budget_is_matched_again_shorter(caplog):
    """bounded_batches: a run whose matches pass the budget is matched again in shorter runs (the log
    says so) and the next runs are sized from the density met; a record alone has no limit."""
    query, reference = repeat_rich()
    backend = NumpyBackend()
    rcodes = reference.codes
    rwords = matches.reference_words(rcodes, 20)
    limits = []

    def match(batch, limit):
        limits.append((len(batch.names), limit))
        return matches.batch_matches(batch, reference, rcodes, rwords, 20, False, backend, limit)

    with caplog.at_level("INFO", logger="gpu_kernels.match_batches"):
        runs = list(match_batches.bounded_batches(query, match, 10**9, rows=800))
    assert "matched again in runs of" in caplog.text
    assert all(limit is None for n, limit in limits if n == 1) and any(limit == 800 for n, limit in limits)
    assert len(limits) > len(runs) > 1


def test_too_many_matches_on_the_cpu_stops_early():
    """strand_mems past its limit raises with an estimate at least the limit."""
    query, reference = repeat_rich()
    rwords = matches.reference_words(reference.codes, 20)
    everything = matches.strand_mems(query.codes, reference.codes, rwords, 20)[0].size
    with pytest.raises(match_batches.TooManyMatches) as over:
        matches.strand_mems(query.codes, reference.codes, rwords, 20, limit=everything // 4)
    assert over.value.rows > everything // 4
    assert matches.strand_mems(query.codes, reference.codes, rwords, 20, limit=everything)[0].size == everything


def test_paf_of_matches_written_a_batch_at_a_time(tmp_path, monkeypatch):
    """--paf held every batch's matches until the text was written; its rows now go to a writer on a
    thread as each batch comes: the same PAF as one batch. A run stopped midway leaves no PAF."""
    from gpu_kernels import __main__ as cli

    query, reference = repeat_rich()
    letters = np.frombuffer(b"ACGTN", dtype=np.uint8)
    for path, seqs in ((tmp_path / "reads.fa", query), (tmp_path / "ref.fa", reference)):
        path.write_text("".join(f">{name}\n{letters[seqs.codes[s:s + n]].tobytes().decode()}\n"
                                for name, s, n in zip(seqs.names, seqs.starts, seqs.lengths)))
    args = ["mems", str(tmp_path / "reads.fa"), str(tmp_path / "ref.fa"), "-l", "20"]
    assert cli.main(args + ["-o", str(tmp_path / "one.txt"), "--paf", str(tmp_path / "one.paf")]) == 0
    monkeypatch.setattr(matches, "QUERY_BATCH", 5_000)
    monkeypatch.setattr(match_batches, "MATCH_ROWS", 700)
    monkeypatch.setattr(matches, "MATCH_ROWS", 700)
    import time

    from gpu_kernels import formats

    events, found, sliced = [], matches.batch_matches, formats.memory_parts
    monkeypatch.setattr(matches, "batch_matches", lambda *a: time.sleep(0.02) or events.append("found") or found(*a))
    monkeypatch.setattr(formats, "memory_parts", lambda *a: events.append("paf") or sliced(*a))
    assert cli.main(args + ["-o", str(tmp_path / "many.txt"), "--paf", str(tmp_path / "many.paf")]) == 0
    assert events.count("found") > 10 and events.index("paf") < len(events) - 1 - events[::-1].index("found")
    assert (tmp_path / "many.paf").read_bytes() == (tmp_path / "one.paf").read_bytes()
    assert (tmp_path / "many.txt").read_bytes() == (tmp_path / "one.txt").read_bytes()
    assert (tmp_path / "one.paf").read_bytes().count(b"\n") > 5_000
    calls, parts = [], cli.mummer_parts

    def failing(*a, **k):
        calls.append(1)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return parts(*a, **k)

    monkeypatch.setattr(cli, "mummer_parts", failing)
    assert cli.main(args + ["-o", str(tmp_path / "cut.txt"), "--paf", str(tmp_path / "cut.paf")]) != 0
    assert not (tmp_path / "cut.paf").exists() and not (tmp_path / "cut.txt").exists()


def test_a_full_disk_under_the_tiles_is_one_line_naming_tmpdir(tmp_path, monkeypatch, capsys):
    """The tiles' matches wait under $TMPDIR: a full disk there is one line naming that folder and what
    to do (the output file was named, as if it were full), no output is left, nor the folder."""
    import tempfile

    from gpu_kernels import __main__ as cli

    query, reference = repeat_rich()
    letters = np.frombuffer(b"ACGTN", dtype=np.uint8)
    for path, seqs in ((tmp_path / "reads.fa", query), (tmp_path / "ref.fa", reference)):
        path.write_text("".join(f">{name}\n{letters[seqs.codes[s:s + n]].tobytes().decode()}\n"
                                for name, s, n in zip(seqs.names, seqs.starts, seqs.lengths)))
    spills = tmp_path / "spill"
    spills.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spills))

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(match_batches.np, "save", full)
    out = tmp_path / "out.txt"
    assert cli.main(["mems", str(tmp_path / "reads.fa"), str(tmp_path / "ref.fa"), "-l", "20", "--reference-tile",
                     "50000", "-o", str(out)]) != 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and "No space left on device" in lines[0] and "TMPDIR" in lines[0]
    assert str(spills) in lines[0] and not out.exists() and not any(spills.iterdir())
