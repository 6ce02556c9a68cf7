"""IUPAC letters (gpu_kernels/letters.py, fasta.c's iupac_letters, align_text.c's SNP lines): their
places against a plain oracle on drawn files, and the SNP lines against a plain oracle walking the
alignment's CIGAR with the file's letters, and against show-snps where MUMmer is installed."""
import random
import re
import shutil
import subprocess

import numpy as np
import pytest

from gpu_kernels.__main__ import main
from gpu_kernels.fasta import load_fasta

IUPAC = "BDHKMRSVWY"
BASES = {"A": "A", "C": "C", "G": "G", "T": "T", "R": "AG", "Y": "CT", "S": "CG", "W": "AT", "K": "GT", "M": "AC",
         "B": "CGT", "D": "AGT", "H": "ACT", "V": "ACG", "N": "ACGT"}
COMPLEMENT = str.maketrans("ACGTRYSWKMBDHVN", "TGCAYRSWMKVHDBN")


def drawn_fasta(rng: random.Random, records: int) -> tuple[str, list[str]]:
    """A FASTA text (lines of drawn widths, CRLF or LF, blanks, lower case) and each record's letters."""
    text, seqs = [], []
    for r in range(records):
        n = rng.randint(1, 3000)
        seq = "".join(rng.choice("ACGT" * 20 + "N" * 2 + IUPAC + IUPAC.lower()) if rng.random() < 0.5 or r % 2 else
                      rng.choice("ACGTacgt") for _ in range(n))
        seqs.append(seq)
        width, end = rng.randint(1, 80), rng.choice(["\n", "\r\n", " \n"])
        text.append(f">r{r} drawn\n" + "".join(seq[i:i + width] + end for i in range(0, n, width)))
    return "".join(text), seqs


@pytest.mark.parametrize("seed", range(6))
def test_iupac_letters_equal_the_oracle(tmp_path, seed):
    rng = random.Random(seed)
    text, seqs = drawn_fasta(rng, rng.randint(1, 6))
    path = tmp_path / "drawn.fa"
    path.write_text(text)
    seqset = load_fasta(str(path))
    want = [(int(seqset.starts[r]) + i, c.upper()) for r, seq in enumerate(seqs) for i, c in enumerate(seq)
            if c.upper() in IUPAC]
    pos, let = seqset.letters
    assert list(zip(pos.tolist(), let.tobytes().decode())) == want
    assert np.all(np.asarray(seqset.codes)[pos] == 4)
    picked = [r for r in range(len(seqs)) if rng.random() < 0.6][::-1]  # some records, in another order
    sub = seqset.subset(picked)
    want = [(int(sub.starts[k]) + i, c.upper()) for k, r in enumerate(picked) for i, c in enumerate(seqs[r])
            if c.upper() in IUPAC]
    assert list(zip(sub.letters[0].tolist(), sub.letters[1].tobytes().decode())) == want


def iupac_pair(tmp_path, reverse: bool) -> tuple[str, str]:
    """Two 60 kb records 1 % apart, IUPAC letters and N on both sides and inserted in the second
    (reverse: the second one reverse-complemented)."""
    rng = random.Random(5)
    a = [rng.choice("ACGT") for _ in range(60_000)]
    b = list(a)
    for i in rng.sample(range(len(b)), 600):
        b[i] = rng.choice("ACGT")
    for seq in (a, b):
        for i in rng.sample(range(len(seq)), 150):
            seq[i] = rng.choice(IUPAC + "N")
    for i in sorted(rng.sample(range(len(b)), 40), reverse=True):
        b[i:i] = [rng.choice(IUPAC + "N") for _ in range(rng.randint(1, 3))]
    b = "".join(b)
    if reverse:
        b = b.translate(COMPLEMENT)[::-1]
    paths = []
    for name, seq in (("a", "".join(a)), ("b", b)):
        paths.append(str(tmp_path / f"{name}.fa"))
        with open(paths[-1], "w") as handle:
            handle.write(f">{name}\n" + "".join(seq[i:i + 60] + "\n" for i in range(0, len(seq), 60)))
    return paths[0], paths[1]


def read_seq(path: str) -> str:
    with open(path) as handle:
        return "".join(line.strip() for line in handle if not line.startswith(">"))


def oracle_snps(paf: str, query: str, reference: str) -> tuple[set, list]:
    """The substitution lines (P1, SUB1, SUB2, P2) and the indels' letters (sorted) of the PAF's
    alignments, column by column from their cg:Z CIGARs and the files' letters: a column is listed where
    its letters share no base (show-snps' rule); the query's letters complemented on the reverse strand."""
    q, r = read_seq(query), read_seq(reference)
    subs, indels = set(), []
    with open(paf) as handle:
        for line in handle:
            f = line.rstrip("\n").split("\t")
            if "tp:A:P" not in f:
                continue
            qs, qe, strand, rs = int(f[2]), int(f[3]), f[4], int(f[7])
            cg = next(x[5:] for x in f if x.startswith("cg:Z:"))
            i, j = (qs, rs) if strand == "+" else (qe - 1, rs)
            step = 1 if strand == "+" else -1
            for count, op in re.findall(r"(\d+)([=XID])", cg):
                for _ in range(int(count)):
                    ql = q[i] if strand == "+" else q[i].translate(COMPLEMENT)
                    if op in "=X":
                        if not set(BASES[ql]) & set(BASES[r[j]]):
                            subs.add((str(j + 1), r[j], ql, str(i + 1)))
                        i, j = i + step, j + 1
                    elif op == "I":
                        indels.append(ql)
                        i += step
                    else:
                        indels.append(r[j])
                        j += 1
    return subs, sorted(indels)


def our_snps(path: str) -> tuple[set, list]:
    subs, indels = set(), []
    with open(path) as handle:
        for line in handle:
            if line.startswith("#"):
                continue
            f = line.split("\t")
            if "." in (f[1], f[2]):
                indels.append(f[2] if f[1] == "." else f[1])
            else:
                subs.add(tuple(f[:4]))
    return subs, sorted(indels)


@pytest.mark.parametrize("reverse", [False, True])
def test_snps_print_iupac_letters_as_the_oracle(tmp_path, reverse):
    query, reference = iupac_pair(tmp_path, reverse)
    paf, snps = str(tmp_path / "al.paf"), str(tmp_path / "al.snps")
    assert main(["align", query, reference, "-o", paf, "--snps", snps, "--backend", "numpy"]) == 0
    subs, indels = our_snps(snps)
    want_subs, want_indels = oracle_snps(paf, query, reference)
    assert subs == want_subs and indels == want_indels
    assert any(s[1] in IUPAC or s[2] in IUPAC for s in subs) and any(c in IUPAC for c in indels)
    assert not any("N" in s[1:3] for s in subs)


@pytest.mark.skipif(not shutil.which("show-snps"), reason="MUMmer not installed")
def test_snps_equal_show_snps_on_iupac_letters(tmp_path):
    """Our SNP lines and show-snps' on nucmer's one-to-one alignments of the same pair: the same letters
    where both align a column, IUPAC codes printed as the FASTA holds them."""
    query, reference = iupac_pair(tmp_path, False)
    snps = str(tmp_path / "al.snps")
    assert main(["align", query, reference, "-o", str(tmp_path / "al.paf"), "--snps", snps, "--backend", "numpy"]) == 0
    prefix = str(tmp_path / "n")
    subprocess.run(["nucmer", "-p", prefix, reference, query], check=True, capture_output=True)
    one = subprocess.run(["delta-filter", "-1", prefix + ".delta"], check=True, capture_output=True, text=True).stdout
    (tmp_path / "one.delta").write_text(one)
    listed = subprocess.run(["show-snps", "-THr", str(tmp_path / "one.delta")], check=True, capture_output=True,
                            text=True).stdout
    theirs = {tuple(line.split("\t")[:4]) for line in listed.splitlines() if line}
    ours = {tuple(line.split("\t")[:4]) for line in open(snps) if not line.startswith("#")}
    assert any(t[1] in IUPAC or t[2] in IUPAC for t in theirs & ours)
    # an IUPAC letter or N is an unknown base to our fills (a column of one scores 0), a mismatch to
    # nucmer's: an indel beside one may sit a base or two away; every other line is the same
    unknown = [{k + 1 for k, c in enumerate(seq) if c not in "ACGT"}
               for seq in (read_seq(path) for path in (reference, query))]
    differ = ours ^ theirs
    assert all(any(int(t[0]) + d in unknown[0] or int(t[3]) + d in unknown[1] for d in range(-5, 6)) for t in differ)
    assert len(differ) < len(theirs) / 100, sorted(differ)


def drawn_index(tmp_path, seed: int, records: int):
    """A drawn FASTA (drawn_fasta's) and the workflow's index of it: (its path, the index's Genome)."""
    from gpu_kernels.workflow.genome import Genome, write_index

    text, _ = drawn_fasta(random.Random(seed), records)
    path = tmp_path / "drawn.fa"
    path.write_text(text)
    codes, table = str(tmp_path / "codes.2bit"), str(tmp_path / "chromosomes.tsv")
    write_index(str(path), codes, table, 50_000_000)
    return path, Genome("drawn", codes, table)


def test_the_genome_index_keeps_the_letters(tmp_path):
    """The workflow's index (the chromosome table's iupac column) gives load_bin and load_records the
    letters load_fasta finds."""
    from gpu_kernels.workflow.genome import WHOLE, load_bin, load_records

    path, genome = drawn_index(tmp_path, 9, 5)
    whole, direct = load_bin(genome.codes, genome.rows, WHOLE)[0], load_fasta(str(path))
    assert whole.letters[0].size and np.array_equal(whole.letters[0], direct.letters[0])
    assert whole.letters[1].tobytes() == direct.letters[1].tobytes()
    picked = load_records(genome, [3, 1])
    want = direct.subset([3, 1]).letters
    assert np.array_equal(picked.letters[0], want[0]) and picked.letters[1].tobytes() == want[1].tobytes()


def test_a_records_window_reads_as_the_record_on_both_strands(tmp_path):
    """load_windows (the assembly's late chains): each window, at its record's coordinates, reads the
    record's bases on the forward strand and on the reverse one, and its IUPAC letters, those inside it."""
    from gpu_kernels.workflow.genome import load_records, load_windows

    _, genome = drawn_index(tmp_path, 11, 6)
    whole = load_records(genome, range(len(genome.rows)))
    rng = random.Random(3)
    records = [rng.randrange(len(genome.rows)) for _ in range(8)] + [1, 1]  # a record twice: two windows
    firsts = [rng.randrange(int(genome.lengths[r])) for r in records]
    ends = [rng.randint(first + 1, int(genome.lengths[r])) for r, first in zip(records, firsts)]
    windows = load_windows(genome, records, firsts, ends)
    letters = dict(zip(whole.letters[0].tolist(), whole.letters[1].tolist()))
    got = dict(zip(windows.letters[0].tolist(), windows.letters[1].tolist())) if windows.letters else {}
    inside = 0
    for j, (r, first, end) in enumerate(zip(records, firsts, ends)):
        length = int(genome.lengths[r])
        assert windows.names[j] == whole.names[r] and int(windows.lengths[j]) == length
        at, want = int(windows.starts[j]), int(whole.starts[r])
        assert np.array_equal(windows.codes[at + first:at + end], whole.codes[want + first:want + end])
        back, want_back = int(windows.reverse_starts()[j]), int(whole.reverse_starts()[r])
        y0, y1 = length - end, length - first  # the window on the reverse strand
        assert np.array_equal(windows.reverse_codes[back + y0:back + y1],
                              whole.reverse_codes[want_back + y0:want_back + y1])
        for place in range(first, end):
            if want + place in letters:
                inside += 1
                assert got[at + place] == letters[want + place]
    assert inside and len(got) == inside


def test_vcf_lists_no_iupac_letter(tmp_path):
    """VCF's REF and ALT hold A, C, G, T and N only: an IUPAC letter's SNP line has no VCF record."""
    query, reference = iupac_pair(tmp_path, False)
    vcf, snps = tmp_path / "al.vcf", tmp_path / "al.snps"
    assert main(["align", query, reference, "--vcf", str(vcf), "--snps", str(snps), "--backend", "numpy"]) == 0
    records = [line.split("\t") for line in vcf.read_text().splitlines() if not line.startswith("#")]
    assert records and all(re.fullmatch(r"[ACGTN]+", f[3]) and re.fullmatch(r"[ACGTN]+|<\w+>|.*[\[\]].*", f[4])
                           for f in records)
    subs = our_snps(str(snps))[0]
    assert {(f[1], f[3], f[4]) for f in records if len(f[3]) == len(f[4]) == 1} == \
        {(s[0], s[1], s[2]) for s in subs if s[1] in "ACGT" and s[2] in "ACGT"}


@pytest.mark.gpu
def test_iupac_snps_and_vcf_are_the_same_on_the_gpu(tmp_path):
    query, reference = iupac_pair(tmp_path, True)
    out = {}
    for backend in ("numpy", "cupy"):
        paths = {kind: str(tmp_path / f"{backend}.{kind}") for kind in ("paf", "snps", "vcf")}
        assert main(["align", query, reference, "--backend", backend, "-o", paths["paf"], "--snps", paths["snps"],
                     "--vcf", paths["vcf"]]) == 0
        out[backend] = [[line for line in open(path) if not line.startswith("##commandline")]
                        for path in paths.values()]
    assert out["numpy"] == out["cupy"]
