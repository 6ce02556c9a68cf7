"""align --maf and --psl read by the real tools: LAST's maf-convert (its PSL of our MAF equal to our PSL,
line for line; its SAM and BLAST tab), bx-python's MAF reader and Biopython's MAF and PSL parsers; every
MAF row and PSL block checked against the sequences. On the bundled pair, a draft of many contigs with
reverse-strand alignments and a distant-preset pair; gzip where the name ends in .gz."""
import gzip
import random
import shutil
import subprocess

import numpy as np
import pytest

from conftest import MYCO_232, MYCO_7422
from generate import invert, mutate
from test_sam import align, draft, records

MAF_CONVERT = shutil.which("maf-convert")
needs_last = pytest.mark.skipif(MAF_CONVERT is None, reason="LAST's maf-convert not installed (Debian's last-align)")
COMPLEMENT = str.maketrans("ACGTN", "TGCAN")


def letters(seq: str) -> str:
    """Sequence letters as MAF writes them: upper case, any letter but A, C, G and T an N."""
    upper = seq.upper()
    return "".join(c if c in "ACGT" else "N" for c in upper) if set(upper) - set("ACGT") else upper


def distant_pair(tmp_path):
    """Two records 15 % substituted and 3 % indels apart, with an inversion: the distant preset's ground."""
    rng = random.Random(11)
    ancestor = "".join(rng.choice("ACGT") for _ in range(60_000))
    query = invert(mutate(ancestor, rng, 0.15, 0.03), rng)
    ref, qry = tmp_path / "ref.fa", tmp_path / "query.fa"
    ref.write_text(f">anc\n{ancestor}\n")
    qry.write_text(f">desc\n{query}\n")
    return qry, ref


def inputs(tmp_path, which):
    if which == "distant":
        query, reference = distant_pair(tmp_path)
        return query, reference, ["--preset", "distant"]
    reference = tmp_path / "ref.fa"
    reference.write_text("".join(f">{n}\n{s}\n" for n, s in records(MYCO_232).items()))
    return (MYCO_7422 if which == "bundled" else draft(tmp_path)), reference, ["--secondary"]


def maf_blocks(path) -> list:
    """(score, reference line fields, query line fields) a block."""
    blocks, score, lines = [], None, []
    for line in open(path).read().splitlines():
        if line.startswith("a "):
            score, lines = int(line.split("score=")[1]), []
        elif line.startswith("s "):
            lines.append(line.split())
            if len(lines) == 2:
                blocks.append((score, *lines))
    return blocks


@pytest.mark.parametrize("which", ["bundled", "draft", "distant"])
def test_maf_and_psl_hold_the_sequences_and_the_tools_read_them(tmp_path, which):
    query, reference, options = inputs(tmp_path, which)
    maf, psl, paf = tmp_path / "a.maf", tmp_path / "a.psl", tmp_path / "a.paf"
    proc = align(query, reference, "--maf", maf, "--psl", psl, "-o", paf, *options)
    assert proc.returncode == 0, proc.stderr
    pafs = [line.split("\t") for line in paf.read_text().splitlines()]
    blocks, lines = maf_blocks(maf), [line.split("\t") for line in psl.read_text().splitlines()]
    assert len(blocks) == len(lines) == len(pafs) > 0
    if which != "bundled":
        assert any(p[4] == "-" for p in pafs)  # reverse-strand alignments among them
    qseqs, rseqs = ({n: letters(s) for n, s in records(f).items()} for f in (query, reference))
    for (score, r, q), p, line in zip(blocks, pafs, lines):
        assert (q[1], r[1], int(r[2]), int(r[2]) + int(r[3])) == (p[0], p[5], int(p[7]), int(p[8]))
        assert score == int(next(t for t in p if t.startswith("AS:i:"))[5:]) and q[4] == p[4]
        rrow, qrow = r[6], q[6]
        assert len(rrow) == len(qrow) and not any(a == b == "-" for a, b in zip(rrow, qrow))
        qseq = qseqs[q[1]] if q[4] == "+" else qseqs[q[1]].translate(COMPLEMENT)[::-1]
        assert rrow.replace("-", "") == rseqs[r[1]][int(r[2]):int(r[2]) + int(r[3])]
        assert qrow.replace("-", "") == qseq[int(q[2]):int(q[2]) + int(q[3])] and int(q[5]) == len(qseq)
        # the PSL line: its counts and blocks made again from the sequences
        matches, mismatches, rep, n_count = map(int, line[:4])
        sizes, qstarts, tstarts = ([int(x) for x in line[k].rstrip(",").split(",")] for k in (18, 19, 20))
        assert rep == 0 and int(line[17]) == len(sizes) and line[8] == q[4]
        assert (line[9], line[13], int(line[15]), int(line[16])) == (q[1], r[1], int(p[7]), int(p[8]))
        assert (int(line[11]), int(line[12])) == (int(p[2]), int(p[3]))
        pairs = [(rseqs[r[1]][t + i], qseq[s + i]) for size, s, t in zip(sizes, qstarts, tstarts) for i in range(size)]
        assert matches == sum(a == b != "N" for a, b in pairs) and n_count == sum("N" in (a, b) for a, b in pairs)
        assert mismatches == len(pairs) - matches - n_count
        assert int(line[5]) == int(line[12]) - int(line[11]) - len(pairs)  # qBaseInsert
        assert int(line[7]) == int(line[16]) - int(line[15]) - len(pairs)  # tBaseInsert
        assert rrow.count("-") == int(line[5]) and qrow.count("-") == int(line[7])
    if MAF_CONVERT:
        converted = subprocess.run([MAF_CONVERT, "psl", str(maf)], capture_output=True, text=True, check=True).stdout
        assert converted == psl.read_text()
        for kind, skip in (("sam", "@"), ("blasttab", "#")):
            out = subprocess.run([MAF_CONVERT, kind, str(maf)], capture_output=True, text=True, check=True).stdout
            assert len([x for x in out.splitlines() if not x.startswith(skip)]) == len(blocks)
    bx = pytest.importorskip("bx.align.maf")
    with open(maf) as handle:
        read = list(bx.Reader(handle))
    assert [(b.components[0].src, b.components[1].src, b.components[1].strand) for b in read] == \
        [(r[1], q[1], q[4]) for _, r, q in blocks]
    assert all(c.size == len(c.text.replace("-", "")) for b in read for c in b.components)
    from Bio import Align

    assert len(list(Align.parse(str(maf), "maf"))) == len(blocks)
    parsed = list(Align.parse(str(psl), "psl"))
    assert [(a.target.id, a.query.id) for a in parsed] == [(line[13], line[9]) for line in lines]
    assert [a.matches for a in parsed] == [int(line[0]) for line in lines]


def test_gzipped_maf_and_psl_are_the_plain_ones(tmp_path):
    """Names ending in .gz are written gzipped (a member a slice of rows); gunzipped they are the plain
    files, and maf-convert and Biopython read them as they are."""
    query, reference, options = inputs(tmp_path, "draft")
    plain = align(query, reference, "--maf", tmp_path / "a.maf", "--psl", tmp_path / "a.psl", *options,
                  "-o", tmp_path / "a.paf")
    zipped = align(query, reference, "--maf", tmp_path / "b.maf.gz", "--psl", tmp_path / "b.psl.gz", *options,
                   "-o", tmp_path / "b.paf")
    assert plain.returncode == zipped.returncode == 0, plain.stderr + zipped.stderr
    for kind in ("maf", "psl"):
        packed = (tmp_path / f"b.{kind}.gz").read_bytes()
        assert packed[:2] == b"\x1f\x8b" and len(packed) < (tmp_path / f"a.{kind}").stat().st_size
        command = lambda text: [line for line in text.splitlines() if not line.startswith(b"# ")]  # names the file
        assert command(gzip.decompress(packed)) == command((tmp_path / f"a.{kind}").read_bytes())
    if MAF_CONVERT:
        converted = subprocess.run(f"gzip -dc {tmp_path / 'b.maf.gz'} | {MAF_CONVERT} psl -", shell=True,
                                   capture_output=True, text=True, check=True).stdout
        assert converted == (tmp_path / "a.psl").read_text()


def test_an_empty_run_writes_valid_empty_files(tmp_path):
    """No alignment: the MAF has its header alone, the PSL nothing, and a gzipped one is still gzip."""
    rng = np.random.default_rng(1)
    for name in ("q", "r"):
        (tmp_path / f"{name}.fa").write_text(f">{name}\n{''.join(rng.choice(list('ACGT'), 5000))}\n")
    proc = align(tmp_path / "q.fa", tmp_path / "r.fa", "--maf", tmp_path / "a.maf", "--psl", tmp_path / "a.psl.gz")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "a.maf").read_text().startswith("##maf version=1")
    assert gzip.decompress((tmp_path / "a.psl.gz").read_bytes()) == b""
