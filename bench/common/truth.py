"""The truth of a simulated pair (bench/simulate.py --truth) and the aligned column pairs of PAF
alignments scored against it.

A true column pair is a query base and a reference base that descend from the same ancestral base
(substituted or not), on the strand their orientations give; inserted bases and N gaps have none.
Alignments are read from PAF with cg:Z (M, =, X, I, D: minimap2's, nucmer's through paftools,
ours), and every M, = or X column is one aligned pair. Precision: the share of aligned pairs that
are true; recall: the share of true pairs aligned (of all of them, or of those a reference set,
say the HSPs, holds).
"""
from __future__ import annotations

import re

import numpy as np

from gpu_kernels.encode import COMPLEMENT  # of the sequence codes (A C G T N = 0 1 2 3 4)


class Truth:
    """For every query base of each chromosome, its true reference partner (position, -1 for none)
    and strand (0 same orientation, 1 opposite)."""

    def __init__(self, path: str, without_n: tuple[str, str] | None = None):
        """without_n: the pair's (query, reference) FASTA, whose N bases then have no partner (and
        score() leaves the columns holding one out: an assembly gap's bases are unknown)."""
        data = np.load(path)
        names = sorted({key.split("/", 1)[1] for key in data.files})
        self.partner, self.strand = {}, {}
        for name in names:
            q, r = data[f"query/{name}"], data[f"reference/{name}"]
            where = np.full(int(np.abs(np.concatenate((q, r))).max()) + 1, -1, dtype=np.int64)
            where[np.abs(r[r != 0])] = np.flatnonzero(r != 0)
            found = np.where(q != 0, where[np.abs(q)], -1)
            self.partner[name] = found
            opposite = np.sign(q) != np.sign(r[np.maximum(found, 0)])
            self.strand[name] = np.where(found >= 0, opposite.astype(np.int8), -1)
        self.n = None
        if without_n:
            from gpu_kernels.fasta import read_fasta

            self.n = [{record.name: record.codes > 3 for record in read_fasta(path)} for path in without_n]
            for name, partner in self.partner.items():
                qn, rn = self.n[0][name], self.n[1][name]
                gone = qn | (partner >= 0) & rn[np.maximum(partner, 0)]
                partner[gone], self.strand[name][gone] = -1, -1

    def true_pairs(self) -> int:
        return int(sum((p >= 0).sum() for p in self.partner.values()))


def _run_ends(letters: np.ndarray) -> np.ndarray:
    """For each base, the position of the last base of the run of one letter holding it."""
    if not letters.size:
        return np.zeros(0, dtype=np.int64)
    change = np.flatnonzero(letters[1:] != letters[:-1]) + 1
    ends = np.concatenate((change - 1, [letters.size - 1]))
    return np.repeat(ends, np.diff(np.concatenate(([0], change, [letters.size]))))


class Shifts:
    """Wrong aligned pairs that are an indel placed elsewhere in a run of one letter, as the truth's own
    at equal score: the query base against a reference base of the run of its letter that holds its true
    partner, or the reference base against a query base of the run holding its true partner (a deletion
    or an insertion in a homopolymer: which base of the run the simulator took, no alignment can tell).
    Needs both FASTA files of the pair."""

    def __init__(self, truth: Truth, query_fasta: str, reference_fasta: str):
        from gpu_kernels.fasta import read_fasta

        self.truth = truth
        self.q = {record.name: record.codes for record in read_fasta(query_fasta)}
        self.r = {record.name: record.codes for record in read_fasta(reference_fasta)}
        self.q_ends = {name: _run_ends(s) for name, s in self.q.items()}
        self.r_ends = {name: _run_ends(s) for name, s in self.r.items()}
        self.back = {}  # each reference base's true query partner (-1: none)
        for name, partner in truth.partner.items():
            back = np.full(self.r[name].size, -1, dtype=np.int64)
            back[partner[partner >= 0]] = np.flatnonzero(partner >= 0)
            self.back[name] = back

    def equal(self, name: str, qs: np.ndarray, rs: np.ndarray, reverse: int) -> tuple:
        """Of wrong pairs (qs[i], rs[i]) on one strand: which are such shifts, and the query base whose
        true pair each stands for."""
        t, q, r = self.truth, self.q[name], self.r[name]
        qb = COMPLEMENT[q[qs]] if reverse else q[qs]
        same = (qb == r[rs]) & (qb < 4)
        # the reference base's true partner in the run of the query base (each aligned reference base
        # stands for its own true pair, so no two shifts stand for one), else the query base's true
        # partner in the run of the reference base
        mate = self.back[name][rs]
        lo, hi = np.minimum(mate, qs), np.maximum(mate, qs)
        mate_ok = (mate >= 0) & (t.strand[name][np.maximum(mate, 0)] == reverse)
        by_query = same & mate_ok & (q[np.maximum(lo, 0)] == q[qs]) & (self.q_ends[name][np.maximum(lo, 0)] >= hi)
        partner = t.partner[name][qs]
        lo, hi = np.minimum(partner, rs), np.maximum(partner, rs)
        by_reference = same & ~by_query & (partner >= 0) & (t.strand[name][qs] == reverse) & \
            (r[np.maximum(lo, 0)] == qb) & (self.r_ends[name][np.maximum(lo, 0)] >= hi)
        return by_query | by_reference, np.where(by_query, mate, qs)


def paf_blocks(path: str, only: str | None = None, numbered: bool = False):
    """Ungapped blocks of the alignments of a PAF file with cg:Z: (query name, reference name, strand,
    query start, reference start, length) per M/=/X run, the query start counted on its forward
    strand (a reverse block covers query [q, q + length) against reference [r, r + length) reversed).
    only: a tag (tp:A:P) a row must carry to count. numbered: each block with its row's number last."""
    for row, qname, rname, reverse, q, r, n in _paf_rows(path, only):
        for block in zip(q.tolist(), r.tolist(), n.tolist()):
            found = (qname, rname, reverse, *block)
            yield found + (row,) if numbered else found


def psl_blocks(path: str, numbered: bool = False):
    """Ungapped blocks, as paf_blocks gives them, of a PSL file (ours, or LAST's MAF through `maf-convert
    psl`): a reverse alignment's query block starts are counted on the query's reverse strand."""
    with open(path) as handle:
        for row, line in enumerate(handle):
            f = line.rstrip("\n").split("\t")
            if len(f) < 21 or not f[0].isdigit():  # a psLayout header's lines
                continue
            reverse, length = f[8].endswith("-"), int(f[10])
            for n, q, r in zip(*([int(x) for x in f[k].rstrip(",").split(",")] for k in (18, 19, 20))):
                block = (f[9], f[13], int(reverse), length - q - n if reverse else q, r, n)
                yield block + (row,) if numbered else block


def cigar_runs(cigar: bytes):
    """A CIGAR's run lengths (int64) and operation letters (uint8), parsed in array passes: a CIGAR of a
    chromosome-long alignment holds millions of runs."""
    text = np.frombuffer(cigar, np.uint8)
    letter = np.flatnonzero(text > ord("9"))
    starts = np.concatenate(([0], letter[:-1] + 1))
    digits = np.flatnonzero(text <= ord("9"))
    power = letter[np.searchsorted(letter, digits)] - 1 - digits  # a digit's place in its number
    values = (text[digits].astype(np.int64) - ord("0")) * 10 ** power
    length = np.add.reduceat(values, np.searchsorted(digits, starts))
    return length, text[letter]


def lastz_name(name: str, names) -> str:
    """The record a LASTZ name stands for: LASTZ cuts a name at its first '|'."""
    return next(full for full in names if full == name or full.startswith(name + "|"))


def lastz_blocks(path: str, query_lengths: dict, reference_names, numbered: bool = False):
    """Ungapped blocks, as paf_blocks gives them, of LASTZ's general format with a cigarx column
    (`--format=general:name1,start1,end1,name2,start2,end2,strand2,nmatch,nmismatch,cigarx`: the
    reference as name1, the query as name2). LASTZ counts a reverse alignment's query on its reverse
    strand; its I columns hold a query base, its D columns a reference base."""
    with open(path) as handle:
        for row, line in enumerate(handle):
            if line.startswith("#"):
                continue
            f = line.rstrip("\n").split("\t")
            name, rname = lastz_name(f[3], query_lengths), lastz_name(f[0], reference_names)
            reverse, length = f[6] == "-", query_lengths[name]
            q, r = int(f[4]) - 1, int(f[1]) - 1
            for count, op in re.findall(r"(\d*)([=XID])", f[9]):
                n = int(count or 1)
                if op in "=X":
                    block = (name, rname, int(reverse), length - q - n if reverse else q, r, n)
                    yield block + (row,) if numbered else block
                if op in "=XI":
                    q += n
                if op in "=XD":
                    r += n


def _paf_rows(path: str, only: str | None = None):
    """Each PAF row's blocks as arrays, its CIGAR parsed in array passes (cigar_runs): (its row number,
    query name, reference name, strand, query starts, reference starts, lengths), as paf_blocks counts
    them."""
    with open(path, "rb") as handle:
        for row, line in enumerate(handle):
            f = line.rstrip(b"\n").split(b"\t")
            if only and only.encode() not in f[12:]:
                continue
            cigar = next((t[5:] for t in f[12:] if t.startswith(b"cg:Z:")), None)
            if cigar is None:
                cigar = b"%dM" % (int(f[3]) - int(f[2]))
            reverse = f[4] == b"-"
            length, op = cigar_runs(cigar)
            on_q = np.isin(op, np.frombuffer(b"M=XI", np.uint8))
            on_r = np.isin(op, np.frombuffer(b"M=XDN", np.uint8))
            block = np.isin(op, np.frombuffer(b"M=X", np.uint8))
            q_moved = np.concatenate(([0], np.cumsum(np.where(on_q, length, 0))))[:-1]
            r = int(f[7]) + np.concatenate(([0], np.cumsum(np.where(on_r, length, 0))))[:-1]
            n = length[block]
            q = int(f[3]) - q_moved[block] - n if reverse else int(f[2]) + q_moved[block]
            yield row, f[0].decode(), f[5].decode(), int(reverse), q, r[block], n


def paf_block_arrays(path: str, only: str | None = None):
    """paf_blocks' blocks a PAF row at a time, as arrays: (query name, reference name, strand, query
    starts, reference starts, lengths)."""
    for _, *blocks in _paf_rows(path, only):
        yield tuple(blocks)


def _batched(blocks, most: int = 1 << 20):
    """Block tuples as paf_block_arrays gives them: consecutive blocks of one name pair and strand
    together, at most `most` to a batch."""
    key, rows = None, []
    for qname, rname, reverse, q, r, n in blocks:
        if (qname, rname, reverse) != key or len(rows) >= most:
            if rows:
                yield (*key, *np.array(rows, dtype=np.int64).T)
            key, rows = (qname, rname, reverse), []
        rows.append((q, r, n))
    if rows:
        yield (*key, *np.array(rows, dtype=np.int64).T)


def _columns(q, r, n, reverse: int, most: int = 1 << 24):
    """The column pairs (query, reference positions) of blocks, at most about `most` at a time."""
    ends = np.cumsum(n)
    first = 0
    while first < n.size:
        last = max(first + 1, int(np.searchsorted(ends, (ends[first - 1] if first else 0) + most, "right")))
        qb, rb, nb = q[first:last], r[first:last], n[first:last]
        step = np.arange(int(nb.sum()), dtype=np.int64) - np.repeat(np.cumsum(nb) - nb, nb)
        qs = np.repeat(qb, nb) + step
        rs = np.repeat(rb + nb - 1, nb) - step if reverse else np.repeat(rb, nb) + step
        yield qs, rs
        first = last


def score(truth: Truth, path: str, only: str | None = None, shifts: Shifts | None = None) -> dict:
    """Aligned pairs, true among them, and the query bases whose true pair is aligned (a boolean array
    per chromosome) of a PAF file (only: of its rows with that tag), of a MUMmer delta file (a name
    ending in .delta) or of LASTZ's general format with cigarx (a name ending in .general). shifts: also
    the wrong pairs that are Shifts.equal ("shifted") and the query bases whose true pair is aligned or
    so shifted ("held_shifted"). A name ending in .psl: PSL's blocks (psl_blocks). Blocks are scored
    in batches of columns (a chromosome-long PAF row holds millions)."""
    aligned = correct = shifted = 0
    held = {name: np.zeros(p.size, dtype=bool) for name, p in truth.partner.items()}
    held_shifted = {name: np.zeros(p.size, dtype=bool) for name, p in truth.partner.items()}
    off = dict.fromkeys(OFFSETS, 0)
    if path.endswith(".general"):  # LASTZ's, with cigarx; a simulated pair's records share their names
        lengths = {name: p.size for name, p in truth.partner.items()}
        batches = _batched(lastz_blocks(path, lengths, list(lengths)))
    elif path.endswith(".psl"):
        batches = _batched(psl_blocks(path))
    elif path.endswith(".delta"):
        batches = _batched(delta_blocks(path))
    else:
        batches = paf_block_arrays(path, only)
    for qname, rname, reverse, q_starts, r_starts, lengths in batches:
        for qs, rs in _columns(q_starts, r_starts, lengths, reverse):
            if truth.n is not None and qname in truth.n[0] and rname in truth.n[1]:
                known = ~(truth.n[0][qname][qs] | truth.n[1][rname][rs])
                qs, rs = qs[known], rs[known]
            aligned += qs.size
            if qname not in truth.partner or qname != rname:  # chromosome i descends from ancestor i only
                continue
            ok = (truth.partner[qname][qs] == rs) & (truth.strand[qname][qs] == reverse)
            correct += int(ok.sum())
            held[qname][qs[ok]] = True
            if shifts is not None:
                equal, stands_for = shifts.equal(qname, qs[~ok], rs[~ok], reverse)
                shifted += int(equal.sum())
                held_shifted[qname][qs[ok]] = True
                held_shifted[qname][stands_for[equal]] = True
            partner = truth.partner[qname][qs][~ok]
            distance = np.abs(rs[~ok] - partner)
            off["no partner"] += int((partner < 0).sum())
            for label, (lo, hi) in OFFSETS.items():
                if lo:
                    off[label] += int(((partner >= 0) & (distance >= lo) & (distance <= hi)).sum())
    return {"aligned": aligned, "correct": correct, "held": held, "off": off, "shifted": shifted,
            "held_shifted": held_shifted}


# wrong aligned pairs by how far the reference base is from the query base's true partner
OFFSETS = {"no partner": (0, 0), "1 off": (1, 1), "2-5 off": (2, 5), "6-100 off": (6, 100),
           "over 100 off": (101, 1 << 62)}


def segments(truth: Truth, min_length: int = 1000, max_indel: int = 50) -> list[tuple]:
    """The collinear pieces of the truth along each query chromosome: (name, qstart, qend, strand) of
    each run of query bases whose true partners follow one another on one strand (indels up to
    max_indel bases apart), at least min_length long: the syntenic blocks, the inversions (strand 1)
    and the translocated piece, in the order they lie on the query."""
    out = []
    for name, partner in truth.partner.items():
        strand = truth.strand[name]
        q = np.flatnonzero(partner >= 0)
        if q.size == 0:
            continue
        r, s = partner[q], strand[q]
        step = np.diff(r) * np.where(s[1:] == 1, -1, 1)
        breaks = np.flatnonzero((s[1:] != s[:-1]) | (step <= 0) | (step > max_indel) | (np.diff(q) > max_indel)) + 1
        for lo, hi in zip(np.concatenate(([0], breaks)), np.concatenate((breaks, [q.size]))):
            if q[hi - 1] + 1 - q[lo] >= min_length:
                out.append((name, int(q[lo]), int(q[hi - 1]) + 1, int(s[lo])))
    return out


def delta_blocks(path: str, numbered: bool = False):
    """Ungapped blocks of the alignments of a MUMmer delta file (nucmer's), as paf_blocks gives them:
    each alignment's runs between its indels. A delta number d > 0 ends a run d - 1 columns on and
    skips a reference base (a deletion from the query); d < 0 skips a query base. numbered: each
    block with its alignment's number last."""
    with open(path) as handle:
        lines = iter(handle.read().split("\n")[2:])
    rname = qname = None
    number = -1
    for line in lines:
        if line.startswith(">"):
            rname, qname = line[1:].split()[:2]
            continue
        fields = line.split()
        if len(fields) != 7:
            continue
        number += 1
        tail = (number,) if numbered else ()
        rs, re_, qs, qe = (int(v) for v in fields[:4])
        reverse = qs > qe
        r, q = rs - 1, (qs if reverse else qs - 1)  # reverse: q counts down from its higher end
        for d in map(int, iter(lambda: next(lines), "0")):
            n = abs(d) - 1
            if n:
                yield (qname, rname, int(reverse), (q - n if reverse else q), r, n) + tail
            r, q = r + n, (q - n if reverse else q + n)
            if d > 0:
                r += 1
            else:
                q = q - 1 if reverse else q + 1
        n = re_ - r
        if n > 0:
            yield (qname, rname, int(reverse), (q - n if reverse else q), r, n) + tail
