"""Sensitivity of the identity-aware extension: coverage of the real pair, and no exact match of
min_len bases or more (found by MUMmer's own mummer) left outside an HSP of its diagonal and strand.

Skipped where mummer is not installed (CI installs it).
"""
import random
import shutil
import subprocess
from collections import defaultdict

import numpy as np
import pytest

from conftest import MYCO_232, MYCO_7422
from generate import invert, mutate
from gpu_kernels import Params, compare
from gpu_kernels.fasta import read_fasta

needs_mummer = pytest.mark.skipif(shutil.which("mummer") is None, reason="MUMmer's mummer is not installed")

COMP = np.array([3, 2, 1, 0, 4], dtype=np.uint8)


def exact_matches(query: str, reference: str, min_len: int) -> list[tuple]:
    """(query record, strand, qstart, rstart, length) of every maximal exact match of >= min_len bases,
    from `mummer -maxmatch -b -c`; query positions on its forward strand, 0-based, reference record
    names as mummer prints them (the first word of the header)."""
    proc = subprocess.run(["mummer", "-maxmatch", "-b", "-c", "-n", "-l", str(min_len), reference, query],
                          capture_output=True, text=True, check=True)
    out, header, strand = [], None, 0
    for line in proc.stdout.splitlines():
        if line.startswith(">"):
            words = line[1:].split()
            header, strand = words[0], int(len(words) > 1 and words[-1] == "Reverse")
            continue
        fields = line.split()
        rname = fields[0] if len(fields) == 4 else None
        rpos, qpos, length = (int(x) for x in fields[-3:])
        # -c: a reverse match's query position is the forward position of its first (reverse) base,
        # i.e. the last base of its forward interval
        qstart = qpos - 1 if strand == 0 else qpos - length
        out.append((header, rname, strand, qstart, rpos - 1, length))
    return out


def missed(result, matches) -> list[tuple]:
    """The matches that lie inside no HSP of their query record, reference record, strand and diagonal."""
    h = result.hsps
    qnames, rnames = result.query.names, result.reference.names
    by_line = defaultdict(list)
    for qrec, rrec, strand, qs, qe, rs, re_ in zip(h["qrec"].tolist(), h["rrec"].tolist(), h["strand"].tolist(),
                                                   h["qstart"].tolist(), h["qend"].tolist(), h["rstart"].tolist(),
                                                   h["rend"].tolist()):
        # forward: query x pairs with reference x - (qs - rs); reverse: qs pairs with re_ - 1
        line = qs - rs if strand == 0 else qs + re_ - 1
        by_line[(qnames[qrec], rnames[rrec], strand, line)].append((qs, qe))
    out = []
    for qname, rname, strand, a, b, length in matches:
        rname = rname or rnames[0]
        line = a - b if strand == 0 else a + b + length - 1
        if not any(s <= a and a + length <= e for s, e in by_line.get((qname, rname, strand, line), ())):
            out.append((qname, rname, strand, a, b, length))
    return out


@pytest.fixture(scope="module")
def real_pair(tmp_path_factory):
    import gzip

    folder = tmp_path_factory.mktemp("myco")
    paths = []
    for source, name in ((MYCO_232, "q.fa"), (MYCO_7422, "r.fa")):
        (folder / name).write_bytes(gzip.decompress(open(source, "rb").read()))
        paths.append(str(folder / name))
    return paths, compare(MYCO_232, MYCO_7422, Params())


def test_real_pair_coverage_and_identity(real_pair):
    """Defaults (k 32, min len 64, min identity 80): query coverage >= 94.95 %, recomputed from the
    sequences, and every HSP >= 80 % identical (GPUGECKO 94.96 %, nucmer 94.97 %)."""
    _, result = real_pair
    q = read_fasta(MYCO_232)[0].codes
    r = read_fasta(MYCO_7422)[0].codes
    h = result.hsps
    covered = np.zeros(q.size, dtype=bool)
    for qs, qe, rs, re_, strand in zip(h["qstart"].tolist(), h["qend"].tolist(), h["rstart"].tolist(),
                                       h["rend"].tolist(), h["strand"].tolist()):
        ref = r[rs:re_] if strand == 0 else COMP[r[rs:re_][::-1]]
        same = int(((q[qs:qe] == ref) & (ref < 4)).sum())
        assert same * 100 >= 80 * (qe - qs) and qe - qs >= 64
        covered[qs:qe] = True
    assert covered.mean() >= 0.9495, covered.mean()
    assert result.coverage() == pytest.approx(covered.mean())


@needs_mummer
def test_real_pair_misses_no_exact_match(real_pair):
    (query, reference), result = real_pair
    matches = exact_matches(query, reference, 64)
    assert len(matches) > 3000
    lost = missed(result, matches)
    assert not lost, f"{len(lost)} exact matches outside every HSP of their diagonal, e.g. {lost[:3]}"


def repeat_rich_pair(seed: int, length: int) -> tuple[str, str]:
    """Two descendants of one ancestor with interspersed repeats (copies 0-15 % diverged, half of them
    reverse-complemented), substitutions and indels, and an inversion in one of them."""
    rng = random.Random(seed)
    comp = {"A": "T", "C": "G", "G": "C", "T": "A"}
    families = ["".join(rng.choice("ACGT") for _ in range(rng.randint(200, 1500))) for _ in range(6)]
    parts = []
    while sum(map(len, parts)) < length:
        parts.append("".join(rng.choice("ACGT") for _ in range(rng.randint(300, 3000))))
        copy = mutate(rng.choice(families), rng, subst=rng.uniform(0, 0.15), indel=0.01)
        parts.append("".join(comp[c] for c in reversed(copy)) if rng.random() < 0.5 else copy)
    ancestor = "".join(parts)
    query = mutate(ancestor, rng, subst=0.01, indel=0.001)
    reference = invert(mutate(ancestor, rng, subst=0.04, indel=0.004), rng)
    return query, reference


@needs_mummer
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_pairs_miss_no_exact_match(tmp_path, seed):
    query, reference = repeat_rich_pair(seed, 60_000)
    paths = []
    for name, seq in (("q.fa", query), ("r.fa", reference)):
        (tmp_path / name).write_text(f">{name[0]}\n{seq}\n")
        paths.append(str(tmp_path / name))
    result = compare(paths[0], paths[1], Params())
    matches = exact_matches(paths[0], paths[1], 64)
    assert len(matches) > 50 and any(m[2] == 1 for m in matches)
    lost = missed(result, matches)
    assert not lost, f"{len(lost)} of {len(matches)} exact matches missed, e.g. {lost[:3]}"
