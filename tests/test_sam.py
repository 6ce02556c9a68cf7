"""align --sam as minimap2 writes an assembly's alignments, and --delta as MUMmer's tools read it from any
folder: samtools quickcheck, view, sort, index, stats, coverage and calmd on the bundled pair and on a
draft of many contigs; one primary line a query record; names SAM cannot hold refused before any output;
show-coords, show-snps, show-aligns, dnadiff and mummerplot on the delta of gzipped inputs, run from another
folder, the bundled pair's and a draft's."""
import gzip
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import MYCO_232, MYCO_7422, ROOT

SAMTOOLS = shutil.which("samtools")
needs_samtools = pytest.mark.skipif(SAMTOOLS is None, reason="samtools not installed (Debian's samtools; CI has it)")


def align(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "gpu_kernels", "align", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "PYTHONPATH": ROOT})


def records(path) -> dict:
    with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as handle:
        text = handle.read()
    return {chunk.split("\n", 1)[0].split()[0]: chunk.split("\n", 1)[1].replace("\n", "")
            for chunk in text.split(">")[1:]}


def draft(tmp_path):
    """The bundled query cut into contigs of 20-90 kb (a draft assembly), as a plain FASTA."""
    (name, seq), = records(MYCO_7422).items()
    rng = np.random.default_rng(3)
    cuts = np.cumsum(rng.integers(20_000, 90_000, 40))
    cuts = [0, *[int(c) for c in cuts if c < len(seq)], len(seq)]
    path = tmp_path / "draft.fa"
    path.write_text("".join(f">contig_{i + 1}\n{seq[lo:hi]}\n" for i, (lo, hi) in enumerate(zip(cuts, cuts[1:]))))
    return path


def sam_lines(path) -> list[list[str]]:
    return [line.split("\t") for line in open(path).read().splitlines() if not line.startswith("@")]


@needs_samtools
@pytest.mark.parametrize("which", ["bundled", "draft"])
def test_sam_passes_samtools_with_one_primary_line_a_query_record(tmp_path, which):
    query = MYCO_7422 if which == "bundled" else draft(tmp_path)
    reference = tmp_path / "ref.fa"
    reference.write_text("".join(f">{n}\n{s}\n" for n, s in records(MYCO_232).items()))
    sam, paf = tmp_path / "a.sam", tmp_path / "a.paf"
    proc = align(query, reference, "--sam", sam, "-o", paf, "--secondary")
    assert proc.returncode == 0, proc.stderr
    rows = sam_lines(sam)
    tags = [next(t for t in line.split("\t") if t.startswith("tp:A:")) for line in paf.read_text().splitlines()]
    assert len(rows) == len(tags) > 0 and "tp:A:S" in tags  # the same rows in the same order
    flags = np.array([int(r[1]) for r in rows])
    primary = (flags & (256 | 2048)) == 0
    # one primary line on each aligned query record; its other one-to-one rows supplementary, the rest
    # secondary (a record with secondary rows alone has its best one as primary)
    assert sorted(r[0] for r, p in zip(rows, primary) if p) == sorted({r[0] for r in rows})
    one_to_one = {r[0] for r, t in zip(rows, tags) if t == "tp:A:P"}
    for row, flag, tag in zip(rows, flags, tags):
        if tag == "tp:A:P":
            assert flag & 256 == 0
        else:
            assert flag & 2048 == 0 and (flag & 256 or row[0] not in one_to_one)
    sequences = records(query)
    for row, flag in zip(rows, flags):
        seq = row[9]
        if flag & 256:
            assert seq == "*" and "S" not in row[5]
        elif flag & 2048:
            assert "S" not in row[5] and len(seq) > 0
        else:  # the whole record, reverse-complemented on the reverse strand
            whole = sequences[row[0]]
            expected = whole[::-1].translate(str.maketrans("ACGT", "TGCA")) if flag & 16 else whole
            assert seq == expected.upper() and "H" not in row[5]
    run = lambda *a: subprocess.run([SAMTOOLS, *map(str, a)], capture_output=True, text=True, check=True)  # noqa: E731
    run("quickcheck", sam)
    assert int(run("view", "-c", sam).stdout) == len(rows)
    run("faidx", reference)
    bam = tmp_path / "a.bam"
    run("sort", "-o", bam, sam)
    run("index", bam)
    stats = {line.split("\t")[1].rstrip(":"): line.split("\t")[2] for line in run("stats", bam).stdout.splitlines()
             if line.startswith("SN\t")}
    assert int(stats["sequences"]) == int(primary.sum()) and int(stats["reads mapped"]) == int(primary.sum())
    assert int(stats["total length"]) == sum(len(sequences[r[0]]) for r, p in zip(rows, primary) if p)
    coverage = run("coverage", bam).stdout.splitlines()
    assert len(coverage) == 2 and float(coverage[1].split("\t")[5]) > 50  # % of the reference covered
    # calmd recomputes NM from SEQ and the reference: ours must be what it finds
    filled = run("calmd", sam, reference).stdout
    ours = {(r[0], r[1], r[3], r[5][:40]): r[11] for r in rows if r[9] != "*"}
    theirs = {(r[0], r[1], r[3], r[5][:40]): next(t for t in r[11:] if t.startswith("NM:i:"))
              for r in (line.split("\t") for line in filled.splitlines() if not line.startswith("@")) if r[9] != "*"}
    assert ours == theirs and ours


def test_sam_without_seq_and_names_sam_cannot_hold(tmp_path):
    sam = tmp_path / "a.sam"
    assert align(MYCO_7422, MYCO_232, "--sam", sam, "--sam-no-seq").returncode == 0
    assert {r[9] for r in sam_lines(sam)} == {"*"}
    seq = "".join(records(MYCO_232).values())[:60_000]
    for label, query_name, reference_name in (("long", "q" * 255, "r"), ("star", "q", "*"), ("equals", "q", "=x")):
        query, reference = tmp_path / f"{label}_q.fa", tmp_path / f"{label}_r.fa"
        query.write_text(f">{query_name}\n{seq}\n")
        reference.write_text(f">{reference_name}\n{seq}\n")
        out, paf = tmp_path / f"{label}.sam", tmp_path / f"{label}.paf"
        proc = align(query, reference, "--sam", out, "-o", paf)
        assert proc.returncode != 0 and "cannot be written in SAM" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
        assert not out.exists() and not paf.exists()


@pytest.mark.skipif(shutil.which("show-snps") is None, reason="MUMmer not installed")
@pytest.mark.parametrize("which", ["bundled", "draft"])
def test_delta_of_gzipped_inputs_is_read_from_any_folder(tmp_path, which):
    """The bundled pair is gzipped, which show-snps reads as binary: the delta names plain copies beside
    it, by absolute paths, and MUMmer's tools read it from another folder; a draft's too."""
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    if which == "bundled":
        shutil.copy(MYCO_7422, work / "q.fa.gz")
    else:
        with open(draft(tmp_path), "rb") as source, gzip.open(work / "q.fa.gz", "wb") as target:
            shutil.copyfileobj(source, target)
    shutil.copy(MYCO_232, work / "r.fa.gz")
    assert align("q.fa.gz", "r.fa.gz", "--delta", "a.delta", "-o", "a.paf", cwd=work).returncode == 0
    reference_path, query_path = (work / "a.delta").read_text().splitlines()[0].split()
    assert os.path.isabs(reference_path) and os.path.isabs(query_path)
    assert records(reference_path) == records(MYCO_232)
    assert records(query_path) == records(work / "q.fa.gz")
    delta = str(work / "a.delta")
    run = lambda *a: subprocess.run(list(a), capture_output=True, text=True, cwd=elsewhere)  # noqa: E731
    coords = run("show-coords", "-THr", delta)
    snps = run("show-snps", "-THr", delta)
    assert coords.returncode == 0 and snps.returncode == 0 and len(snps.stdout.splitlines()) > 1000
    rname, qname = coords.stdout.splitlines()[0].split("\t")[-2:]  # a pair that aligns
    aligns = run("show-aligns", delta, rname, qname)
    assert aligns.returncode == 0 and "BEGIN alignment" in aligns.stdout
    dnadiff = run("dnadiff", "-d", delta, "-p", "dd")
    assert dnadiff.returncode == 0, dnadiff.stderr
    assert "TotalSNPs" in (elsewhere / "dd.report").read_text()
    if shutil.which("gnuplot"):  # mummerplot draws with it (CI installs gnuplot-nox)
        plot = run("mummerplot", "--png", "-p", "mp", delta)
        assert plot.returncode == 0, plot.stderr
        assert (elsewhere / "mp.png").stat().st_size > 1000
        forward = (elsewhere / "mp.fplot").read_text().split()
        assert len(forward) > 10  # the forward alignments' segments, as mummerplot read them
