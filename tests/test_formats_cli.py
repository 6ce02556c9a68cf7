"""The text formats on the command line: standard output, GECKO CSV read by GECKO tools, MUMmer text a
record at a time, variable-width columns, refused paths, every command's options and defaults."""
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import MYCO_232, MYCO_7422, ROOT
from gpu_kernels import Params
from gpu_kernels import formats as F
from gpu_kernels.schema import HSP
from test_formats import myco  # noqa: F401 (a fixture)

COLUMNS = HSP.names


def test_paf_goes_to_standard_output_when_no_output_is_named(tmp_path):
    """As minimap2: no -o and no --hsps writes PAF to standard output (the summary line and, with -v,
    a line per stage to standard error); the same bytes as -o FILE; a closed pipe is not an error."""
    paf = tmp_path / "out.paf"
    base = [sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422]
    to_file = subprocess.run(base + ["-o", str(paf)], cwd=ROOT, capture_output=True, text=True)
    to_stdout = subprocess.run(base + ["-v"], cwd=ROOT, capture_output=True, text=True)
    assert to_file.returncode == to_stdout.returncode == 0, to_stdout.stderr
    assert to_file.stdout == "" and to_stdout.stdout == paf.read_text() and len(to_stdout.stdout.splitlines()) > 500
    for stage in ("load:", "words:", "forward strand:", "reverse strand:", "hsps:", "standard output:"):
        assert stage in to_stdout.stderr
    assert "load:" not in to_file.stderr  # without -v only the summary line
    piped = subprocess.run(" ".join(base) + " | head -n 3", shell=True, cwd=ROOT, capture_output=True, text=True)
    assert len(piped.stdout.splitlines()) == 3 and "Traceback" not in piped.stderr


def test_gecko_csv_reads_as_gecko_and_gecko_mgv_read_it(tmp_path, myco):
    """Checked against the readers: GECKO's csvExtractBorders takes the lengths from lines 6 and 7
    ("%*s %*s : %d") and the fragments from line 17 on (14 comma fields, 0-based inclusive
    coordinates); GECKO-MGV splits header lines 2-12 on ':' and filters similarity (field 10) and
    %ident (field 11) against 0-100 sliders."""
    table, path = tmp_path / "h.parquet", tmp_path / "h.csv"
    myco.write_parquet(str(table))
    F.gecko_csv_from_table(str(table), str(path), "Mhyo232", "Mhyo7422", 10, 5)
    lines = path.read_text().splitlines()
    q, r = myco.query, myco.reference
    assert int(lines[6].split()[3]) == q.lengths.sum() and int(lines[7].split()[3]) == r.lengths.sum()
    assert [line.split(":")[1].strip() for line in lines[2:4]] == ["Mhyo232", "Mhyo7422"]
    assert lines[16].split(",")[10:12] == ["similarity", "%ident"]
    h = myco.hsps
    for i, line in enumerate(lines[17:]):
        f = line.split(",")
        assert len(f) == 14 and f[0] == "Frag" and f[5] == "fr"[h["strand"][i]]
        x0, y0, x1, y1, length, score, ident = (int(f[j]) for j in (1, 2, 3, 4, 7, 8, 9))
        assert (x0, x1 + 1, length, ident) == (h["qstart"][i], h["qend"][i], h["length"][i], h["identities"][i])
        assert (min(y0, y1), max(y0, y1) + 1) == (h["rstart"][i], h["rend"][i]) and (y0 > y1) == bool(h["strand"][i])
        assert 0 < float(f[10]) <= 100 and 80 <= float(f[11]) <= 100
        assert float(f[11]) == round(100 * ident / length, 2)


def test_mummer_text_read_a_record_at_a_time_equals_the_whole_table(tmp_path):
    """write_mummer reads the table a query record at a time: with row groups of 50 rows (records
    split across row groups, records without matches) it prints what the whole table prints."""
    from gpu_kernels.backend import NumpyBackend
    from gpu_kernels.result import write_table
    from gpu_kernels.hsps import sort_rows
    from gpu_kernels.matches import find_matches, hsps_to_matches, matches_to_hsps
    from gpu_kernels.seqset import make_seqset
    from gpu_kernels.fasta import read_fasta
    from gpu_kernels.workflow.genome import Genome
    from gpu_kernels.workflow.merge import write_mummer

    genome = read_fasta(MYCO_7422)[0].codes
    rng = np.random.default_rng(6)
    starts = rng.integers(0, genome.size - 3000, 12)
    names = [f"q{i}" for i in range(12)]
    chunks = [genome[s:s + 2500].copy() if i % 4 else rng.integers(0, 4, 2500).astype(genome.dtype) for i, s in enumerate(starts)]
    for chunk in chunks:  # substitutions every ~25 bases: many MEMs a record
        at = rng.integers(0, chunk.size, 100)
        chunk[at] = (chunk[at] + 1) % 4
    query, reference = make_seqset(names, chunks), make_seqset(["r1", "r2"], [genome[:400_000], genome[400_000:]])
    matches = find_matches(query, reference, 20, False, NumpyBackend())
    hsps = sort_rows(matches_to_hsps(matches, query), 12, 2)
    path = tmp_path / "m.parquet"
    write_table(str(path), hsps, NumpyBackend(), query.names, query.lengths, reference.names, reference.lengths,
                Params(), row_group_rows=50)
    write_mummer(str(path), Genome.of("q", query.names, query.lengths), Genome.of("r", reference.names, reference.lengths),
                 str(tmp_path / "m.txt"))
    whole = F.mummer_parts(hsps_to_matches(hsps, query.lengths), query.names, query.lengths, reference.names)
    expected = b"".join(p() if callable(p) else p for p in whole)
    assert hsps["qstart"].size > 200 and (tmp_path / "m.txt").read_bytes() == expected


def test_a_variable_width_column_is_written_and_copied(tmp_path):
    """A record with a string column (the path a CIGAR column takes): written a row group at a time,
    then its row groups copied byte for byte into another table, read back as written."""
    from gpu_kernels.schema import Column, Record

    record = Record("cigars", [Column("qrec", "int32", "int32"), Column("cigar", "object", "string")],
                    order=("qrec",), views={})
    cigars = np.array([f"{i}M{i % 3}I{i}M" * (i % 4) for i in range(1000)], dtype=object)
    first, second = tmp_path / "a.parquet", tmp_path / "b.parquet"
    with F.HspWriter(str(first), ["q"], [1], ["r"], [1], record=record, row_group_rows=300, threads=3) as writer:
        writer.write({"qrec": np.arange(1000, dtype=np.int32), "cigar": cigars})
    with F.HspWriter(str(second), ["q"], [1], ["r"], [1], record=record) as writer:
        writer.copy_row_groups(str(first))
        writer.copy_row_groups(str(first))
    for path, copies in ((first, 1), (second, 2)):
        table = pq.read_table(path)
        assert pq.ParquetFile(path).num_row_groups == 4 * copies
        assert table.column("cigar").to_pylist() == cigars.tolist() * copies
        assert table.column("qrec").to_pylist() == list(range(1000)) * copies


def test_a_path_ending_in_a_slash_is_refused_as_a_directory(tmp_path):
    """`--chains out/` (a directory that does not exist yet) is refused with the path, not with a
    temporary name."""
    with pytest.raises(IsADirectoryError) as caught:
        with F.atomic_path(str(tmp_path / "missing") + "/"):
            pass
    assert caught.value.filename == str(tmp_path / "missing") + "/" and not (tmp_path / "missing").exists()


def test_paf_writes_to_standard_output_as_compare_does(tmp_path):
    """`paf TABLE` needed -o; now standard output is its default, as compare's, and holds the -o file's rows."""
    import subprocess
    import sys

    from conftest import MYCO_232, MYCO_7422, ROOT

    table = tmp_path / "t.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(table)],
                   check=True, cwd=ROOT, capture_output=True)
    piped = subprocess.run([sys.executable, "-m", "gpu_kernels", "paf", str(table)], check=True, cwd=ROOT,
                           capture_output=True).stdout
    subprocess.run([sys.executable, "-m", "gpu_kernels", "paf", str(table), "-o", str(tmp_path / "t.paf")], check=True,
                   cwd=ROOT, capture_output=True)
    assert piped == (tmp_path / "t.paf").read_bytes() and piped.count(b"\n") > 500


def test_threads_option_on_every_command(tmp_path):
    """-t/--threads on compare, mems, paf and filter (it was only an environment variable; `compare -t 2`
    failed with a misleading message): the same output with one thread; a negative count is one line."""
    import subprocess
    import sys

    from conftest import MYCO_232, MYCO_7422, ROOT

    run = lambda *a: subprocess.run([sys.executable, "-m", "gpu_kernels", *a], cwd=ROOT, capture_output=True)  # noqa: E731
    table = tmp_path / "t.parquet"
    assert run("compare", "-t", "1", MYCO_232, MYCO_7422, "--hsps", str(table), "-o", str(tmp_path / "one.paf")).returncode == 0
    assert run("compare", MYCO_232, MYCO_7422, "-o", str(tmp_path / "all.paf")).returncode == 0
    assert (tmp_path / "one.paf").read_bytes() == (tmp_path / "all.paf").read_bytes()
    assert run("mems", "-t", "1", "-l", "100", MYCO_232, MYCO_7422, "-o", str(tmp_path / "m.txt")).returncode == 0
    assert run("paf", "-t", "1", str(table), "-o", str(tmp_path / "p.paf")).returncode == 0
    assert run("filter", "-t", "1", str(table), "-o", str(tmp_path / "f"), "--no-plots").returncode == 0
    bad = run("compare", "-t", "-2", MYCO_232, MYCO_7422)
    assert bad.returncode == 2 and bad.stderr.decode().strip() == "error: -t -2: threads must be at least 1 (0: the cores)"


def test_every_option_shows_its_default():
    """Every option with a default says it in --help (`--strands` showed none)."""
    import argparse

    from gpu_kernels.__main__ import parser

    top = parser()
    commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, command in commands.items():
        for action in command._actions:
            if action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
                assert "default" in (action.help or ""), (name, action.option_strings)
    assert "(default: both)" in commands["compare"].format_help()
