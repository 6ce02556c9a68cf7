"""The VCF's small variants (formats/vcf.py writes them): SNP lines (show-snps -T's, align.text_of's "snps")
read in whole columns, SNPs and indels made of them, each indel left-aligned short of the variant before
it and one anchored on a variant folded with it, and the string tables (bytes and int64 offsets) their
alleles are held in. Every step works on whole columns, so millions of variants take a few passes of
NumPy, not a Python call each."""
from __future__ import annotations

import numpy as np

from ..encode import ENCODE
from .rows import format_rows

LETTERS = np.frombuffer(b"ACGTNN", dtype=np.uint8)  # codes to letters (N: any other letter, the border)
DOT = ord(".")


def string_table(parts: list, n: int) -> tuple:
    """A string table of n strings, each the concatenation of its pieces: parts is a list of (bytes
    source as a uint8 array, start a string, length a string) in order."""
    lengths = sum(np.asarray(length, dtype=np.int64) for _, _, length in parts) if parts else np.zeros(n, np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    at = offsets[:-1].copy()
    for source, start, length in parts:
        length = np.asarray(length, dtype=np.int64)
        total = int(length.sum())
        if total:
            within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(length) - length, length)
            out[np.repeat(at, length) + within] = source[np.repeat(np.asarray(start, dtype=np.int64), length) + within]
        at += length
    return out.tobytes(), offsets


def printed_rows(count: int, fields: tuple) -> tuple:
    """A string table of count rows printed by format_rows (no line breaks)."""
    ends = np.empty(count, dtype=np.int64)
    text = bytes(format_rows(count, fields, ends)) if count else b""
    return text, np.concatenate(([0], ends)).astype(np.int64)


def joined_tables(tables: list) -> tuple:
    """String tables one after another, as one."""
    text = b"".join(t for t, _ in tables)
    offsets, base = [np.zeros(1, dtype=np.int64)], 0
    for t, o in tables:
        offsets.append(np.asarray(o[1:], dtype=np.int64) + base)
        base += len(t)
    return text, np.concatenate(offsets)


def snp_lines(text: bytes, offsets) -> dict:
    """The columns of SNP lines (show-snps -T's: P1, SUB1, SUB2, P2, then frames and names) and the
    alignment each line belongs to (offsets: where each alignment's lines start)."""
    buf = np.frombuffer(text, dtype=np.uint8)
    ends = np.flatnonzero(buf == ord("\n"))
    starts = np.concatenate(([0], ends + 1))[:ends.size].astype(np.int64)  # none where there is no line
    tabs = np.flatnonzero(buf == ord("\t")).reshape(-1, 7)

    def number(lo, hi):
        value = np.zeros(lo.size, dtype=np.int64)
        for digit in range(int((hi - lo).max(initial=0))):
            inside = lo + digit < hi
            value = np.where(inside, value * 10 + (buf[np.minimum(lo + digit, buf.size - 1)].astype(np.int64) - 48),
                             value)
        return value

    return {"p1": number(starts, tabs[:, 0]), "sub1": buf[tabs[:, 0] + 1], "sub2": buf[tabs[:, 1] + 1],
            "p2": number(tabs[:, 2] + 1, tabs[:, 3]),
            "alignment": np.searchsorted(np.asarray(offsets, dtype=np.int64), starts, side="right") - 1}


class Reference:
    """Bases of the reference records (1-based positions), from its codes."""

    def __init__(self, codes, starts, lengths):
        self.codes, self.starts, self.lengths = codes, np.asarray(starts, np.int64), np.asarray(lengths, np.int64)

    def code(self, rec, pos):
        return np.asarray(self.codes[self.starts[rec] + pos - 1]).astype(np.int64)

    def at(self, rec, pos):
        return LETTERS[self.code(rec, pos)]

    def symbolic(self, rec, pos, tag: bytes) -> tuple:
        """REF and ALT string tables of symbolic records (`<INV>`, `<DUP>`) at pos: the base there, the tag."""
        n = np.asarray(pos).size
        return (LETTERS[self.code(rec, pos)].tobytes(), np.arange(n + 1, dtype=np.int64)), \
            (tag * n, np.arange(n + 1, dtype=np.int64) * len(tag))

    def piece(self, rec, first, length) -> tuple:
        """(source, start, length) of the codes of bases [first, first + length), for string_table."""
        return np.asarray(self.codes), self.starts[rec] + first - 1, length


def small_variants(lines: dict, rrec, ref: Reference) -> dict:
    """SNPs and indels (one record each) from SNP lines: consecutive deleted reference bases of one
    alignment are one deletion, inserted bases after one reference base one insertion; indels moved
    to their leftmost equivalent place short of the variants before them in their alignment (a move
    over another variant's base would change what the query holds there), and variants that still
    touch (an indel whose anchor base is a SNP or another indel's) folded into one record (fold_touching).
    Columns: kind (0 SNP or a folded record of unchanged length, 1 deletion, 2 insertion), rec, pos
    (VCF's), REF and ALT string tables and each event's row in them (row), size (bases deleted or
    inserted), line (its first line)."""
    p1, sub1, sub2, al = lines["p1"], lines["sub1"], lines["sub2"], lines["alignment"]
    n = p1.size
    kind = np.where(sub2 == DOT, 1, np.where(sub1 == DOT, 2, 0)).astype(np.int8)
    same = np.zeros(n, dtype=bool)
    if n > 1:
        follows = (al[1:] == al[:-1]) & (kind[1:] == kind[:-1]) & (kind[1:] > 0)
        step = np.where(kind[1:] == 1, 1, 0)
        same[1:] = follows & (p1[1:] == p1[:-1] + step)
    first = np.flatnonzero(~same)
    size = np.diff(np.concatenate((first, [n])))
    kind, rec = kind[first], np.asarray(rrec, dtype=np.int64)[al[first]]
    pos = p1[first].copy()
    # the last reference base each event touches (a SNP's, a deletion's last, an insertion's base before
    # it), and the furthest of those before it in its alignment: an indel's anchor stays past that
    barrier = reach_before(pos + np.where(kind == 1, size - 1, 0), al[first])
    # deletions [a, b]: left while the base before equals the last deleted one
    dele = np.flatnonzero(kind == 1)
    a, b = pos[dele].copy(), pos[dele] + size[dele] - 1
    moving = np.arange(dele.size)
    while moving.size:
        moving = moving[(a[moving] - 2 > barrier[dele[moving]]) & (a[moving] >= 2)
                        & (ref.at(rec[dele[moving]], a[moving] - 1) == ref.at(rec[dele[moving]], b[moving]))]
        a[moving] -= 1
        b[moving] -= 1
    # insertions of S after p: left while the base at p equals S's last (S turns one to the right)
    ins = np.flatnonzero(kind == 2)
    p, turns, lengths, line_of = pos[ins].copy(), np.zeros(ins.size, dtype=np.int64), size[ins], first[ins]
    moving = np.arange(ins.size)
    while moving.size:
        last = sub2[line_of[moving] + (lengths[moving] - 1 - turns[moving]) % lengths[moving]]
        moving = moving[(p[moving] - 1 > barrier[ins[moving]]) & (p[moving] >= 2)
                        & (ref.at(rec[ins[moving]], p[moving]) == last)]
        p[moving] -= 1
        turns[moving] += 1
    # REF and ALT; a deletion at a record's start, or an insertion before it, takes the base after it
    # as its anchor (VCF 4.3, 1.6.1)
    out_pos = pos.copy()
    lead, after = a >= 2, p >= 1
    out_pos[dele] = np.where(lead, a - 1, 1)
    out_pos[ins] = np.where(after, p, 1)
    snp = np.flatnonzero(kind == 0)
    single = np.arange(snp.size + 1, dtype=np.int64)
    # the alleles are made of codes, turned into letters once they are whole
    refs = [(ENCODE[sub1[first[snp]]].tobytes(), single),
            string_table([ref.piece(rec[dele], np.where(lead, a - 1, 1), b - a + 2)], dele.size)]
    alts = [(ENCODE[sub2[first[snp]]].tobytes(), single),
            string_table([ref.piece(rec[dele], np.where(lead, a - 1, b + 1), np.ones(dele.size, np.int64))], dele.size)]
    anchor = ref.piece(rec[ins], np.where(after, p, 1), np.ones(ins.size, np.int64))
    refs.append(string_table([anchor], ins.size))
    # base i of the turned S is S[(i - turns) mod len]
    within = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    turned = ENCODE[sub2][np.repeat(line_of, lengths) + (within - np.repeat(turns, lengths)) % np.repeat(lengths, lengths)]
    alts.append(string_table([(anchor[0], anchor[1], after.astype(np.int64)),
                          (turned, np.cumsum(lengths) - lengths, lengths),
                          (anchor[0], anchor[1], (~after).astype(np.int64))], ins.size))
    events = {"kind": kind, "rec": rec, "pos": out_pos, "ref": as_letters(joined_tables(refs)),
              "alt": as_letters(joined_tables(alts)), "row": rows_back([snp, dele, ins], kind.size), "size": size, "line": first}
    return fold_touching(events, lines, ref)


def reach_before(end, group) -> np.ndarray:
    """For each item, the largest `end` of the items before it in its run of equal `group` (0 for a
    run's first)."""
    end, group = np.asarray(end, np.int64), np.asarray(group, np.int64)
    if end.size == 0:
        return end.copy()
    head = np.concatenate(([True], group[1:] != group[:-1]))
    lift = np.cumsum(head) * (int(end.max()) + 2)  # every run above the ones before it
    reach = np.maximum.accumulate(end + lift) - lift
    before = np.concatenate(([0], reach[:-1]))
    before[head] = 0
    return before


def fold_touching(events: dict, lines: dict, ref: Reference) -> dict:
    """Records of one alignment that overlap (an insertion after a SNP's base, a deletion whose anchor is
    a SNP or follows an insertion) as one record: REF the bases they span, ALT what the query holds
    there, from their SNP lines. So that no two records overlap or contradict (bcftools consensus
    rebuilds the query); rare, so a folded record is made in Python."""
    pos, reflen = events["pos"], np.diff(events["ref"][1])[events["row"]]
    group = lines["alignment"][events["line"]]
    joins = pos <= reach_before(pos + reflen - 1, group)
    if not joins.any():
        return events
    lead = np.flatnonzero(~joins)
    of = np.cumsum(~joins) - 1  # each event's record
    line_end = np.concatenate((events["line"][1:], [lines["p1"].size]))  # an event's lines run to the next's
    refs, alts, kinds, sizes = [], [], [], []
    for record in np.unique(of[joins]):
        members = np.flatnonzero(of == record)
        start = int(pos[members[0]])
        stop = int(max(pos[members] + reflen[members] - 1))
        rec = int(events["rec"][members[0]])
        subs, deleted, inserted = {}, set(), {}
        for k in range(int(events["line"][members[0]]), int(line_end[members[-1]])):
            p, s1, s2 = int(lines["p1"][k]), int(lines["sub1"][k]), int(lines["sub2"][k])
            if s1 == DOT:
                inserted.setdefault(p, []).append(s2)
            elif s2 == DOT:
                deleted.add(p)
            else:
                subs[p] = s2
        bases = ref.at(np.full(stop - start + 1, rec), np.arange(start, stop + 1))
        alt = []
        for x, base in zip(range(start, stop + 1), bases.tolist()):
            if x not in deleted:
                alt.append(subs.get(x, base))
            alt.extend(inserted.get(x, ()))
        refs.append(bases.tobytes())
        alts.append(bytes(alt))
        change = len(alt) - bases.size
        kinds.append(0 if change == 0 else 1 if change < 0 else 2)
        sizes.append(abs(change))
    folded = np.unique(of[joins])
    keep_lead = np.ones(lead.size, dtype=bool)
    keep_lead[folded] = False
    kept = lead[keep_lead]
    out = {name: np.asarray(events[name])[lead] for name in ("rec", "pos", "line")}
    out["kind"] = events["kind"][lead].copy()
    out["size"] = events["size"][lead].copy()
    out["kind"][folded], out["size"][folded] = kinds, sizes
    n = lead.size
    for name, made in (("ref", refs), ("alt", alts)):
        old = reordered_table(events[name], events["row"][kept])
        lengths = np.array([len(m) for m in made], dtype=np.int64)
        new = (b"".join(made), np.concatenate(([0], np.cumsum(lengths))).astype(np.int64))
        out[name] = joined_tables([old, new])
    out["row"] = rows_back([np.flatnonzero(keep_lead), folded], n)
    return out


def as_letters(table: tuple) -> tuple:
    """A string table of codes as letters."""
    return LETTERS[np.frombuffer(table[0], dtype=np.uint8)].tobytes(), table[1]


def reordered_table(table: tuple, index) -> tuple:
    """The strings table[index[i]] as a table."""
    text, offsets = table
    source = np.frombuffer(text, dtype=np.uint8)
    index = np.asarray(index, dtype=np.int64)
    return string_table([(source, offsets[index], offsets[index + 1] - offsets[index])], index.size)


def rows_back(rows: list, n: int) -> np.ndarray:
    """Where each of n items is in the tables made of `rows` one after another."""
    back = np.empty(n, dtype=np.int64)
    back[np.concatenate(rows) if rows else np.zeros(0, np.int64)] = np.arange(n)
    return back


def tandem_copies(events: dict, ref: Reference, least: int) -> np.ndarray:
    """Which of small_variants' events are insertions of at least `least` bases that copy the reference
    bases right after their anchor (bool an event): once moved left, a tandem duplication's inserted copy
    lies before the stretch it copies. (Its one-to-one alignments share no reference base: the copy is
    what lies between them on the query.)"""
    rows = np.flatnonzero((events["kind"] == 2) & (events["size"] >= least))
    out = np.zeros(events["kind"].size, dtype=bool)
    if not rows.size:
        return out
    text, offsets = events["alt"]
    alt = np.frombuffer(text, dtype=np.uint8)
    start = np.asarray(offsets, dtype=np.int64)[events["row"][rows]]
    size, pos, rec = events["size"][rows], events["pos"][rows], events["rec"][rows]
    room = pos + size <= ref.lengths[rec]
    first = alt[start] == ref.at(rec, pos)  # the anchor first (not a record's first base after its insertion)
    rows, start, size, pos, rec = (v[room & first] for v in (rows, start, size, pos, rec))
    within = np.arange(int(size.sum()), dtype=np.int64) - np.repeat(np.cumsum(size) - size, size)
    same = alt[np.repeat(start + 1, size) + within] == ref.at(np.repeat(rec, size), np.repeat(pos + 1, size) + within)
    whole = np.add.reduceat(same.astype(np.int64), np.cumsum(size) - size) == size if size.size else same[:0]
    out[rows[whole]] = True
    return out
