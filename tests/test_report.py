"""The report command (gpu_kernels/report.py): one command, one folder, dnadiff's sections and field
names; its figures agree with the files beside it, and its aligned bases with dnadiff's on the
bundled pair (within 1 %) where MUMmer is installed."""
import gzip
import re
import shutil
import subprocess

import numpy as np
import pytest

from conftest import MYCO_232, MYCO_7422
from gpu_kernels.__main__ import main
from gpu_kernels.report import covered


def fields(text: str) -> dict:
    """{field: (REF value, QRY value)} of a dnadiff-style report."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and not line.startswith("["):
            out.setdefault(parts[0], (parts[1], parts[2]))
    return out


def count(value: str) -> int:
    return int(value.split("(")[0])


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    reference = folder / "7422.fa"
    with gzip.open(MYCO_7422, "rb") as source, open(reference, "wb") as target:
        shutil.copyfileobj(source, target)
    out = folder / "out"
    assert main(["report", MYCO_232, str(reference), "-o", str(out), "--backend", "numpy"]) == 0
    return out, reference


def test_one_folder_with_the_files_and_dnadiffs_sections(report):
    out, _ = report
    for name in ("report.txt", "records.tsv", "dotplot.png", "alignments.paf", "alignments.delta", "variants.vcf",
                 "alignments.parquet", "chains.parquet"):
        assert (out / name).stat().st_size > 0, name
    text = (out / "report.txt").read_text()
    for section in ("[Sequences]", "[Bases]", "[Alignments]", "[Feature Estimates]", "[SNPs]"):
        assert section in text
    got = fields(text)
    for name in ("TotalSeqs", "AlignedBases", "AvgIdentity", "Breakpoints", "Relocations", "Translocations",
                 "Inversions", "Insertions", "TotalSNPs", "TotalIndels", "1-to-1"):
        assert name in got, name


def test_its_figures_are_the_files(report):
    out, _ = report
    got = fields((out / "report.txt").read_text())
    import re

    paf = [line.split("\t") for line in open(out / "alignments.paf")]
    one = [row for row in paf if "tp:A:P" in row]
    # the one-to-one rows' substitutions between known bases and their indel bases, as show-snps lists them
    cs = [next(t for t in row if t.startswith("cs:Z:")) for row in one]
    assert count(got["TotalSNPs"][0]) == sum(len(re.findall(r"\*[acgt][acgt]", c)) for c in cs) > 10_000
    cigars = [next(t for t in row if t.startswith("cg:Z:")) for row in one]
    assert count(got["TotalIndels"][0]) == sum(int(n) for c in cigars for n in re.findall(r"(\d+)[ID]", c))
    for column, side in ((2, 1), (7, 0)):  # query start, reference start: the union of the spans, base by base
        spans = {rows: set() for rows in ("one", "all")}
        for row in paf:
            for rows in ("one", "all") if "tp:A:P" in row else ("all",):
                spans[rows].update((row[column - 2], x) for x in range(int(row[column]), int(row[column + 1])))
        # the many-to-many set's: at least the one-to-one rows', at most every row's
        assert len(spans["one"]) <= count(got["AlignedBases"][side]) <= len(spans["all"])
    assert count(got["1-to-1"][0]) == len(one) <= count(got["M-to-M"][0]) <= len(paf)
    assert count(got["Inversions"][1]) > 0  # the bundled pair's inverted stretch


def test_aligned_bases_within_a_percent_of_dnadiffs(report, tmp_path):
    out, reference = report
    if shutil.which("dnadiff") is None:
        pytest.skip("MUMmer's dnadiff not installed (CI installs mummer)")
    query = tmp_path / "232.fa"
    with gzip.open(MYCO_232, "rb") as source, open(query, "wb") as target:
        shutil.copyfileobj(source, target)
    subprocess.run(["dnadiff", str(reference), str(query), "-p", str(tmp_path / "dd")], check=True,
                   capture_output=True)
    theirs, ours = fields((tmp_path / "dd.report").read_text()), fields((out / "report.txt").read_text())
    for side in (0, 1):
        assert abs(count(ours["AlignedBases"][side]) / count(theirs["AlignedBases"][side]) - 1) < 0.01


def test_covered_is_the_union_of_the_intervals():
    rng = np.random.default_rng(2)
    starts = rng.integers(0, 900, 300)
    ends = starts + rng.integers(0, 120, 300)
    recs = rng.integers(0, 4, 300)
    want = [len({b for s, e, r in zip(starts, ends, recs) if r == rec for b in range(s, e)}) for rec in range(5)]
    assert covered(starts, ends, recs, 5).tolist() == want


def test_a_folder_that_is_a_file_is_one_line(tmp_path, capsys):
    target = tmp_path / "taken"
    target.write_text("x")
    assert main(["report", MYCO_232, MYCO_7422, "-o", str(target), "--backend", "numpy"]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"error: .*taken.*not a folder\n", err), err
    assert target.read_text() == "x"


def test_a_pair_with_nothing_in_common_reports_zeros(tmp_path):
    rng = np.random.default_rng(6)
    for name in "ab":
        (tmp_path / f"{name}.fa").write_text(f">{name}\n{''.join(rng.choice(list('ACGT'), 5_000))}\n")
    out = tmp_path / "out"
    assert main(["report", str(tmp_path / "a.fa"), str(tmp_path / "b.fa"), "-o", str(out), "--backend", "numpy"]) == 0
    got = fields((out / "report.txt").read_text())
    assert count(got["AlignedBases"][0]) == count(got["TotalSNPs"][1]) == count(got["1-to-1"][0]) == 0
    assert got["UnalignedSeqs"] == ("1(100.00%)", "1(100.00%)")


def test_many_to_many_is_dnadiffs_on_a_duplicated_record(tmp_path):
    """A query holding both reference records and an exact copy of half of one: dnadiff aligns all three
    (M-to-M 3, every query base aligned), where the one-to-one set alone leaves the copy out (it was
    "UnalignedSeqs 1 (33.33 %)"); ours gives dnadiff's figures."""
    if shutil.which("dnadiff") is None:
        pytest.skip("MUMmer's dnadiff not installed (CI installs mummer)")
    import numpy as np

    rng = np.random.default_rng(3)
    a, b = ("".join(rng.choice(list("ACGT"), n)) for n in (300_000, 200_000))
    (tmp_path / "r.fa").write_text(f">a\n{a}\n>b\n{b}\n")
    (tmp_path / "q.fa").write_text(f">a\n{a}\n>b\n{b}\n>a_copy\n{a[:150_000]}\n")
    assert main(["report", str(tmp_path / "q.fa"), str(tmp_path / "r.fa"), "-o", str(tmp_path / "out"),
                 "--backend", "numpy"]) == 0
    subprocess.run(["dnadiff", str(tmp_path / "r.fa"), str(tmp_path / "q.fa"), "-p", str(tmp_path / "dd")],
                   check=True, capture_output=True)
    ours, theirs = fields((tmp_path / "out" / "report.txt").read_text()), fields((tmp_path / "dd.report").read_text())
    for name in ("AlignedSeqs", "UnalignedSeqs", "AlignedBases", "1-to-1", "M-to-M", "TotalLength"):
        assert ours[name] == theirs[name], name
    assert ours["AlignedSeqs"][1] == "3(100.00%)"
