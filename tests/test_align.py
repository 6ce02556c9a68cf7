"""Gapped alignments against their oracle (tests/oracle_align.py): drawn chains over sequences with
substitutions, indels (near the blocks' ends and borders too), N runs and repeats, on both strands
and several records; and the alignments of the bundled pair."""
import re
import shutil
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import oracle_align
from gpu_kernels import Params
from gpu_kernels.align import align_chains, text_of
from gpu_kernels.encode import COMPLEMENT
from gpu_kernels.seqset import make_seqset

OPS = "=XID"


def mutated(rng, seq, rate: float, indel: float):
    """A copy of seq (codes) with substitutions at rate, indels of 1-20 bases at indel and N runs; and
    the ancestor position of each of its bases (-1 where inserted)."""
    out, origin = [], []
    i = 0
    while i < seq.size:
        u = rng.random()
        if u < indel / 2:
            extra = int(rng.integers(1, 20))
            out.extend(rng.integers(0, 4, extra).tolist())
            origin.extend([-1] * extra)
        elif u < indel:
            i += int(rng.integers(1, 20))
            continue
        elif u < indel + rate:
            out.append(int((seq[i] + rng.integers(1, 4)) % 4))
            origin.append(i)
        elif u < indel + rate + 0.002:
            run = int(rng.integers(1, 6))
            out.extend([4] * run)
            origin.extend([-1] * run)
        else:
            out.append(int(seq[i]))
            origin.append(i)
        i += 1
    return np.array(out, dtype=np.uint8), np.array(origin, dtype=np.int64)


def drawn_case(seed: int, records: int):
    """(query, reference, chains table, blocks): records pairs of sequences from one ancestor each
    (the reference's stored reverse-complemented on some), and chains of ungapped blocks started at
    true column pairs, so indels fall between and inside blocks; some chains lie on other record
    pairs or strands (repeat-like hits). Chain numbers in table order."""
    rng = np.random.default_rng(seed)
    qseqs, rseqs, truth, flips = [], [], [], []
    for _ in range(records):
        ancestor = rng.integers(0, 4, int(rng.integers(300, 900))).astype(np.uint8)
        for _ in range(int(rng.integers(0, 3))):  # microsatellites: no anchor lies wholly in one
            unit = rng.integers(0, 4, int(rng.integers(1, 8))).astype(np.uint8)
            at, size = int(rng.integers(0, ancestor.size - 60)), int(rng.integers(14, 60))
            ancestor[at:at + size] = np.tile(unit, size)[:size]
        qseq, qorigin = mutated(rng, ancestor, 0.03, 0.005)
        rseq, rorigin = mutated(rng, ancestor, float(rng.choice([0.0, 0.05, 0.15])), float(rng.choice([0.0, 0.01])))
        flip = int(rng.integers(2))
        qseqs.append(qseq)
        rseqs.append(COMPLEMENT[rseq[::-1]] if flip else rseq)
        where = {a: k for k, a in enumerate(rorigin.tolist()) if a >= 0}
        truth.append([(k, where[a]) for k, a in enumerate(qorigin.tolist()) if a in where])
        flips.append(flip)
    query = make_seqset([f"q{i}" for i in range(records)], qseqs)
    reference = make_seqset([f"r{i}" for i in range(records)], rseqs)
    chains = {name: [] for name in ("qrec", "rrec", "strand", "backbone")}
    blocks = {name: [] for name in ("chain", "x0", "xe", "y0", "ye")}
    for c in range(int(rng.integers(1, 6))):
        rec = int(rng.integers(records))
        qrec, rrec, strand = rec, rec, flips[rec]
        if rng.random() < 0.25:  # off the truth
            rrec, strand = int(rng.integers(records)), int(rng.integers(2))
        qlen, rlen = qseqs[qrec].size, rseqs[rrec].size
        pairs = truth[rec]
        at = int(rng.integers(0, max(1, len(pairs) // 4)))
        x, y = pairs[at] if pairs else (0, 0)
        while True:
            length = int(rng.integers(5, 120))
            if x + length > qlen or y + length > rlen:
                break
            for name, v in zip(blocks, (c, x, x + length, y, y + length)):
                blocks[name].append(v)
            at = next((k for k in range(at, len(pairs)) if pairs[k][0] >= x + length + int(rng.integers(0, 40))
                       and pairs[k][1] >= y + length), None)
            if at is None:
                break
            x, y = pairs[at]
        if not blocks["chain"] or blocks["chain"][-1] != c:  # a chain of one block at least
            length = min(qlen, rlen, 30)
            for name, v in zip(blocks, (c, 0, length, 0, length)):
                blocks[name].append(v)
        for name, v in zip(chains, (qrec, rrec, strand, int(rng.integers(2)))):
            chains[name].append(v)
    chains = {name: np.array(v, dtype=np.int64) for name, v in chains.items()}
    chains["strand"] = chains["strand"].astype(np.int8)
    return query, reference, chains, {name: np.array(v, dtype=np.int64) for name, v in blocks.items()}


def strand_codes(seqset, rec: int, strand: int) -> list:
    codes = seqset.codes[seqset.starts[rec]:seqset.starts[rec] + seqset.lengths[rec]]
    return (COMPLEMENT[codes[::-1]] if strand else codes).tolist()


def expected(query, reference, chains, blocks, params: Params) -> list:
    """The oracle's alignments of every chain, in chain order, with their CIGARs in PAF's direction."""
    p = SimpleNamespace(**params.as_dict())
    out = []
    for c in range(chains["qrec"].size):
        if not (params.aligning.secondary or chains["backbone"][c]):
            continue
        qrec, rrec, strand = int(chains["qrec"][c]), int(chains["rrec"][c]), int(chains["strand"][c])
        mine = blocks["chain"] == c
        chain_blocks = list(zip(*(blocks[name][mine].tolist() for name in ("x0", "xe", "y0", "ye"))))
        q, r = strand_codes(query, qrec, 0), strand_codes(reference, rrec, strand)
        rlen = int(reference.lengths[rrec])
        for x0, xe, y0, ye, score, ops in oracle_align.align_chain(chain_blocks, q, r, p):
            rstart, rend = (rlen - ye, rlen - y0) if strand else (y0, ye)
            out.append((c, qrec, rrec, strand, x0, xe, rstart, rend, score, cigar(ops[::-1] if strand else ops)))
    return out


def cigar(ops: str) -> str:
    runs, k = [], 0
    while k < len(ops):
        j = k
        while j < len(ops) and ops[j] == ops[k]:
            j += 1
        runs.append(f"{j - k}{ops[k]}")
        k = j
    return "".join(runs)


def found(query, reference, chains, blocks, params: Params, threads: int = 3) -> list:
    got = align_chains(chains, blocks, query, reference, params, threads=threads)
    data, offsets = text_of(got, query, reference, kind="cigar", threads=threads)
    cigars = [data[offsets[k]:offsets[k + 1]].decode() for k in range(offsets.size - 1)]
    columns = [got[name].tolist() for name in ("chain", "qrec", "rrec", "strand", "qstart", "qend", "rstart", "rend",
                                               "score")]
    return [tuple(row) + (c,) for row, c in zip(zip(*columns), cigars)]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), records=st.integers(1, 3), band=st.sampled_from([0, 3, 16]),
       min_anchor=st.sampled_from([4, 12]), zdrop=st.sampled_from([0, 30, 10_000]),
       gap_open=st.sampled_from([0, 5, 6]), gap_extend=st.sampled_from([1, 2]), match=st.sampled_from([1, 2]),
       mismatch=st.sampled_from([1, 3, 4]), secondary=st.booleans(), drop=st.sampled_from([(0, 0), (5, 6), (2, 1)]),
       split_indel=st.sampled_from([0, 1, 3, 50]))
def test_alignments_equal_the_oracle_on_drawn_chains(seed, records, band, min_anchor, zdrop, gap_open, gap_extend,
                                                     match, mismatch, secondary, drop, split_indel):
    query, reference, chains, blocks = drawn_case(seed, records)
    params = Params(band=band, min_anchor=min_anchor, zdrop=zdrop, gap_open=gap_open, gap_extend=gap_extend,
                    align_match=match, align_mismatch=mismatch, min_align_score=10, secondary=secondary,
                    drop_mismatch=drop[0], drop_gap=drop[1], split_indel=split_indel)
    assert found(query, reference, chains, blocks, params) == expected(query, reference, chains, blocks, params)


def test_cigars_add_up_to_the_spans_and_columns():
    query, reference, chains, blocks = drawn_case(7, 3)
    params = Params(min_anchor=6, zdrop=10_000, min_align_score=0, secondary=True)
    got = align_chains(chains, blocks, query, reference, params, threads=2)
    data, offsets = text_of(got, query, reference, kind="cigar")
    assert offsets.size > 1
    for k in range(offsets.size - 1):
        text = data[offsets[k]:offsets[k + 1]].decode()
        sums = dict.fromkeys(OPS, 0)
        number = ""
        for ch in text:
            if ch.isdigit():
                number += ch
            else:
                sums[ch] += int(number)
                number = ""
        assert sums["="] == got["matches"][k] and sums["X"] == got["mismatches"][k]
        assert sums["I"] == got["insertions"][k] and sums["D"] == got["deletions"][k]
        assert sums["="] + sums["X"] + sums["I"] == got["qend"][k] - got["qstart"][k]
        assert sums["="] + sums["X"] + sums["D"] == got["rend"][k] - got["rstart"][k]


@pytest.mark.parametrize("threads", [1, 4])
def test_threads_do_not_change_the_alignments(threads):
    query, reference, chains, blocks = drawn_case(11, 3)
    params = Params(min_anchor=6, secondary=True)
    assert found(query, reference, chains, blocks, params, threads) == found(query, reference, chains, blocks, params,
                                                                              1)


def cigar_sums(cigar: str) -> dict:
    sums = dict.fromkeys("=XIDH", 0)
    number = ""
    for ch in cigar:
        if ch.isdigit():
            number += ch
        else:
            sums[ch] += int(number)
            number = ""
    return sums


@pytest.fixture(scope="module")
def bundled_alignments(tmp_path_factory):
    """The align command's outputs on the bundled pair (plain FASTA: MUMmer 3 reads no gzip)."""
    import gzip
    import subprocess
    import sys

    from conftest import MYCO_232, MYCO_7422, ROOT

    folder = tmp_path_factory.mktemp("align")
    fasta = []
    for source, name in ((MYCO_232, "q.fa"), (MYCO_7422, "r.fa")):
        (folder / name).write_bytes(gzip.open(source).read())
        fasta.append(str(folder / name))
    paths = {kind: str(folder / f"al.{kind}") for kind in ("paf", "delta", "sam", "snps", "parquet", "chain")}
    subprocess.run([sys.executable, "-m", "gpu_kernels", "align", *fasta, "-o", paths["paf"], "--delta", paths["delta"],
                    "--sam", paths["sam"], "--snps", paths["snps"], "--table", paths["parquet"], "--secondary",
                    "--liftover", paths["chain"]],
                   check=True, cwd=ROOT, capture_output=True)
    return folder, fasta, paths


def test_align_paf_rows_add_up_and_the_table_holds_them(bundled_alignments):
    import pyarrow.parquet as pq

    _, _, paths = bundled_alignments
    rows = [line.rstrip("\n").split("\t") for line in open(paths["paf"])]
    table = pq.read_table(paths["parquet"]).to_pydict()
    assert len(rows) == len(table["cigar"]) > 30
    assert any("tp:A:P" in row for row in rows) and any("tp:A:S" in row for row in rows)
    for k, row in enumerate(rows):
        tags = dict((t[:4], t[5:]) for t in row[12:])
        sums = cigar_sums(tags["cg:Z"])
        assert sums["="] + sums["X"] + sums["I"] == int(row[3]) - int(row[2])
        assert sums["="] + sums["X"] + sums["D"] == int(row[8]) - int(row[7])
        assert int(row[9]) == sums["="] and int(row[10]) == sums["="] + sums["X"] + sums["I"] + sums["D"]
        assert int(tags["NM:i"]) == sums["X"] + sums["I"] + sums["D"]
        assert tags["cg:Z"] == table["cigar"][k] and int(tags["AS:i"]) == table["score"][k]
        cs_matches = sum(int(n) for n in re.findall(r":(\d+)", tags["cs:Z"]))
        assert cs_matches == sums["="] and tags["cs:Z"].count("*") == sums["X"]


def test_sam_is_read_by_pysam_with_the_paf_spans(bundled_alignments):
    pysam = pytest.importorskip("pysam")
    _, _, paths = bundled_alignments
    rows = [line.split("\t") for line in open(paths["paf"])]
    with pysam.AlignmentFile(paths["sam"]) as sam:
        records = list(sam)
    assert len(records) == len(rows)
    for record, row in zip(records, rows):
        assert record.reference_start == int(row[7]) and record.reference_end == int(row[8])
        assert record.infer_read_length() == int(row[1])
        assert record.is_reverse == (row[4] == "-") and record.is_secondary == ("tp:A:S" in row)


@pytest.mark.skipif(not shutil.which("show-snps"), reason="MUMmer's show-coords and show-snps not installed")
def test_mummer_reads_the_delta_and_show_snps_lists_our_snps(bundled_alignments):
    import subprocess

    _, _, paths = bundled_alignments
    coords = subprocess.run(["show-coords", "-THr", paths["delta"]], capture_output=True, text=True,
                            check=True).stdout.splitlines()
    rows = [line.split("\t") for line in open(paths["paf"])]
    assert sorted((int(c.split()[0]) - 1, int(c.split()[1])) for c in coords) == \
        sorted((int(r[7]), int(r[8])) for r in rows)
    # --snps lists the one-to-one alignments' SNPs: show-snps reads a delta of those alone (no --secondary)
    folder, (query, reference), _ = bundled_alignments
    one = {kind: str(folder / f"one.{kind}") for kind in ("delta", "snps")}
    subprocess.run([sys.executable, "-m", "gpu_kernels", "align", query, reference, "--delta", one["delta"], "--snps",
                    one["snps"], "-o", str(folder / "one.paf")], check=True, capture_output=True)
    listed = subprocess.run(["show-snps", "-THr", one["delta"]], capture_output=True, text=True,
                            check=True).stdout.splitlines()
    ours = [line.split("\t")[:4] for line in open(one["snps"]) if not line.startswith("#")]
    assert len(ours) > 1000 and sorted(ours) == sorted(line.split("\t")[:4] for line in listed)
    with_secondary = [line.split("\t")[:4] for line in open(paths["snps"]) if not line.startswith("#")]
    assert sorted(with_secondary) == sorted(ours)  # secondary alignments add rows, never SNPs


@pytest.mark.skipif(not shutil.which("dnadiff"), reason="MUMmer's dnadiff not installed")
def test_snps_agree_with_dnadiff_where_both_align(bundled_alignments):
    """Of the reference positions both our one-to-one alignments and dnadiff's align, at least 99 %
    get the same call from both (the same SNP, or none)."""
    import subprocess

    folder, (query, reference), _ = bundled_alignments
    subprocess.run(["dnadiff", "-p", str(folder / "dd"), reference, query], check=True, capture_output=True,
                   cwd=folder)
    backbone = str(folder / "bb.snps")
    paf = str(folder / "bb.paf")
    subprocess.run([sys.executable, "-m", "gpu_kernels", "align", query, reference, "--snps", backbone, "-o", paf],
                   check=True, capture_output=True)
    length = 898495 + 2
    both = np.zeros(length, dtype=bool)
    ours_spans = np.zeros(length, dtype=bool)
    for line in open(paf):
        f = line.split("\t")
        ours_spans[int(f[7]) + 1:int(f[8]) + 1] = True
    coords = subprocess.run(["show-coords", "-THr", str(folder / "dd.1delta")], capture_output=True, text=True,
                            check=True).stdout.splitlines()
    for line in coords:
        start, end = int(line.split()[0]), int(line.split()[1])
        both[start:end + 1] = True
    both &= ours_spans

    def calls(lines):
        found = set()
        for line in lines:
            f = line.split("\t")
            if f[1] in ("A", "C", "G", "T") and f[2] in ("A", "C", "G", "T") and both[int(f[0])]:
                found.add((int(f[0]), f[1], f[2]))
        return found

    ours = calls(line for line in open(backbone) if not line.startswith("#"))
    theirs = calls(open(folder / "dd.snps"))
    assert len(ours) > 5000 and both.sum() > 800_000
    assert 1 - len(ours ^ theirs) / both.sum() >= 0.99


def test_secondary_only_adds_rows(bundled_alignments):
    """With --secondary the one-to-one rows (tp:A:P) are those of the run without it; the rest are
    tp:A:S rows added beside them."""
    import subprocess

    folder, (query, reference), paths = bundled_alignments
    plain = str(folder / "plain.paf")
    subprocess.run([sys.executable, "-m", "gpu_kernels", "align", query, reference, "-o", plain], check=True,
                   capture_output=True)
    without = [line for line in open(plain)]
    both = [line for line in open(paths["paf"])]
    assert all("tp:A:P" in line for line in without)
    assert sorted(line for line in both if "tp:A:P" in line) == sorted(without)
    assert len(both) > len(without)


def row_pairs(paf: str) -> list:
    """Each tp:A:P row of the PAF: (reference start, end, its = and X columns as (query, reference
    position, query position))."""
    rows = []
    for line in open(paf):
        f = line.rstrip("\n").split("\t")
        if "tp:A:P" not in f:
            continue
        qs, qe, reverse, r = int(f[2]), int(f[3]), f[4] == "-", int(f[7])
        q, pairs = qe - 1 if reverse else qs, set()
        for count, op in re.findall(r"(\d+)([=XID])", next(x for x in f if x.startswith("cg:Z:"))[5:]):
            for _ in range(int(count)):
                if op in "=X":
                    pairs.add((f[0], r, q))
                if op in "=XD":
                    r += 1
                if op in "=XI":
                    q += -1 if reverse else 1
        rows.append((int(f[7]), int(f[8]), pairs))
    return rows


def aligned_pairs(paf: str) -> set:
    """(query, reference position, query position) of every = and X column of the PAF's tp:A:P rows."""
    return set().union(*(pairs for _, _, pairs in row_pairs(paf)))


def chain_pairs(path: str) -> set:
    """The same from a UCSC chain file: each block's columns, a reverse chain's query counted back from
    the record's end."""
    out, lines = set(), open(path).read().split("\n")
    for line in lines:
        f = line.split()
        if not f:
            continue
        if f[0] == "chain":
            qname, qsize, reverse, r, q = f[7], int(f[8]), f[9] == "-", int(f[5]), int(f[10])
            continue
        for k in range(int(f[0])):
            out.add((qname, r + k, qsize - 1 - (q + k) if reverse else q + k))
        r, q = r + int(f[0]), q + int(f[0])
        if len(f) == 3:
            r, q = r + int(f[1]), q + int(f[2])
    return out


def test_liftover_chains_hold_the_one_to_one_alignments_columns_each_reference_base_once(bundled_alignments):
    """--liftover: a chain a one-to-one alignment, whose blocks hold that alignment's columns but those
    on reference bases an alignment starting before it (the longer of two starting together) spans:
    each reference base in one chain at most, as liftOver asks (the one-to-one alignments, cut where they
    meet, share none already). Header spans add up to blocks and gaps."""
    _, _, paths = bundled_alignments
    rows = sorted(row_pairs(paths["paf"]), key=lambda row: (row[0], -row[1]))
    expected, reach, overlaps = set(), -1, 0  # one reference record in the bundled pair
    for start, end, pairs in rows:
        expected |= {p for p in pairs if p[1] >= reach}
        overlaps += start < reach
        reach = max(reach, end)
    text = open(paths["chain"]).read()
    assert overlaps == 0 and 0 < text.count("chain ") == len(rows)
    for chunk in text.strip().split("\n\n"):
        head, *blocks = chunk.split("\n")
        h = head.split()
        sizes = [list(map(int, b.split())) + [0, 0] for b in blocks]
        assert sum(b[0] + b[1] for b in sizes) == int(h[6]) - int(h[5])
        assert sum(b[0] + b[2] for b in sizes) == int(h[11]) - int(h[10])
    lifted = chain_pairs(paths["chain"])
    assert lifted == expected and len({r for _, r, _ in lifted}) == len(lifted)


def test_the_summary_counts_each_aligned_query_base_once(tmp_path, capsys):
    """align's closing line: the union of the PAF's query intervals, counted here base by base (the
    bundled pair's one-to-one alignments shared their extended ends, and their spans summed, 849,642,
    counted those bases twice; cut where they meet, they share none)."""
    from conftest import MYCO_232, MYCO_7422
    from gpu_kernels.__main__ import main

    paf = tmp_path / "a.paf"
    assert main(["align", MYCO_232, MYCO_7422, "-o", str(paf), "--backend", "numpy"]) == 0
    said = int(re.search(r"(\d+) query bases aligned", capsys.readouterr().err).group(1))
    rows = [line.split("\t") for line in paf.read_text().splitlines()]
    bases = {(row[0], at) for row in rows for at in range(int(row[2]), int(row[3]))}
    assert said == len(bases) == sum(int(row[3]) - int(row[2]) for row in rows)
