"""align --vcf (gpu_kernels/formats/vcf.py): bcftools and pysam read it, its REF alleles are the
reference's, its SNPs are the one-to-one alignments' substitutions, indels are left-aligned whichever
strand aligned them, and a simulated inversion and translocation come out as INV and BND records."""
import gzip
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import MYCO_232, MYCO_7422
from gpu_kernels.__main__ import main

COMPLEMENT = str.maketrans("ACGT", "TGCA")


def revcomp(s: str) -> str:
    return s.translate(COMPLEMENT)[::-1]


def rearranged(tmp_path, seed: int = 5) -> tuple:
    """A 3-record reference and a query made of it: SNPs and small indels, a 60-base deletion and a
    70-base insertion, a 3 kb inversion in record a, and 4 kb of record b moved into record c (a
    translocation). (query path, reference path, inversion span on a, moved span on b)."""
    rng = np.random.default_rng(seed)
    ref = {name: "".join(rng.choice(list("ACGT"), 40_000)) for name in "abc"}
    q = {name: list(seq) for name, seq in ref.items()}
    for name in "abc":  # SNPs every 997 bases
        for at in range(500, 39_000, 997):
            q[name][at] = {"A": "C", "C": "G", "G": "T", "T": "A"}[q[name][at]]
    q = {name: "".join(seq) for name, seq in q.items()}
    q["a"] = q["a"][:5_000] + q["a"][5_002:9_000] + q["a"][9_060:]  # 2-base and 60-base deletions
    q["a"] = q["a"][:20_000] + revcomp(q["a"][20_000:23_000]) + q["a"][23_000:]  # ref a 20,062-23,062 inverted
    q["b"] = q["b"][:11_000] + "".join(rng.choice(list("ACGT"), 70)) + q["b"][11_000:]  # a 70-base insertion
    moved = q["b"][25_070:29_070]  # ref b 25,000-29,000
    q["b"] = q["b"][:25_070] + q["b"][29_070:]
    q["c"] = q["c"][:20_000] + moved + q["c"][20_000:]
    paths = []
    for tag, genome in (("query", q), ("reference", ref)):
        path = tmp_path / f"{tag}.fa"
        path.write_text("".join(f">{name}\n{seq}\n" for name, seq in genome.items()))
        paths.append(str(path))
    return paths[0], paths[1], (20_062, 23_062), (25_000, 29_000)


def records(path) -> list:
    return [line.rstrip("\n").split("\t") for line in open(path) if not line.startswith("#")]


def info(record) -> dict:
    return dict(field.split("=", 1) for field in record[7].split(";"))


def cigar_substitutions(table_path) -> int:
    """X columns of the one-to-one alignments' CIGARs (the alignment table)."""
    import re

    import pyarrow.parquet as pq

    table = pq.read_table(table_path, columns=["cigar", "backbone"]).to_pydict()
    return sum(int(n) for cigar, one in zip(table["cigar"], table["backbone"]) if one
               for n in re.findall(r"(\d+)X", cigar))


def bcftools_accepts(vcf, fasta) -> None:
    if shutil.which("bcftools") is None:
        pytest.skip("bcftools not installed (CI installs it)")
    for args in (["view", "-H", vcf], ["norm", "--check-ref", "e", "-f", fasta, "-o", "/dev/null", vcf]):
        done = subprocess.run(["bcftools", *args], capture_output=True, text=True)
        assert done.returncode == 0, (args, done.stderr)


def test_a_rearranged_pair(tmp_path):
    query, reference, inversion, moved = rearranged(tmp_path)
    vcf, table = str(tmp_path / "out.vcf"), str(tmp_path / "al.parquet")
    assert main(["align", query, reference, "--backend", "numpy", "--vcf", vcf, "--table", table,
                 "-o", str(tmp_path / "al.paf")]) == 0
    bcftools_accepts(vcf, reference)
    rows = records(vcf)
    snps = [r for r in rows if len(r[3]) == 1 and len(r[4]) == 1]
    assert len(snps) == cigar_substitutions(table) > 100
    types = [info(r).get("SVTYPE") for r in rows]
    assert "DEL" in types and "INS" in types
    invs = [r for r in rows if info(r).get("SVTYPE") == "INV"]
    assert any(r[0] == "a" and int(r[1]) < inversion[1] and int(info(r)["END"]) > inversion[0] for r in invs), invs
    bnds = [r for r in rows if info(r).get("SVTYPE") == "BND"]
    assert {r[0] for r in bnds} == {"b", "c"}, bnds  # the moved piece's ends, on both records
    assert any(r[0] == "b" and abs(int(r[1]) - moved[0]) < 50 for r in bnds), bnds
    ids = {r[2] for r in bnds}
    assert all(info(r)["MATEID"] in ids for r in bnds)
    positions = [(r[0], int(r[1])) for r in rows]
    order = {"a": 0, "b": 1, "c": 2}
    assert positions == sorted(positions, key=lambda p: (order[p[0]], p[1]))


def test_indels_are_left_aligned_on_either_strand(tmp_path):
    rng = np.random.default_rng(3)
    ref = "".join(rng.choice(list("ACGT"), 6_000))
    query = ref[:2_000] + ref[2_004:2_996] + "GGGTT" + ref[2_996:]
    (tmp_path / "r.fa").write_text(f">r\n{ref}\n")
    out = []
    for tag, seq in (("forward", query), ("reverse", revcomp(query))):
        (tmp_path / f"{tag}.fa").write_text(f">{tag}\n{seq}\n")
        vcf = tmp_path / f"{tag}.vcf"
        assert main(["align", str(tmp_path / f"{tag}.fa"), str(tmp_path / "r.fa"), "--backend", "numpy",
                     "--vcf", str(vcf), "-o", str(tmp_path / f"{tag}.paf")]) == 0
        bcftools_accepts(str(vcf), str(tmp_path / "r.fa"))
        out.append([r[1:5] for r in records(vcf)])
    assert out[0] == out[1] and len(out[0]) == 2
    # leftmost: no base before either indel could take its place
    for pos, _, ref_allele, alt in out[0]:
        assert ref_allele[0] == alt[0]
        changed = ref_allele[1:] or alt[1:]
        assert ref[int(pos) - 1] != changed[-1]


@pytest.mark.parametrize("strand,backend", [("forward", "numpy"), ("reverse", "numpy"),
                                            pytest.param("reverse", "cupy", marks=pytest.mark.gpu)])
def test_the_variants_remake_the_query(tmp_path, strand, backend):
    """bcftools consensus applies the VCF to the reference and gets the query back: SNPs, small
    indels, and indels long enough (split_indel's 50 by default) to end an alignment, whose record
    is made from the bases between the two alignments, one of them 80 bases replaced by 20 others."""
    if shutil.which("bcftools") is None:
        pytest.skip("bcftools not installed (CI installs it)")
    rng = np.random.default_rng(11)
    ref = "".join(rng.choice(list("ACGT"), 30_000))
    q = list(ref)
    for at in range(300, 29_700, 611):
        q[at] = {"A": "C", "C": "G", "G": "T", "T": "A"}[q[at]]
    q = "".join(q)
    novel = "".join(rng.choice(list("ACGT"), 400))
    q = (q[:3_000] + q[3_003:8_000] + novel[:80] + q[8_000:12_000] + q[12_200:17_000] + novel[100:400]
         + q[17_000:21_120] + novel[80:100] + q[21_200:])  # 80 bases where 20 others stand: not a pure indel
    (tmp_path / "r.fa").write_text(f">r\n{ref}\n")
    (tmp_path / "q.fa").write_text(f">q\n{q if strand == 'forward' else revcomp(q)}\n")
    vcf = tmp_path / "out.vcf"
    assert main(["align", str(tmp_path / "q.fa"), str(tmp_path / "r.fa"), "--backend", backend,
                 "--vcf", str(vcf), "-o", str(tmp_path / "al.paf")]) == 0
    assert len(open(tmp_path / "al.paf").readlines()) > 3  # the long indels split it
    bcftools_accepts(str(vcf), str(tmp_path / "r.fa"))
    sizes = sorted(int(info(r)["SVLEN"]) for r in records(vcf) if "SVLEN" in info(r))
    assert sizes == [-200, -60, 80, 300], sizes
    # already as bcftools norm leaves every record: none moved or trimmed (the one beside SNPs too)
    norm = subprocess.run(["bcftools", "norm", "-f", str(tmp_path / "r.fa"), "-o", "/dev/null", str(vcf)],
                          capture_output=True, text=True, check=True)
    assert f"{len(records(vcf))}/0/0/0" in norm.stderr, norm.stderr
    subprocess.run(["bcftools", "view", "-Oz", "-o", str(vcf) + ".gz", str(vcf)], check=True)
    subprocess.run(["bcftools", "index", str(vcf) + ".gz"], check=True)
    done = subprocess.run(["bcftools", "consensus", "-f", str(tmp_path / "r.fa"), str(vcf) + ".gz"],
                          capture_output=True, text=True, check=True)
    assert "".join(done.stdout.split("\n")[1:]) == q


def test_the_bundled_pair(tmp_path):
    reference = tmp_path / "7422.fa"
    with gzip.open(MYCO_7422, "rb") as source, open(reference, "wb") as target:
        shutil.copyfileobj(source, target)
    vcf, snps = str(tmp_path / "out.vcf"), tmp_path / "snps.tsv"
    assert main(["align", MYCO_232, str(reference), "--backend", "numpy", "--vcf", vcf, "--snps", str(snps),
                 "-o", str(tmp_path / "al.paf")]) == 0
    bcftools_accepts(vcf, str(reference))
    rows = records(vcf)
    # every alignment of this pair is one-to-one, so the SNP output's substitutions are all the VCF's
    # (neither lists a mismatch with the reference's 62 Ns, which the CIGARs count as X)
    assert all(line.split("\t")[-1].startswith("tp:A:P") or "tp:A:P" in line
               for line in open(tmp_path / "al.paf"))
    substitutions = {int(line.split("\t")[0]) for line in open(snps) if not line.startswith("#")
                     and "." not in line.split("\t")[1:3]}
    single = {int(r[1]) for r in rows if len(r[3]) == 1 and len(r[4]) == 1}
    # a SNP beside an indel is folded with it into one record (no two records overlap)
    folded = [(int(r[1]), int(r[1]) + len(r[3])) for r in rows if (len(r[3]), len(r[4])) != (1, 1) and r[3][0] != r[4][0]]
    assert single <= substitutions and len(single) > 10_000
    assert all(any(a <= p < b for a, b in folded) for p in substitutions - single)
    pysam = pytest.importorskip("pysam")
    with pysam.VariantFile(vcf) as reader:
        assert sum(1 for _ in reader) == len(rows)


def test_a_tandem_duplication_is_a_dup_record(tmp_path):
    rng = np.random.default_rng(8)
    ref = "".join(rng.choice(list("ACGT"), 40_000))
    query = ref[:22_000] + ref[19_000:22_000] + ref[22_000:]  # ref 19,000-22,000 twice in a row
    (tmp_path / "r.fa").write_text(f">r\n{ref}\n")
    (tmp_path / "q.fa").write_text(f">q\n{query}\n")
    vcf = str(tmp_path / "out.vcf")
    assert main(["align", str(tmp_path / "q.fa"), str(tmp_path / "r.fa"), "--backend", "numpy", "--vcf", vcf,
                 "-o", str(tmp_path / "al.paf")]) == 0
    bcftools_accepts(vcf, str(tmp_path / "r.fa"))
    dups = [r for r in records(vcf) if info(r).get("SVTYPE") == "DUP"]
    assert len(dups) == 1, records(vcf)
    start, end = int(dups[0][1]), int(info(dups[0])["END"])
    assert abs(start - 19_000) <= 50 and abs(end - 22_000) <= 50 and dups[0][4] == "<DUP>"
    assert not [r for r in records(vcf) if info(r).get("SVTYPE") == "BND"]


def test_no_alignment_is_a_header_alone(tmp_path):
    rng = np.random.default_rng(4)
    for name in "ab":
        (tmp_path / f"{name}.fa").write_text(f">{name}\n{''.join(rng.choice(list('ACGT'), 5_000))}\n")
    vcf = str(tmp_path / "out.vcf")
    assert main(["align", str(tmp_path / "a.fa"), str(tmp_path / "b.fa"), "--backend", "numpy", "--vcf", vcf,
                 "-o", str(tmp_path / "al.paf")]) == 0
    assert records(vcf) == [] and open(vcf).read().startswith("##fileformat=VCFv4.3\n")
    bcftools_accepts(vcf, str(tmp_path / "b.fa"))


@pytest.mark.parametrize("query_name, reference_name", [("q", "chr,1"), ("q", "chr<1>"), ("q", "chr[1]"),
                                                        ("q", "chr;1"), ("q", "chr=1"), ("q", "chrö"),
                                                        ("q;1", "r"), ("q=1", "r"), ("q,1", "r"), ("qö", "r")])
def test_names_a_vcf_cannot_hold_are_refused_before_any_output(tmp_path, query_name, reference_name):
    """Record names that would break the ##contig lines or split the INFO field: one line, a non-zero
    exit, no output written (as --sam refuses its own); the workflow refuses them before any job."""
    from wfhelpers import snakemake, workdir

    rng = np.random.default_rng(1)
    seq = "".join(rng.choice(list("ACGT"), 5_000))
    query, reference = tmp_path / "q.fa", tmp_path / "r.fa"
    query.write_text(f">{query_name}\n{seq}\n", encoding="utf-8")
    reference.write_text(f">{reference_name}\n{seq}\n", encoding="utf-8")
    vcf, paf = tmp_path / "a.vcf", tmp_path / "a.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "align", str(query), str(reference), "--vcf", str(vcf),
                           "-o", str(paf), "--backend", "numpy"], capture_output=True, text=True)
    assert proc.returncode != 0 and "cannot be written in VCF" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not vcf.exists() and not paf.exists()
    if (query_name, reference_name) == ("q", "chr,1"):  # the workflow's check, once
        (tmp_path / "wf").mkdir()
        cwd = workdir(tmp_path / "wf")
        (cwd / "v.yaml").write_text(f"genomes:\n  A: {query}\n  B: {reference}\noutputs:\n  vcf: true\n")
        proc = snakemake(cwd, "-n", "--configfile", "v.yaml", check=False)
        errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
        assert proc.returncode != 0 and len(errors) == 1 and "cannot be written in VCF" in errors[0], proc.stderr[-2000:]


def dense_variants(tmp_path, strand: str, seed: int = 1) -> str:
    """A 60 kb reference and a query 5 % substituted with indels of 1-5 bases at a tenth of that, so
    that many an indel lies beside a SNP; the query written on the strand asked. Returns the query as
    the reference's strand reads it."""
    rng = np.random.default_rng(seed)
    ref = rng.integers(0, 4, 60_000)
    out, i = [], 0
    while i < ref.size:
        u = rng.random()
        if u < 0.005:
            out.extend(rng.integers(0, 4, int(rng.integers(1, 6))).tolist())
        elif u < 0.01:
            i += int(rng.integers(1, 6))
            continue
        elif u < 0.05:
            out.append(int((ref[i] + rng.integers(1, 4)) % 4))
            i += 1
            continue
        out.append(int(ref[i]))
        i += 1
    out[:100], out[-100:] = ref[:100].tolist(), ref[-100:].tolist()  # the ends kept: aligned to the last base
    letters = np.array(list("ACGT"))
    r, q = "".join(letters[ref]), "".join(letters[np.array(out)])
    (tmp_path / "r.fa").write_text(f">r\n{r}\n")
    (tmp_path / "q.fa").write_text(f">q\n{q if strand == '+' else revcomp(q)}\n")
    return q


@pytest.mark.parametrize("strand", ["+", "-"])
@pytest.mark.parametrize("preset", ["close", "distant"])
def test_no_two_records_overlap_and_the_query_comes_back(tmp_path, strand, preset):
    """Indels beside SNPs (an insertion after a substituted base, a deletion whose anchor is one) on
    either strand and with either preset: no record overlaps another (an indel moved left stops short
    of the variant before it; one whose anchor is a variant is folded with it into one record), and
    bcftools consensus gives the query back (before: 129 overlapping records on the reverse strand)."""
    if shutil.which("bcftools") is None:
        pytest.skip("bcftools not installed (CI installs it)")
    q = dense_variants(tmp_path, strand)
    vcf = tmp_path / "out.vcf"
    assert main(["align", str(tmp_path / "q.fa"), str(tmp_path / "r.fa"), "--backend", "numpy", "--preset", preset,
                 "--vcf", str(vcf), "-o", str(tmp_path / "al.paf")]) == 0
    assert [line.split("\t")[2:4] for line in open(tmp_path / "al.paf")] == [["0", str(len(q))]]
    rows = records(vcf)
    assert len(rows) > 2500
    ends = [(int(r[1]), int(r[1]) + len(r[3]) - 1) for r in rows]
    assert all(start > end_before for (_, end_before), (start, _) in zip(ends, ends[1:]))
    # folded records (a SNP and the indel anchored on it): on the reverse strand the fills put each gap
    # on the reference's right, so moving it left meets the SNPs before it
    folded = sum((len(r[3]), len(r[4])) != (1, 1) and r[3][0] != r[4][0] for r in rows)
    assert folded > 10 or strand == "+"
    bcftools_accepts(str(vcf), str(tmp_path / "r.fa"))
    # (bcftools norm, which takes each record alone, would move a few indels over the SNP before them)
    subprocess.run(["bcftools", "view", "-Oz", "-o", str(vcf) + ".gz", str(vcf)], check=True)
    subprocess.run(["bcftools", "index", str(vcf) + ".gz"], check=True)
    done = subprocess.run(["bcftools", "consensus", "-f", str(tmp_path / "r.fa"), str(vcf) + ".gz"],
                          capture_output=True, text=True, check=True)
    assert "".join(done.stdout.split("\n")[1:]) == q
