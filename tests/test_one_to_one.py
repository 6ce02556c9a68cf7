"""One-to-one alignments that share no base (gpu_kernels/one_to_one.py, align_trim.c): the cut of each
end against a slow column-by-column walk, the texts cut against the columns cut and written again, the
intervals' start cuts against a base-by-base check, and the bundled pair and a draft end to end (no base
of either genome in two one-to-one rows, the texts adding up, one VCF record a site)."""
import re

import numpy as np
import pytest

from gpu_kernels import native
from gpu_kernels.one_to_one import (COLUMNS, CUT_D, CUT_EQ, CUT_I, CUT_N, CUT_SCORE, CUT_X, DQ_BACK, DQ_FRONT, DR_BACK,
                                  DR_FRONT, EMPTIED, SKIP_BACK, SKIP_FRONT, TRIM_FIELDS, start_cuts)

SCORES = (2, 3, 5, 2)  # align_match, align_mismatch, gap_open, gap_extend


def drawn_ops(rng, n: int) -> str:
    """Columns of an alignment: runs of =, X, I, D, starting and ending with `=`."""
    ops = []
    while len(ops) < n:
        op = rng.choice(list("=XID"), p=[0.6, 0.2, 0.1, 0.1])
        ops += [op] * int(rng.integers(1, 6))
    return "=" + "".join(ops) + "="


def runs_of(ops: str):
    return [(len(m.group()), m.group()[0]) for m in re.finditer(r"(=+|X+|I+|D+)", ops)]


def cigar_of(ops: str) -> str:
    return "".join(f"{n}{op}" for n, op in runs_of(ops))


def cs_of(ops: str, q: str, r: str) -> str:
    out, i, j = [], 0, 0
    for n, op in runs_of(ops):
        if op == "=":
            out.append(f":{n}")
        elif op == "X":
            out += [f"*{r[j + k]}{q[i + k]}" for k in range(n)]
        elif op == "I":
            out.append("+" + q[i:i + n])
        else:
            out.append("-" + r[j:j + n])
        i += n if op in "=XI" else 0
        j += n if op in "=XD" else 0
    return "".join(out)


def delta_of(ops: str) -> str:
    out, last = [], 0
    for c, op in enumerate(ops, start=1):
        if op in "ID":
            out.append(f"{'-' if op == 'I' else ''}{c - last}\n")
            last = c
    return "".join(out) + "0\n"


def slow_cut(ops: str, want_q: int, want_r: int, qs, rs) -> tuple:
    """Columns taken from the front of ops until want_q query and want_r reference bases are and an `=`
    column comes (none where nothing is wanted), and what they held: (columns, query bases, reference
    bases, counts of = X I D N, score)."""
    if want_q <= 0 and want_r <= 0:
        return 0, 0, 0, [0] * 5, 0
    k = cq = cr = score = 0
    counts = dict.fromkeys("=XIDN", 0)
    while k < len(ops) and not (cq >= want_q and cr >= want_r and ops[k] == "="):
        op = ops[k]
        counts[op] += 1
        if op == "=":
            score += SCORES[0]
        elif op == "X":
            n = qs[cq] > 3 or rs[cr] > 3
            counts["N"] += n
            score -= 0 if n else SCORES[1]
        else:
            score -= SCORES[3] + (SCORES[2] if k == 0 or ops[k - 1] != op else 0)
        cq += op in "=XI"
        cr += op in "=XD"
        k += 1
    return k, cq, cr, [counts[c] for c in "=XIDN"], score


@pytest.mark.parametrize("seed", range(8))
def test_each_cut_is_the_slow_walks(seed):
    """trim_walk on drawn alignments (both strands, N bases, wants of 0 to past the whole) against
    slow_cut from each end; an alignment cut away wholly says so."""
    rng = np.random.default_rng(seed)
    items = []
    for _ in range(40):
        ops = drawn_ops(rng, int(rng.integers(5, 80)))
        nq, nr = sum(op in "=XI" for op in ops), sum(op in "=XD" for op in ops)
        q = rng.integers(0, 4, nq).astype(np.uint8)
        r = rng.integers(0, 4, nr).astype(np.uint8)
        q[rng.random(nq) < 0.1], r[rng.random(nr) < 0.1] = 4, 4
        reverse = bool(rng.integers(2))
        want = [int(rng.integers(0, nq + 3)) if rng.random() < 0.6 else 0 for _ in range(4)]
        items.append((ops, q, r, reverse, want))
    # codes laid one after another; a reverse alignment's query read from its end along PAF's columns
    qcodes = np.concatenate([q for _, q, _, _, _ in items])
    rcodes = np.concatenate([r for _, _, r, _, _ in items])
    qat = np.cumsum([0] + [q.size for _, q, _, _, _ in items])
    rat = np.cumsum([0] + [r.size for _, _, r, _, _ in items])
    cigars = [cigar_of(ops).encode() for ops, *_ in items]
    offsets = np.cumsum([0] + [len(c) for c in cigars]).astype(np.int64)
    n = len(items)
    rev = np.array([it[3] for it in items])
    q_front = np.where(rev, qat[1:] - 1, qat[:-1]).astype(np.int64)
    q_back = np.where(rev, qat[:-1], qat[1:] - 1).astype(np.int64)
    out = np.zeros((n, TRIM_FIELDS), np.int64)
    native.module("_cpu").trim_walk(b"".join(cigars), offsets, np.array([it[4] for it in items], np.int64),
                                    q_front, q_back, rat[:-1].astype(np.int64), (rat[1:] - 1).astype(np.int64),
                                    np.where(rev, -1, 1).astype(np.int8), qcodes, rcodes, *SCORES, out, 2)
    for k, (ops, q, r, reverse, want) in enumerate(items):
        qs = list(q[::-1]) if reverse else list(q)  # the query's bases in PAF's column order
        front = slow_cut(ops, want[0], want[1], qs, list(r))
        back = slow_cut(ops[::-1], want[2], want[3], qs[::-1], list(r[::-1]))
        got = out[k]
        assert got[COLUMNS] == len(ops)
        assert got[EMPTIED] == (front[0] + back[0] >= len(ops)), (ops, want)
        assert (got[SKIP_FRONT], got[DQ_FRONT], got[DR_FRONT]) == front[:3], (ops, want)
        assert (got[SKIP_BACK], got[DQ_BACK], got[DR_BACK]) == back[:3], (ops, want)
        if not got[EMPTIED]:
            counts = [a + b for a, b in zip(front[3], back[3])]
            assert [got[f] for f in (CUT_EQ, CUT_X, CUT_I, CUT_D, CUT_N)] == counts
            assert got[CUT_SCORE] == front[4] + back[4]


@pytest.mark.parametrize("seed", range(6))
def test_texts_cut_are_the_columns_cut_written_again(seed):
    """trim_text's CIGARs, cs strings and delta indel lines, cut at drawn columns, against the columns
    cut first and their text written again."""
    rng = np.random.default_rng(50 + seed)
    cases = []
    for _ in range(30):
        ops = drawn_ops(rng, int(rng.integers(3, 60)))
        q = "".join(rng.choice(list("acgtn"), sum(op in "=XI" for op in ops)))
        r = "".join(rng.choice(list("acgtn"), sum(op in "=XD" for op in ops)))
        front = int(rng.integers(0, len(ops)))
        back = int(rng.integers(0, len(ops) - front))
        cases.append((ops, q, r, front, back))
    cpu = native.module("_cpu")
    for kind, make in ((0, lambda o, q, r: cigar_of(o)), (1, cs_of), (2, lambda o, q, r: delta_of(o))):
        texts = [make(ops, q, r).encode() for ops, q, r, _, _ in cases]
        offsets = np.cumsum([0] + [len(t) for t in texts]).astype(np.int64)
        front = np.array([c[3] for c in cases], np.int64)
        back = np.array([c[4] for c in cases], np.int64)
        columns = np.array([len(c[0]) for c in cases], np.int64)
        size = np.empty(len(cases), np.int64)
        cpu.trim_text(kind, b"".join(texts), offsets, front, back, columns, size, np.empty(0, np.uint8), 2)
        at = np.concatenate(([0], np.cumsum(size))).astype(np.int64)
        body = np.empty(int(at[-1]), np.uint8)
        cpu.trim_text(kind, b"".join(texts), offsets, front, back, columns, at[:-1].copy(), body, 2)
        for k, (ops, q, r, f, b) in enumerate(cases):
            i = sum(op in "=XI" for op in ops[:f])
            j = sum(op in "=XD" for op in ops[:f])
            kept = ops[f:len(ops) - b]
            want = make(kept, q[i:], r[j:]) if kind != 2 else delta_of(kept)
            assert body[at[k]:at[k + 1]].tobytes().decode() == want, (kind, ops, f, b)


@pytest.mark.parametrize("seed", range(5))
def test_start_cuts_leave_no_base_in_two_intervals(seed):
    """The intervals cut share no base, each keeps what lies past every interval starting before it (the
    longer first at equal starts), and one inside another is cut wholly."""
    rng = np.random.default_rng(seed)
    n = 60
    rec = rng.integers(0, 3, n)
    start = rng.integers(0, 400, n)
    end = start + rng.integers(1, 80, n)
    cut = start_cuts(rec, start, end)
    order = sorted(range(n), key=lambda k: (rec[k], start[k], -end[k]))
    reach = {}
    for k in order:
        before = reach.get(rec[k], -1)
        assert cut[k] == min(max(0, before - start[k]), end[k] - start[k])
        reach[rec[k]] = max(before, end[k])
    covered = {}
    for k in range(n):
        for x in range(start[k] + cut[k], end[k]):
            assert (rec[k], x) not in covered
            covered[rec[k], x] = k


def one_to_one_rows(paf):
    return [line.split("\t") for line in open(paf) if "tp:A:P" in line]


def shared_bases(rows) -> int:
    total = 0
    for name, lo, hi in ((0, 2, 3), (5, 7, 8)):
        spans = sorted((r[name], int(r[lo]), int(r[hi])) for r in rows)
        reach = {}
        for rec, a, b in spans:
            total += max(0, min(b, reach.get(rec, -1)) - a)
            reach[rec] = max(reach.get(rec, -1), b)
    return total


@pytest.mark.parametrize("pair", ["bundled", "draft"])
def test_no_base_in_two_one_to_one_alignments(tmp_path, pair):
    """The bundled pair (its one-to-one rows shared 5,029 query and 2,698 reference bases where their
    extended ends met) and a draft of contigs against a genome: no base of either in two one-to-one rows;
    each row's CIGAR adds up to its spans, identical columns and NM; the VCF holds a site once."""
    from conftest import MYCO_232, MYCO_7422
    from gpu_kernels.__main__ import main

    if pair == "bundled":
        query, reference = MYCO_232, MYCO_7422
    else:
        import sys

        from conftest import ROOT

        sys.path.insert(0, f"{ROOT}/bench")
        from simulate_set import write_set

        write_set(3, str(tmp_path / "set"), 300_000, (200_000, 400_000), height=0.05, draft=1.0, seed=4)
        query, reference = str(tmp_path / "set" / "g0001.fa"), str(tmp_path / "set" / "g0002.fa")
    paf, vcf = tmp_path / "a.paf", tmp_path / "a.vcf"
    assert main(["align", query, reference, "-o", str(paf), "--vcf", str(vcf), "--backend", "numpy"]) == 0
    rows = one_to_one_rows(paf)
    assert len(rows) > 10 and shared_bases(rows) == 0
    for r in rows:
        cigar = next(t[5:] for t in r[12:] if t.startswith("cg:Z:")).strip()
        counts = {op: sum(int(n) for n, o in re.findall(r"(\d+)([=XID])", cigar) if o == op) for op in "=XID"}
        assert counts["="] + counts["X"] + counts["I"] == int(r[3]) - int(r[2])
        assert counts["="] + counts["X"] + counts["D"] == int(r[8]) - int(r[7])
        assert int(r[9]) == counts["="] and f"NM:i:{counts['X'] + counts['I'] + counts['D']}" in r
        assert re.fullmatch(r"\d+=.*\d+=", cigar)  # a cut ends before an identical column
    sites = [tuple(line.split("\t")[:5]) for line in open(vcf) if not line.startswith("#")]
    assert len(sites) == len(set(sites)) > 100
    # the bundled pair's shared ends once made a <DUP> of 2,665 bases; none is there
    assert pair != "bundled" or not any(site[4] == "<DUP>" for site in sites)
