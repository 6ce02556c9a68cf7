"""mems and mums against MUMmer's own mummer (Debian's package), on the real pair and on drawn cases.

Skipped where mummer is not installed (CI installs it).
"""
import os
import random
import shutil
import subprocess
import sys

import pytest

from gpu_kernels.schema import MATCH
from hypothesis import given, settings, strategies as st

from conftest import MYCO_232, MYCO_7422, ROOT
from generate import mutate, tandem

pytestmark = pytest.mark.skipif(shutil.which("mummer") is None, reason="MUMmer's mummer is not installed")


def parse(text: str) -> set:
    """MUMmer output as a set of (query header, fields...) rows: ordering aside."""
    rows, header = set(), None
    for line in text.splitlines():
        if line.startswith(">"):
            header = line[1:].strip()
            rows.add((header,))
        elif line.strip():
            rows.add((header, *line.split()))
    return rows


def mummer(mode: str, query: str, reference: str, min_len: int) -> set:
    flag = "-maxmatch" if mode == "mems" else "-mum"
    proc = subprocess.run(["mummer", flag, "-b", "-c", "-l", str(min_len), reference, query],
                          capture_output=True, text=True, check=True)
    return parse(proc.stdout)


def ours_text(mode: str, query: str, reference: str, min_len: int, *extra: str) -> str:
    return subprocess.run([sys.executable, "-m", "gpu_kernels", mode, query, reference, "-l", str(min_len), *extra],
                          cwd=ROOT, capture_output=True, text=True, check=True).stdout


def ours(mode: str, query: str, reference: str, min_len: int) -> set:
    return parse(ours_text(mode, query, reference, min_len))


@pytest.fixture(scope="module")
def plain_pair(tmp_path_factory):
    import gzip

    folder = tmp_path_factory.mktemp("myco")
    paths = []
    for source in (MYCO_232, MYCO_7422):
        path = folder / os.path.basename(source).replace(".gz", "")
        path.write_bytes(gzip.decompress(open(source, "rb").read()))
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("mode", ["mems", "mums"])
@pytest.mark.parametrize("min_len", [20, 50])
def test_real_pair_equals_mummer(plain_pair, mode, min_len):
    query, reference = plain_pair
    expected = mummer(mode, query, reference, min_len)
    assert len(expected) > 1000
    assert ours(mode, query, reference, min_len) == expected


def drawn_records(rng: random.Random, ancestor: str, records: int) -> list[str]:
    """Descendant records: substitutions, indels, tandem repeats, N runs, lowercase stretches."""
    seq = mutate(ancestor, rng, subst=rng.choice([0.0, 0.01, 0.05]), indel=rng.choice([0.0, 0.01]))
    if rng.random() < 0.5:
        comp = {"A": "T", "C": "G", "G": "C", "T": "A"}
        a = rng.randrange(len(seq) // 2)
        b = a + rng.randint(20, len(seq) // 2)
        seq = seq[:a] + "".join(comp[c] for c in reversed(seq[a:b])) + seq[b:]
    if rng.random() < 0.4:
        seq = tandem(seq, rng)
    chars = list(seq)
    for _ in range(rng.randint(0, 3)):
        a = rng.randrange(len(chars))
        for i in range(a, min(len(chars), a + rng.randint(1, 30))):
            chars[i] = "N"
    for _ in range(rng.randint(0, 2)):
        a = rng.randrange(len(chars))
        for i in range(a, min(len(chars), a + rng.randint(5, 60))):
            chars[i] = chars[i].lower()
    seq = "".join(chars)
    cuts = sorted(rng.sample(range(1, len(seq)), records - 1))
    pieces = [p for p in (seq[a:b] for a, b in zip([0] + cuts, cuts + [len(seq)])) if any(c in "ACGTacgt" for c in p)]
    return pieces or ["ACGT"]  # all-N records are refused as bad input, by design


def drawn_ancestor(rng: random.Random, length: int) -> str:
    """Random bases, half the time with tandem repeats."""
    ancestor = "".join(rng.choice("ACGT") for _ in range(length))
    return tandem(ancestor, rng) if rng.random() < 0.5 else ancestor


def write(path, records, prefix):
    with open(path, "w") as handle:
        for i, seq in enumerate(records):
            handle.write(f">{prefix}{i} description\n")
            handle.writelines(seq[j:j + 60] + "\n" for j in range(0, len(seq), 60))


def drawn_pair(folder, seed: int, length: int, nq: int, nr: int) -> tuple:
    """Query and reference FASTA files in folder, their records drawn from one ancestor."""
    rng = random.Random(seed)
    ancestor = drawn_ancestor(rng, length)
    query, reference = folder / "q.fa", folder / "r.fa"
    write(query, drawn_records(rng, ancestor, nq), "q")
    write(reference, drawn_records(rng, ancestor, nr), "r")
    return query, reference


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(100, 5000), st.integers(1, 3), st.integers(1, 3), st.integers(2, 6))
def test_short_mums_equal_mummer(tmp_path_factory, seed, length, nq, nr, min_len):
    """`mums -l 2` to `-l 6`: MUMs shorter than the words' floor (mums.word_floor) counted L-mer by L-mer
    (mums.short_mums) beside the longer ones found from words; once word pairs grew with a word's
    frequency squared (-l 4 on two 100 kb sequences: 34-44 s, 3.4 GB; -l 2 killed at 23.6 GB)."""
    from gpu_kernels.fasta import load_fasta
    from gpu_kernels.mums import word_floor

    query, reference = drawn_pair(tmp_path_factory.mktemp("short"), seed, length, nq, nr)
    assert word_floor(load_fasta(str(query)), load_fasta(str(reference)), min_len) > min_len
    assert ours("mums", str(query), str(reference), min_len) == mummer("mums", str(query), str(reference), min_len)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31), st.integers(100, 2000), st.integers(1, 3), st.integers(1, 3),
       st.sampled_from([12, 20, 25, 40]), st.sampled_from(["mems", "mums"]))
def test_drawn_cases_equal_mummer(tmp_path_factory, seed, length, nq, nr, min_len, mode):
    query, reference = drawn_pair(tmp_path_factory.mktemp("case"), seed, length, nq, nr)
    assert ours(mode, str(query), str(reference), min_len) == mummer(mode, str(query), str(reference), min_len)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(100, 2000), st.integers(1, 3), st.integers(2, 5),
       st.sampled_from([12, 20, 40]), st.sampled_from(["mems", "mums"]), st.integers(1, 3000))
def test_reference_tiles_give_one_pass_output(tmp_path_factory, seed, length, nq, nr, min_len, mode, tile):
    """A reference matched a tile of whole records at a time (issue 35: a genome bigger than the device)
    prints what one pass prints, byte for byte, and mummer's matches; MUMs unique over all tiles (the
    reference's records are descendants of one ancestor, so a match found in one tile often occurs in
    another)."""
    rng = random.Random(seed)
    ancestor = drawn_ancestor(rng, length)
    folder = tmp_path_factory.mktemp("tiles")
    query, reference = folder / "q.fa", folder / "r.fa"
    write(query, drawn_records(rng, ancestor, nq) + [ancestor[:min_len]], "q")  # a probe looked up whole too
    write(reference, sum((drawn_records(rng, ancestor, rng.randint(1, 2)) for _ in range(nr)), []), "r")
    tiled = ours_text(mode, str(query), str(reference), min_len, "--reference-tile", str(tile))
    assert tiled == ours_text(mode, str(query), str(reference), min_len)
    assert parse(tiled) == mummer(mode, str(query), str(reference), min_len)


READS_CONFIG = """genomes:
  reads: reads.fq
  Mhyo7422: resources/Mhyopneumoniae_7422.fa.gz
comparisons:
  mode: pairs
  pairs: [{query: reads, reference: Mhyo7422}]
engine:
  mode: mem
  min_match: 20
bins:
  size: 1000000000
"""


def test_read_set_is_one_workflow_job_and_equals_mummer(tmp_path):
    """A FASTQ read set as the query genome: one compare job, MEMs per read equal to mummer's; a read of
    no A, C, G or T and one shorter than -l are skipped, their headers kept (issue 35)."""
    import gzip

    import numpy as np
    from wfhelpers import snakemake, workdir

    rng = np.random.default_rng(2)
    genome = gzip.decompress(open(MYCO_7422, "rb").read()).split(b"\n", 1)[1].replace(b"\n", b"")
    cwd = workdir(tmp_path)
    with open(cwd / "reads.fq", "w") as fq, open(cwd / "reads.fa", "w") as fa:
        for i in range(60):
            at = int(rng.integers(0, len(genome) - 6000))
            read = bytearray(genome[at:at + int(rng.integers(2000, 6000))])
            for j in np.flatnonzero(rng.random(len(read)) < 0.1):
                read[j] = b"ACGT"[(b"ACGT".index(read[j]) + 1) % 4] if read[j] in b"ACGT" else read[j]
            if rng.random() < 0.5:
                read = bytearray(read[::-1].translate(bytes.maketrans(b"ACGT", b"TGCA")))
            fq.write(f"@read{i} sim\n{read.decode()}\n+\n{'I' * len(read)}\n")
            fa.write(f">read{i}\n{read.decode()}\n")
        # a read of no A, C, G or T and one shorter than -l: skipped (with a count in the log), no error
        fq.write(f"@readN\n{'N' * 500}\n+\n{'I' * 500}\n@short\nACGTA\n+\nIIIII\n")
    (cwd / "reads.yaml").write_text(READS_CONFIG)
    proc = snakemake(cwd, "--cores", "2", "--configfile", "reads.yaml")
    assert len(list((cwd / "results/logs/compare").rglob("*.log"))) == 1  # one compare job (its part is temporary)
    reference = tmp_path / "ref.fa"
    reference.write_bytes(gzip.decompress(open(MYCO_7422, "rb").read()))
    ours_text = (cwd / "results/default/reads_vs_Mhyo7422/matches.mummer.txt").read_text()
    expected = mummer("mems", str(cwd / "reads.fa"), str(reference), 20)
    expected |= {(name,) for name in ("readN", "readN Reverse", "short", "short Reverse")}  # headers, no match
    assert len(expected) > 200 and parse(ours_text) == expected, proc.stderr[-2000:]


@pytest.mark.parametrize("mode", ["mems", "mums"])
def test_a_probe_set_with_all_n_and_short_probes_runs_to_the_end(tmp_path, mode):
    """Issue 35: one all-N probe stopped the whole run ("no A, C, G or T"). Probes with no ACGT and
    probes shorter than -l are skipped with a count in the log; every other probe's matches equal
    mummer's, and the skipped ones keep their headers with no match."""
    rng = random.Random(11)
    reference = "".join(rng.choice("ACGT") for _ in range(20_000))
    reference = reference[:10_000] + "N" * 400 + reference[10_000:]
    ref = tmp_path / "ref.fa"
    ref.write_text(">ref\n" + reference + "\n")
    probes = {f"p{i}": reference[at:at + 300] for i, at in enumerate(range(100, 20_000, 2_000)) if "N" not in reference[at:at + 300]}
    odd = {"allN": "N" * 300, "short": "ACGTA", "nonly": "n" * 40}
    every, kept = tmp_path / "probes.fa", tmp_path / "kept.fa"
    every.write_text("".join(f">{name}\n{seq}\n" for name, seq in {**probes, **odd}.items()))
    kept.write_text("".join(f">{name}\n{seq}\n" for name, seq in probes.items()))
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", mode, str(every), str(ref), "-l", "20", "-v"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert "3 query records skipped: 1 shorter than 20, 2 with no A, C, G or T" in proc.stderr
    got = parse(proc.stdout)
    skipped = {(name,) for name in odd} | {(f"{name} Reverse",) for name in odd}
    assert skipped <= got and not [row for row in got if len(row) > 1 and row[0].split()[0] in odd]
    assert got - skipped == mummer(mode, str(kept), str(ref), 20)


def under_headers(text: str) -> list[str]:
    """MUMmer output with the rows under each header sorted, the headers in their order: two outputs
    equal so are the same text but for the order of rows within a record and strand."""
    out, rows = [], []
    for line in text.splitlines():
        if line.startswith(">"):
            out += sorted(rows) + [line.strip()]
            rows = []
        elif line.strip():
            rows.append(" ".join(line.split()))
    return out + sorted(rows)


@pytest.mark.parametrize("mode", ["mems", "mums"])
@pytest.mark.parametrize("seed", [1, 2])
def test_probes_of_the_match_length_looked_up_whole_equal_mummer(tmp_path, mode, seed):
    """Issue 35 (seed 002's workload): records exactly -l long are looked up whole, by their hash among
    the reference windows' (matches_runs.whole_record_matches), not word by word. The output is mummer's,
    header for header: a probe found three times forward and once reversed, probes over a reference N
    run (N matches N) and at both ends of a record, one across two reference records (no match), one
    of a tandem repeat (many hits, so no MUM), probes found nowhere, and longer reads beside them (the
    word path), all in one run."""
    rng = random.Random(seed)
    bases = lambda n: "".join(rng.choice("ACGT") for _ in range(n))  # noqa: E731
    comp = str.maketrans("ACGTN", "TGCAN")
    L = 40
    motif, unit = bases(L), bases(7)
    r1 = (bases(500) + motif + bases(300) + motif + bases(200) + "N" * 25 + bases(400) + motif + bases(100)
          + motif[::-1].translate(comp) + bases(250) + unit * 30 + bases(300))
    r2 = bases(900)
    gap = r1.index("N")
    probes = {"three": motif, "n_run": r1[gap - 10:gap - 10 + L], "first": r1[:L], "last": r2[-L:],
              "across": r1[-20:] + r2[:20], "tandem": (unit * 8)[:L], "reversed": r2[300:300 + L][::-1].translate(comp),
              "nowhere": bases(L), "short": bases(5), "read": r1[1000:1130], "read_rc": r2[100:250][::-1].translate(comp)}
    probes.update({f"p{i}": r1[at:at + L] for i, at in enumerate(rng.sample(range(len(r1) - L), 12))})
    probes = {name: seq for name, seq in probes.items() if not set(seq) <= {"N"}}
    ref, query = tmp_path / "ref.fa", tmp_path / "probes.fa"
    ref.write_text(f">r1\n{r1}\n>r2\n{r2}\n")
    query.write_text("".join(f">{name}\n{seq}\n" for name, seq in probes.items()))
    flag = "-maxmatch" if mode == "mems" else "-mum"
    theirs = subprocess.run(["mummer", flag, "-b", "-c", "-l", str(L), str(ref), str(query)], capture_output=True,
                            text=True, check=True).stdout
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", mode, str(query), str(ref), "-l", str(L), "-v"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert f"query records of {L} looked up whole" in proc.stderr
    assert under_headers(proc.stdout) == under_headers(theirs)
    if mode == "mems":
        found = parse(proc.stdout)
        assert len([row for row in found if row[0] == "three"]) == 1 + 3
        assert len([row for row in found if row[0] == "three Reverse"]) == 1 + 1


@pytest.mark.parametrize("mode", ["mems", "mums"])
def test_long_n_runs_equal_mummer(tmp_path, mode):
    """Issue 35: N matches N, and every pair of all-N words was visited: two N runs of a and b bases
    cost a * b. Their MEMs now come from the runs themselves (matches_runs.n_run_mems): 20 kb runs on
    both sides (one at a record start, one sharing its flanks' bases) give mummer's output (mummer
    itself takes minutes at 100 kb: its time grows as a * b; ours 0.9 s there, 1.3 M MEMs)."""
    rng = random.Random(5)
    bases = lambda n: "".join(rng.choice("ACGT") for _ in range(n))  # noqa: E731
    flank = bases(50)
    ref = tmp_path / "ref.fa"
    ref.write_text(">r1\n" + bases(3000) + flank[:30] + "N" * 20_000 + flank[30:] + bases(2000) + "\n"
                   ">r2\n" + "N" * 12_000 + bases(1500) + "\n")
    query = tmp_path / "q.fa"
    query.write_text(">q1\n" + bases(1000) + flank[:30] + "N" * 20_000 + flank[30:] + bases(800) + "\n"
                     ">q2\n" + bases(500) + "N" * 14_000 + "\n")
    assert ours(mode, str(query), str(ref), 20) == mummer(mode, str(query), str(ref), 20)


def hundred_kb_n_runs(folder) -> tuple[str, str]:
    """(query, reference) FASTA paths of a pair whose two records each hold a 100 kb N run (q1 and r1's
    share their flanks' bases, r2's starts a record, q2's ends one)."""
    rng = random.Random(5)
    bases = lambda n: "".join(rng.choice("ACGT") for _ in range(n))  # noqa: E731
    flank = bases(50)
    reference = (">r1\n" + bases(3000) + flank[:30] + "N" * 100_000 + flank[30:] + bases(2000) + "\n"
                 ">r2\n" + "N" * 100_000 + bases(1500) + "\n")
    query = ">q1\n" + bases(1000) + flank[:30] + "N" * 100_000 + flank[30:] + bases(800) + "\n>q2\n" + bases(500) + "N" * 100_000 + "\n"
    paths = folder / "q.fa", folder / "r.fa"
    paths[0].write_text(query)
    paths[1].write_text(reference)
    return str(paths[0]), str(paths[1])


# mummer's output on hundred_kb_n_runs' pair at -l 20, its rows sorted under each header (under_headers),
# joined by line breaks: (lines, SHA-256). mummer -maxmatch took 654 s of CPU for it (its time grows as the
# product of the runs' lengths), so the test holds these and not a run of it:
#   mummer -maxmatch -b -c -l 20 r.fa q.fa  (MUMmer 3.23, Debian's mummer package), and -mum for mums
MUMMER_100KB = {"mems": (1_599_692, "10c5644df6499bf70dfe804a4c50c4e3d76a4f9c60fcb0a43f0804c895cd8c1c"), "mums": (6, "714c9e5b7f39b76e14c36fab344173a082ef6627ab665d857e226861715881c8")}


@pytest.mark.parametrize("mode", ["mems", "mums"])
def test_100_kb_n_runs_equal_mummer(tmp_path, mode):
    """Issue 35: mems and mums -l 20 on a pair with 100 kb N runs equal mummer's output (held as its
    digest, above): ours takes about a second, from the runs (matches_runs.n_run_mems)."""
    import hashlib

    query, reference = hundred_kb_n_runs(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", mode, query, reference, "-l", "20"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    lines = under_headers(proc.stdout)
    assert (len(lines), hashlib.sha256("\n".join(lines).encode()).hexdigest()) == MUMMER_100KB[mode]


def test_query_batches_change_nothing():
    """Matching a read set a batch of records at a time gives the same matches as all at once."""
    from gpu_kernels.backend import NumpyBackend
    from gpu_kernels.matches import find_matches
    from gpu_kernels.seqset import make_seqset
    from gpu_kernels.fasta import read_fasta

    genome = read_fasta(MYCO_7422)[0].codes
    rng = random.Random(4)
    starts = [rng.randrange(0, genome.size - 3000) for _ in range(40)]
    query = make_seqset([f"q{i}" for i in range(40)], [genome[s:s + rng.randint(500, 3000)] for s in starts])
    reference = make_seqset(["r"], [genome])
    rows = lambda m: sorted(zip(*(m[k].tolist() for k in MATCH.names)))
    for unique in (False, True):
        whole = find_matches(query, reference, 20, unique, NumpyBackend())
        batched = find_matches(query, reference, 20, unique, NumpyBackend(), batch_bases=5000)
        assert rows(whole) == rows(batched) and len(rows(whole)) >= 40


def test_matches_come_in_the_order_the_text_lists_them():
    """find_matches' rows are in MATCH's order (the writer trusts it, mummer_parts(ordered=True)): one
    record against one as found, others ordered; with whole-record probes, reverse strands, repeats."""
    from gpu_kernels.backend import NumpyBackend
    from gpu_kernels.hsps import in_order
    from gpu_kernels.matches import find_matches
    from gpu_kernels.seqset import make_seqset
    from gpu_kernels.fasta import read_fasta

    genome = read_fasta(MYCO_7422)[0].codes
    rng = random.Random(6)
    for nq, nr in ((1, 1), (1, 3), (5, 1), (5, 3)):
        cuts = [rng.randrange(0, genome.size - 20000) for _ in range(nq + nr)]
        pieces = [genome[c:c + rng.randint(3000, 20000)] for c in cuts]
        query = make_seqset([f"q{i}" for i in range(nq)], pieces[:nq] + ([genome[cuts[0]:cuts[0] + 13]] if nq > 1 else []))
        reference = make_seqset([f"r{i}" for i in range(nr)], pieces[nq:nq + nr - 1] + [genome])
        for unique in (False, True):
            m = find_matches(query, reference, 13, unique, NumpyBackend())
            columns = [m[name] for name in MATCH.order]
            assert m["length"].size > 3 and in_order(columns, [int(c.max()) + 1 for c in columns]), (nq, nr, unique)


@pytest.mark.skipif(shutil.which("show-coords") is None, reason="MUMmer's show-coords is not installed")
def test_show_coords_lists_exactly_the_hsps_of_the_paf(tmp_path):
    """compare --delta on the bundled pair: show-coords -r reads it and lists every HSP of the PAF, with
    the same records, 1-based coordinates (a reverse HSP's query from its higher end) and identity,
    in reference order; the delta made from the Parquet table and the one made in memory are the same."""
    paf, delta, table, direct = (tmp_path / name for name in ("h.paf", "h.delta", "h.parquet", "direct.delta"))
    base = [sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422]
    subprocess.run(base + ["-o", str(paf), "--delta", str(delta), "--hsps", str(table)], check=True, cwd=ROOT,
                   capture_output=True)
    subprocess.run(base + ["--delta", str(direct)], check=True, cwd=ROOT, capture_output=True)
    # the same but the header's FASTA paths: each delta names plain copies of the gzipped inputs beside it
    assert delta.read_bytes().split(b"\n", 1)[1] == direct.read_bytes().split(b"\n", 1)[1]
    assert delta.read_text().split("\n", 1)[0] == f"{delta}.reference.fa {delta}.query.fa"
    want = []
    for line in paf.read_text().splitlines():
        f = line.split("\t")
        qs, qe = (int(f[3]), int(f[2]) + 1) if f[4] == "-" else (int(f[2]) + 1, int(f[3]))
        identity = next(tag[5:] for tag in f[12:] if tag.startswith("id:f:"))
        want.append((int(f[7]) + 1, int(f[8]), qs, qe, identity, f[5], f[0]))
    coords = subprocess.run(["show-coords", "-r", "-T", "-H", str(delta)], check=True, capture_output=True,
                            text=True).stdout.splitlines()
    got = [(int(c[0]), int(c[1]), int(c[2]), int(c[3]), c[6], c[7], c[8]) for c in (line.split("\t") for line in coords)]
    assert len(got) == len(want) > 500
    assert sorted(got) == sorted(want)
    assert [row[0] for row in got] == sorted(row[0] for row in got)  # -r: in reference order
