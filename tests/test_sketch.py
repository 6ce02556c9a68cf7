"""A genome's sketch (gpu_kernels/workflow/sketch.py, sketch.c) against its oracle, and the size
estimates made from two sketches (estimate.py) on pairs whose answers are known."""
import numpy as np
import pytest

from gpu_kernels.workflow.estimate import (FAMILIES, UNRELATED, Widths, by_family, estimate_pair, output_bytes,
                                           size_table, tandem_pairs)
from gpu_kernels.workflow.genome import Chromosome
from gpu_kernels.workflow import sketch
from gpu_kernels.workflow.sketch import coarsened, load_sketch, make_sketch, save_sketch, sketch_shift
from oracle_sketch import family, oracle_sketch

LETTERS = np.frombuffer(b"ACGT", dtype=np.uint8)


def fasta(records: list[str], width: int = 60) -> tuple[bytes, np.ndarray]:
    """FASTA text of the records (lines of width, a blank and a CR here and there) and their bodies' spans."""
    text, spans = b"", []
    for i, seq in enumerate(records):
        text += f">r{i} some words\n".encode()
        start = len(text)
        lines = [seq[j:j + width] for j in range(0, len(seq), width)]
        text += "".join(line + ("\r\n" if k % 7 == 3 else " \n" if k % 11 == 5 else "\n")
                        for k, line in enumerate(lines)).encode()
        spans.append((start, len(text)))
    return text, np.array(spans, dtype=np.int64)


def random_seq(rng, n: int) -> str:
    return LETTERS[rng.integers(0, 4, n)].tobytes().decode()


def mutated(rng, seq: str, rate: float) -> str:
    """seq with a share `rate` of its bases changed to another base."""
    codes = np.frombuffer(seq.encode(), dtype=np.uint8).copy()
    at = rng.random(codes.size) < rate
    other = {ord(a): [ord(b) for b in "ACGT" if b != a] for a in "ACGT"}
    codes[at] = [other[c][k] for c, k in zip(codes[at].tolist(), rng.integers(0, 3, int(at.sum())).tolist())]
    return codes.tobytes().decode()


@pytest.mark.parametrize("room", ["enough", "none"])
def test_sites_and_periodic_runs_are_the_oracles(room, monkeypatch):
    """Whole records and records cut in pieces anywhere; with no room, every piece is read a second time
    with the room its first reading found it needs. The sites come in 20-mer order (the oracle's file
    order within a 20-mer)."""
    if room == "none":
        monkeypatch.setattr(sketch, "ROOM_MARGIN", 0.0)
        monkeypatch.setattr(sketch, "ROOM_EXTRA", 1)
        monkeypatch.setattr(sketch, "RUN_SPACING", 1 << 40)
        monkeypatch.setattr(sketch, "RUN_EXTRA", 0)
    rng = np.random.default_rng(5)
    first = random_seq(rng, 3000)
    microsatellite = "ac" * 20 + "g" + "ac" * 30 + "T" * 10 + "AC" * 25  # a run through a mismatch, then another
    first = first[:700] + microsatellite + "N" * 3 + first[700:1500].lower() + "A" * 50 + first[1500:] + "RYK" + \
        "CAG" * 30 + "T" * 40
    records = [first, random_seq(rng, 25), "ACGT" * 5, random_seq(rng, 1200), "TG" * 60]
    text, spans = fasta(records)
    sites, runs = oracle_sketch(records, 2)
    # whole records, and records cut in pieces anywhere (a run of "ac" through a cut, a piece of blanks)
    for piece_bytes in (None, 1, 7, 61, 250):
        made = make_sketch(text, spans, 2, piece_bytes)
        assert [tuple(int(v) for v in row) for row in made.sites.tolist()] == sorted(sites, key=lambda site: site[0])
        assert [tuple(int(v) for v in row) for row in made.runs.tolist()] == runs
    kinds = [kind for kind, _ in runs]
    assert family("AC" * 16, 2) == family("TG" * 16, 2) == family("CA" * 16, 2)  # rotations and strands: one
    assert kinds.count(family("AC" * 16, 2)) == 3 and family("A" * 32, 1) in kinds


def test_a_coarser_shift_keeps_the_finer_ones_sites_below_its_threshold(tmp_path):
    rng = np.random.default_rng(6)
    text, spans = fasta([random_seq(rng, 40_000), random_seq(rng, 9_000)])
    fine, coarse = make_sketch(text, spans, 2), make_sketch(text, spans, 5)
    assert np.array_equal(coarsened(fine.sites, 5), coarse.sites)
    assert 0 < coarse.sites.size < fine.sites.size
    save_sketch(coarse, str(tmp_path / "s.npz"))
    back = load_sketch(str(tmp_path / "s.npz"))
    assert back.shift == 5 and np.array_equal(back.sites, coarse.sites)
    assert load_sketch(str(tmp_path / "none.npz")) is None


def test_the_sketch_counts_the_records_bases_and_its_shift_as_the_scan_would():
    """make_sketch with no shift: the genome's own (sketch_shift of its bases), and each record's bases
    (blanks left out) where asked for: what the genome scan takes from its one count of the blanks."""
    rng = np.random.default_rng(8)
    records = [random_seq(rng, 70_000), random_seq(rng, 33), random_seq(rng, 5_000).lower()]
    text, spans = fasta(records)
    for piece_bytes in (None, 1000, 64):
        lengths = np.zeros(len(records), dtype=np.int64)
        made = make_sketch(text, spans, None, piece_bytes, lengths=lengths)
        assert lengths.tolist() == [len(r) for r in records]
        expected = make_sketch(text, spans, sketch_shift(sum(map(len, records))), piece_bytes)
        assert made.shift == expected.shift and np.array_equal(made.sites, expected.sites)
        assert np.array_equal(made.runs, expected.runs)


def test_the_shift_keeps_a_genome_between_its_bounds():
    assert sketch_shift(900_000) == 5  # a bacterium: a 32nd of its bases
    assert sketch_shift(3_100_000_000) == 11  # a human-sized genome: about 1.5 M sites


def sketch_of(records):
    text, spans = fasta(records)
    bases = sum(len(r) for r in records)
    return make_sketch(text, spans, sketch_shift(bases)), bases


def pair_counts(query, reference, max_freq=0):
    (qs, qb), (rs, rb) = sketch_of(query), sketch_of(reference)
    return estimate_pair(qs, rs, (qb, rb), max_freq, 64)


@pytest.mark.parametrize("rate", [0.0, 0.02, 0.08])
def test_divergence_and_aligned_bases_of_a_pair_with_a_known_substitution_rate(rate):
    rng = np.random.default_rng(7)
    query = [random_seq(rng, 1_500_000)]
    counts = pair_counts(query, [mutated(rng, query[0], rate)])
    assert abs(counts.divergence - rate) <= 0.15 * rate + 0.002
    assert 0.85 * 1_500_000 <= counts.aligned <= 1_500_000
    assert counts.alignments >= 1 and counts.repeat_hsps == 0


def test_unrelated_genomes_align_nowhere():
    rng = np.random.default_rng(8)
    counts = pair_counts([random_seq(rng, 800_000)], [random_seq(rng, 900_000)])
    assert counts.aligned == 0 and counts.alignments == 0 and counts.hsps < 10
    assert counts.divergence > UNRELATED


def test_periodic_runs_make_a_diagonal_an_hsp_and_a_long_enough_overlap_a_chain():
    """A poly-A run of 200 on one side, of 100 and 200 (poly-T: the other strand) on the other: 169
    words against 69 and 169, so 169 + 69 - 1 and 169 + 169 - 1 diagonals hold a seed; those on which
    they overlap by 150 bases or more are 0 and 200 + 200 - 2 * 150 + 1."""
    rng = np.random.default_rng(9)
    query, reference = random_seq(rng, 50_000), random_seq(rng, 50_000)
    q, _ = sketch_of([query[:20_000] + "C" + "A" * 200 + "C" + query[20_000:]])
    r, _ = sketch_of([reference[:30_000] + "C" + "A" * 100 + "C" + reference[30_000:40_000] + "G" + "T" * 200 + "G" +
                      reference[40_000:]])
    assert tandem_pairs(q.runs, r.runs, 0) == (169 + 69 - 1) + (169 + 169 - 1)
    assert tandem_pairs(q.runs, r.runs, 0, 150) == 101
    assert tandem_pairs(q.runs, r.runs, 20) == 0  # fast mode leaves the frequent words out


def with_copies(rng, consensus: str, copies: int, rate: float, length: int) -> str:
    """A random sequence of length with copies of consensus put in at 400-base steps, each its own
    `rate` of substitutions from it."""
    seq = random_seq(rng, length)
    parts, last = [], 0
    for at in np.sort(rng.choice(length // 400, copies, replace=False)) * 400:
        parts += [seq[last:at], mutated(rng, consensus, rate)]
        last = at
    return "".join(parts) + seq[last:]


@pytest.mark.parametrize("rate", [0.01, 0.05, 0.08])
def test_repeat_copies_hsps_follow_their_familys_divergence(rate, tmp_path):
    """Two unrelated genomes sharing a family of 250 copies each: the copies' HSPs, which the engine
    finds exhaustively, estimated within 0.4x to 2x from the sketches whether the copies are young
    (one HSP a pair of copies, many seeds each) or old (a few seeds an HSP, most pairs none). One
    divergence for all seeds, taken where the 32-mers are shared at all, gave a tenth to a third."""
    from gpu_kernels import Params, compare

    rng = np.random.default_rng(3)
    consensus = random_seq(rng, 300)
    query, reference = (with_copies(rng, consensus, 250, rate, 300_000) for _ in range(2))
    paths = []
    for name, seq in (("q", query), ("r", reference)):
        paths.append(tmp_path / f"{name}.fa")
        paths[-1].write_text(f">{name}\n{seq}\n")
    found = compare(str(paths[0]), str(paths[1]), Params(max_freq=0)).rows
    estimated = pair_counts([query], [reference]).repeat_hsps
    assert 0.4 * found <= estimated <= 2 * found, (estimated, found)


def test_output_bytes_follow_the_counts_and_the_table_sums_them():
    rng = np.random.default_rng(10)
    query = [random_seq(rng, 600_000)]
    counts = pair_counts(query, [mutated(rng, query[0], 0.03)])
    widths = Widths.of([Chromosome("chr1", 600_000)], [Chromosome("chr1", 600_000)])
    kinds = [kind for family in FAMILIES.values() for kind in family]
    sizes = output_bytes(counts, widths, kinds)
    assert set(sizes) == set(kinds)
    # about a line a substitution, of about 27 bytes
    assert 0.5 <= sizes["snps"] / (0.03 * 600_000 * 27) <= 2
    assert output_bytes(counts, widths, ["hsps"]) == {"hsps": sizes["hsps"]}
    assert sizes["chains_paf"] >= output_bytes(counts, widths, ["chains_paf"], all_chains=False)["chains_paf"]
    table = size_table([("default/A_vs_B", sizes, 1_200_000)])
    assert table[1].split()[0] == "default/A_vs_B" and table[-1].startswith("  total ")
    assert sum(by_family(sizes).values()) == sum(sizes.values())


@pytest.mark.parametrize("max_freq", [1, 3, 20])
def test_fast_modes_seeding_copies_are_those_of_records_that_hold_few(max_freq):
    """_kept_words: each 32-mer's copies in records that hold it at most max_freq times on one strand,
    summed over records, as a count a record and strand gives them; 32-mers none of whose records keeps
    its copies are left out."""
    from collections import Counter

    from gpu_kernels.workflow.estimate import _kept_words
    from gpu_kernels.workflow.sketch import FORWARD, SITE

    rng = np.random.default_rng(max_freq)
    words = np.zeros(5000, dtype=SITE)
    words["h32"] = rng.integers(1, 60, words.size) ** 3  # a few 32-mers of many copies, and rare ones
    words["rec"] = rng.integers(0, 4, words.size)
    words["flags"] = rng.integers(0, 2, words.size) * FORWARD
    held = Counter(zip(words["h32"].tolist(), words["rec"].tolist(), (words["flags"] & FORWARD).tolist()))
    expected = Counter()
    for (h32, _, _), copies in held.items():
        if copies <= max_freq:
            expected[h32] += copies
    keys, kept = _kept_words(words, max_freq)
    assert dict(zip(keys.tolist(), kept.tolist())) == dict(expected) and np.all(np.diff(keys.astype(np.float64)) > 0)
