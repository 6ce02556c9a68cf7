"""Gapped alignments against their oracle (tests/oracle_align.py): drawn chains over sequences with
substitutions, indels (near the blocks' ends and borders too), N runs and repeats, on both strands
and several records; and the alignments of the bundled pair."""
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
       gap_open=st.sampled_from([0, 6]), mismatch=st.sampled_from([1, 4]), secondary=st.booleans())
def test_alignments_equal_the_oracle_on_drawn_chains(seed, records, band, min_anchor, zdrop, gap_open, mismatch,
                                                     secondary):
    query, reference, chains, blocks = drawn_case(seed, records)
    params = Params(band=band, min_anchor=min_anchor, zdrop=zdrop, gap_open=gap_open, align_mismatch=mismatch,
                    min_align_score=10, secondary=secondary)
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
