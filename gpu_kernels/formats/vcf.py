"""VCF 4.3 of the one-to-one alignments, on the reference: SNPs, indels left-aligned and with their
anchor base (as `bcftools norm` leaves them), and structural events as typed records (`SVTYPE`):
deletions and insertions of at least SV_BASES bases (sequence-resolved), inversions (`<INV>`: a
one-to-one alignment on the other strand from the rest of its query record's alignments on that
reference record), tandem duplications (`<DUP>`: two query-adjacent alignments overlapping on the
reference) and breakends (`BND` pairs: two alignments next to each other on the query that lie
on different reference records, or on one record out of order or far apart). Each record carries
where it lies on the query (`QCHROM`, `QPOS`; `QEND` for the structural ones).

The SNPs and indels are read from the alignments' SNP lines (align.text_of's "snps", show-snps -T's
columns), a compiled text; every step here works on whole columns, so millions of variants take a
few passes of NumPy, not a Python call each."""
from __future__ import annotations

import re

import numpy as np

from ..encode import ENCODE
from .rows import format_rows, name_problem, name_table
from .vcf_events import SV_BASES, collinear_gaps, duplications, flat_codes, inversions, junctions

PIECE_ROWS = 1 << 20  # VCF rows printed at a time
LETTERS = np.frombuffer(b"ACGTNN", dtype=np.uint8)  # codes to letters (N: any other letter, the border)
DOT = ord(".")


def _strings(parts: list, n: int) -> tuple:
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


def _texts(count: int, fields: tuple) -> tuple:
    """A string table of count rows printed by format_rows (no line breaks)."""
    ends = np.empty(count, dtype=np.int64)
    text = bytes(format_rows(count, fields, ends)) if count else b""
    return text, np.concatenate(([0], ends)).astype(np.int64)


def _joined(tables: list) -> tuple:
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


class _Reference:
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
        """(source, start, length) of the codes of bases [first, first + length), for _strings."""
        return np.asarray(self.codes), self.starts[rec] + first - 1, length


def small_variants(lines: dict, rrec, ref: _Reference) -> dict:
    """SNPs and indels (one record each) from SNP lines: consecutive deleted reference bases of one
    alignment are one deletion, inserted bases after one reference base one insertion; indels moved
    to their leftmost equivalent place. Columns: kind (0 SNP, 1 deletion, 2 insertion), rec, pos
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
    # deletions [a, b]: left while the base before equals the last deleted one
    dele = np.flatnonzero(kind == 1)
    a, b = pos[dele].copy(), pos[dele] + size[dele] - 1
    moving = np.arange(dele.size)
    while moving.size:
        moving = moving[(a[moving] >= 2) & (ref.at(rec[dele[moving]], a[moving] - 1) == ref.at(rec[dele[moving]], b[moving]))]
        a[moving] -= 1
        b[moving] -= 1
    # insertions of S after p: left while the base at p equals S's last (S turns one to the right)
    ins = np.flatnonzero(kind == 2)
    p, turns, lengths, line_of = pos[ins].copy(), np.zeros(ins.size, dtype=np.int64), size[ins], first[ins]
    moving = np.arange(ins.size)
    while moving.size:
        last = sub2[line_of[moving] + (lengths[moving] - 1 - turns[moving]) % lengths[moving]]
        moving = moving[(p[moving] >= 2) & (ref.at(rec[ins[moving]], p[moving]) == last)]
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
            _strings([ref.piece(rec[dele], np.where(lead, a - 1, 1), b - a + 2)], dele.size)]
    alts = [(ENCODE[sub2[first[snp]]].tobytes(), single),
            _strings([ref.piece(rec[dele], np.where(lead, a - 1, b + 1), np.ones(dele.size, np.int64))], dele.size)]
    anchor = ref.piece(rec[ins], np.where(after, p, 1), np.ones(ins.size, np.int64))
    refs.append(_strings([anchor], ins.size))
    # base i of the turned S is S[(i - turns) mod len]
    within = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    turned = ENCODE[sub2][np.repeat(line_of, lengths) + (within - np.repeat(turns, lengths)) % np.repeat(lengths, lengths)]
    alts.append(_strings([(anchor[0], anchor[1], after.astype(np.int64)),
                          (turned, np.cumsum(lengths) - lengths, lengths),
                          (anchor[0], anchor[1], (~after).astype(np.int64))], ins.size))
    return {"kind": kind, "rec": rec, "pos": out_pos, "ref": _letters(_joined(refs)), "alt": _letters(_joined(alts)),
            "row": _back([snp, dele, ins], kind.size), "size": size, "line": first}


def _letters(table: tuple) -> tuple:
    """A string table of codes as letters."""
    return LETTERS[np.frombuffer(table[0], dtype=np.uint8)].tobytes(), table[1]


def _reordered(table: tuple, index) -> tuple:
    """The strings table[index[i]] as a table."""
    text, offsets = table
    source = np.frombuffer(text, dtype=np.uint8)
    index = np.asarray(index, dtype=np.int64)
    return _strings([(source, offsets[index], offsets[index + 1] - offsets[index])], index.size)


def gap_events(al: dict, ref: _Reference, query) -> tuple:
    """The variants between collinear alignments (collinear_gaps' stretches), the bases both sides of
    a stretch share at either end left out: (lines, complex, rrec, qrec). lines: SNP lines (snp_lines'
    columns; alignment: al's row count plus the stretch) of the stretches that are a pure deletion or
    insertion, for small_variants to make and left-align; complex: the others' rows (rec, pos, REF and
    ALT string tables as letters, size: the query's bases less the reference's, qrec, qpos); rrec and
    qrec: each stretch's records, which the lines' alignment numbers past al's rows index."""
    gaps = collinear_gaps(al)
    n = gaps["b"].size
    rrec, qrec = al["rrec"].astype(np.int64)[gaps["b"]], al["qrec"].astype(np.int64)[gaps["b"]]
    r_codes, r_at = flat_codes(ref.codes, ref.starts[rrec], gaps["r0"], gaps["r1"])
    q_codes, q_at = flat_codes(query.codes, np.asarray(query.starts, np.int64)[qrec], gaps["q0"], gaps["q1"],
                          gaps["reverse"])
    gr, gq = np.diff(r_at), np.diff(q_at)
    # the shared ends: a base a step, all stretches at once
    head, tail = np.zeros(n, np.int64), np.zeros(n, np.int64)
    for shared, at_r, at_q in ((head, lambda k: r_at[:-1][k] + head[k], lambda k: q_at[:-1][k] + head[k]),
                               (tail, lambda k: r_at[1:][k] - 1 - tail[k], lambda k: q_at[1:][k] - 1 - tail[k])):
        moving = np.arange(n)
        while moving.size:
            moving = moving[head[moving] + tail[moving] < np.minimum(gr, gq)[moving]]
            moving = moving[r_codes[at_r(moving)] == q_codes[at_q(moving)]]
            shared[moving] += 1
    r0, r1 = gaps["r0"] + head, gaps["r1"] - tail  # what is left, on the reference
    dr, dq = gr - head - tail, gq - head - tail
    q_lo = q_at[:-1] + head  # in q_codes
    # the query's place (1-based) as show-snps gives it: a deletion's the base before it on the
    # reference's strand, an insertion's its first base
    deleted = (dr > 0) & (dq == 0)
    qpos = np.where(gaps["reverse"], gaps["q1"] - head + deleted, gaps["q0"] + head + 1 - deleted)
    fits = r0 >= 1  # an anchor base before it
    rows = np.flatnonzero(fits & ((dr == 0) != (dq == 0)))  # a pure deletion or insertion
    count = np.where(dr[rows] > 0, dr[rows], dq[rows])
    line_of = np.repeat(rows, count)
    within = np.arange(int(count.sum()), dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    deletion = dr[line_of] > 0
    sub1, sub2 = np.full(line_of.size, DOT, np.uint8), np.full(line_of.size, DOT, np.uint8)
    sub1[deletion] = LETTERS[r_codes[(r_at[:-1] + head)[line_of[deletion]] + within[deletion]]]
    sub2[~deletion] = LETTERS[q_codes[q_lo[line_of[~deletion]] + within[~deletion]]]
    lines = {"p1": np.where(deletion, r0[line_of] + 1 + within, r0[line_of]), "sub1": sub1, "sub2": sub2,
             "p2": qpos[line_of], "alignment": al["qrec"].size + line_of}
    # neither side empty: no anchor base (as bcftools norm leaves such a record)
    rows = np.flatnonzero((dr > 0) & (dq > 0))
    refs = _strings([ref.piece(rrec[rows], r0[rows] + 1, dr[rows])], rows.size)
    alts = _strings([(q_codes, q_lo[rows], dq[rows])], rows.size)
    complex_rows = {"rec": rrec[rows], "pos": r0[rows] + 1, "ref": _letters(refs), "alt": _letters(alts),
                    "size": dq[rows] - dr[rows], "qrec": qrec[rows], "qpos": qpos[rows]}
    return lines, complex_rows, rrec, qrec


def _bnd_alts(base, mate_rec, mate_pos, base_first, bracket, rnames) -> tuple:
    """BND ALT strings (VCF 4.3, 5.4): the base and the mate's place between brackets, in one of the
    four forms."""
    tables, rows = [], []
    letters = name_table([chr(c) for c in LETTERS])
    names = name_table(rnames)
    for first in (True, False):
        for mark in "[]":
            rows_here = np.flatnonzero((base_first == first) & (bracket == mark))
            place = (mark, ("n", mate_rec[rows_here], names), ":", ("i", mate_pos[rows_here]), mark)
            fields = ((("n", base[rows_here], letters),) + place) if first else (place + (("n", base[rows_here], letters),))
            tables.append(_texts(rows_here.size, fields))
            rows.append(rows_here)
    return _reordered(_joined(tables), _back(rows, base.size))


# VCF 4.3's contig names (##contig ID and CHROM: SAM's RNAME without ';' and '='), and what an INFO
# value holds (QCHROM: printable ASCII, no ';', '=' or ',')
VCF_CONTIG = re.compile(r"[0-9A-Za-z!#$%&+./:?@^_|~-][0-9A-Za-z!#$%&*+./:?@^_|~-]*")
INFO_VALUE = re.compile(r"[!-+\--:<>-~]+")


def vcf_name_problem(qnames, rnames) -> str | None:
    """Why a VCF cannot hold these record names (a reference name outside VCF's contig names: no ',',
    '<', '>', '[', ']', ';', '=' or non-ASCII; a query name with a blank, ';', '=', ',' or non-ASCII, which
    would split its INFO field), or None."""
    return name_problem(((rnames, VCF_CONTIG.fullmatch, "reference",
                          "a contig name: letters, digits and !#$%&*+./:?@^_|~- alone, no '*' first"),
                         (qnames, INFO_VALUE.fullmatch, "query", "an INFO value: printable ASCII but ';', '=' and ','")),
                        "VCF", "leave the VCF out")


def write_vcf(path: str, al: dict, snps: tuple, reference, query, command: str = "") -> int:
    """The VCF of the one-to-one alignments (al's rows with backbone 1; snps: their SNP lines as
    align.text_of makes them, a string table an alignment), on the reference (a SeqSet: its codes give
    the indels' anchor bases and the structural events' REF); the query's SeqSet gives its names and
    the bases between collinear alignments. Returns the records written."""
    from .files import write_pieces

    one = np.asarray(al["backbone"]) == 1
    al = {name: np.asarray(column)[one] for name, column in al.items() if np.ndim(column) and len(column) ==
          one.size}
    lines = snp_lines(*snps)  # every alignment's, then the one-to-one ones' alone, numbered among them
    kept = one[lines["alignment"]]
    # an IUPAC letter's SNP line (show-snps') has no VCF record: VCF's REF and ALT hold A, C, G, T and N only
    # (an indel's REF and ALT come from the codes: N there)
    letters = np.frombuffer(b"ACGT", np.uint8)
    indel = (lines["sub1"] == ord(".")) | (lines["sub2"] == ord("."))
    kept &= indel | (np.isin(lines["sub1"], letters) & np.isin(lines["sub2"], letters))
    lines = {name: column[kept] for name, column in lines.items()}
    lines["alignment"] = (np.cumsum(one) - 1)[lines["alignment"]]
    ref = _Reference(reference.codes, reference.starts, reference.lengths)
    # an alignment ended at a long indel (split_indel): the indel lies between it and the next one
    gap_lines, joined, gap_rrec, gap_qrec = gap_events(al, ref, query)
    lines = {name: np.concatenate((column, gap_lines[name])) for name, column in lines.items()}
    small = small_variants(lines, np.concatenate((al["rrec"].astype(np.int64), gap_rrec)), ref)
    rnames, qnames = list(reference.names), list(query.names)
    qname_table = name_table(qnames)
    qrec_small = np.concatenate((al["qrec"].astype(np.int64), gap_qrec))[lines["alignment"][small["line"]]]
    qpos_small = lines["p2"][small["line"]]
    sv = (small["kind"] > 0) & (small["size"] >= SV_BASES)
    ref_len = np.diff(small["ref"][1])[small["row"]]
    infos = []
    kinds = ("SNP", "DEL", "INS")
    for k in range(3):
        for structural in (False, True):
            rows = np.flatnonzero((small["kind"] == k) & (sv == structural))
            fields = (("n", qrec_small[rows], qname_table), ";QPOS=", ("i", qpos_small[rows]))
            if structural:
                length = small["size"][rows] * (-1 if k == 1 else 1)
                end = small["pos"][rows] + ref_len[rows] - 1
                fields = (f"SVTYPE={kinds[k]};SVLEN=", ("i", length), ";END=", ("i", end), ";QCHROM=") + fields
            else:
                fields = ("QCHROM=",) + fields
            infos.append((rows, _texts(rows.size, fields)))
    small_info, info_row = _joined([t for _, t in infos]), _back([r for r, _ in infos], small["kind"].size)
    # inversions: symbolic, the base before as REF (VCF 4.3, 5.3)
    inv = inversions(al)
    inv_pos = np.maximum(al["rstart"][inv].astype(np.int64), 1)
    inv_rec = al["rrec"][inv].astype(np.int64)
    inv_ref, inv_alt = ref.symbolic(inv_rec, inv_pos, b"<INV>")
    inv_info = _texts(inv.size, ("SVTYPE=INV;SVLEN=", ("i", al["rend"][inv] - al["rstart"][inv]), ";END=",
                                 ("i", al["rend"][inv]), ";QCHROM=", ("n", al["qrec"][inv], qname_table),
                                 ";QPOS=", ("i", al["qstart"][inv] + 1), ";QEND=", ("i", al["qend"][inv])))
    # tandem duplications: symbolic too, the second copy's place on the query
    dup_b, dup_a, dup_start, dup_end = duplications(al)
    dup_rec, dup_pos = al["rrec"][dup_b].astype(np.int64), np.maximum(dup_start, 1)
    dup_ref, dup_alt = ref.symbolic(dup_rec, dup_pos, b"<DUP>")
    dup_info = _texts(dup_b.size, ("SVTYPE=DUP;SVLEN=", ("i", dup_end - dup_start), ";END=", ("i", dup_end),
                                   ";QCHROM=", ("n", al["qrec"][dup_a], qname_table), ";QPOS=",
                                   ("i", al["qstart"][dup_a] + 1)))
    # a stretch between collinear alignments that is neither a deletion nor an insertion alone: one record
    joined_info = []
    for structural in (False, True):
        rows = np.flatnonzero((np.abs(joined["size"]) >= SV_BASES) == structural)
        fields = ("QCHROM=", ("n", joined["qrec"][rows], qname_table), ";QPOS=", ("i", joined["qpos"][rows]))
        if structural:
            end = joined["pos"][rows] + np.diff(joined["ref"][1])[rows] - 1
            fields = (("n", (joined["size"][rows] > 0).astype(np.int64), name_table(["DEL", "INS"])), ";SVLEN=",
                      ("i", joined["size"][rows]), ";END=", ("i", end), ";") + fields
            fields = ("SVTYPE=",) + fields
        joined_info.append((rows, _texts(rows.size, fields)))
    joined_info = _reordered(_joined([t for _, t in joined_info]), _back([r for r, _ in joined_info],
                                                                        joined["size"].size))
    inv_rec = np.concatenate((inv_rec, dup_rec, joined["rec"]))
    inv_pos = np.concatenate((inv_pos, dup_pos, joined["pos"]))
    inv_ref, inv_alt = _joined([inv_ref, dup_ref, joined["ref"]]), _joined([inv_alt, dup_alt, joined["alt"]])
    inv_info = _joined([inv_info, dup_info, joined_info])
    # breakends: a pair a junction, each end where its alignment meets the other
    b, a = junctions(al)
    b_rev, a_rev = al["strand"][b] == 1, al["strand"][a] == 1
    b_pos = np.where(b_rev, al["rstart"][b] + 1, al["rend"][b]).astype(np.int64)
    a_pos = np.where(a_rev, al["rend"][a], al["rstart"][a] + 1).astype(np.int64)
    b_rec, a_rec = al["rrec"][b].astype(np.int64), al["rrec"][a].astype(np.int64)
    b_base, a_base = ref.code(b_rec, b_pos), ref.code(a_rec, a_pos)
    j = b.size
    bnd_rec = np.concatenate((b_rec, a_rec))
    bnd_pos = np.concatenate((b_pos, a_pos))
    bnd_ref = (LETTERS[np.concatenate((b_base, a_base))].tobytes(), np.arange(2 * j + 1, dtype=np.int64))
    bnd_alt = _joined([_bnd_alts(b_base, a_rec, a_pos, ~b_rev, np.where(a_rev, "]", "["), rnames),
                       _bnd_alts(a_base, b_rec, b_pos, a_rev, np.where(b_rev, "[", "]"), rnames)])
    number = np.concatenate((np.arange(j), np.arange(j))) + 1
    side = np.concatenate((np.ones(j, np.int64), np.full(j, 2, np.int64)))
    bnd_id = _texts(2 * j, ("bnd", ("i", number), "_", ("i", side)))
    q_side = np.concatenate((al["qend"][b], al["qstart"][a] + 1))
    bnd_info = _texts(2 * j, ("SVTYPE=BND;MATEID=bnd", ("i", number), "_", ("i", 3 - side), ";QCHROM=",
                              ("n", np.concatenate((al["qrec"][b], al["qrec"][a])), qname_table), ";QPOS=",
                              ("i", q_side)))
    # every record, by reference record and position
    n_small, n_inv = small["kind"].size, inv_rec.size  # the inversions and duplications
    rec = np.concatenate((small["rec"], inv_rec, bnd_rec))
    pos = np.concatenate((small["pos"], inv_pos, bnd_pos))
    rest = np.arange(n_inv + 2 * j, dtype=np.int64) + n_small  # the SVs' rows follow the small ones'
    tables = {"ref": _joined([small["ref"], inv_ref, bnd_ref]), "alt": _joined([small["alt"], inv_alt, bnd_alt]),
              "info": _joined([small_info, inv_info, bnd_info])}
    rows = {"ref": np.concatenate((small["row"], rest)), "alt": np.concatenate((small["row"], rest)),
            "info": np.concatenate((info_row, rest))}
    ids = _joined([(b".", np.array([0, 1], dtype=np.int64)), bnd_id])
    id_row = np.concatenate((np.zeros(n_small + n_inv, dtype=np.int64), np.arange(2 * j, dtype=np.int64) + 1))
    # written in order by index columns into the tables (no copy of them in that order), a slice of
    # rows at a time: the text is never whole in memory
    order = np.lexsort((np.arange(rec.size), pos, rec))
    names = name_table(rnames)

    def pieces():
        for lo in range(0, order.size, PIECE_ROWS):
            at = order[lo:lo + PIECE_ROWS]
            yield at.size, format_rows(at.size, (
                ("n", rec[at], names), "\t", ("i", pos[at]), "\t", ("n", id_row[at], ids), "\t",
                ("n", rows["ref"][at], tables["ref"]), "\t", ("n", rows["alt"][at], tables["alt"]), "\t.\tPASS\t",
                ("n", rows["info"][at], tables["info"]), "\n"))

    return write_pieces(path, vcf_header(rnames, reference.lengths, command), pieces(), "variants")


def _back(rows: list, n: int) -> np.ndarray:
    """Where each of n items is in the tables made of `rows` one after another."""
    back = np.empty(n, dtype=np.int64)
    back[np.concatenate(rows) if rows else np.zeros(0, np.int64)] = np.arange(n)
    return back


def vcf_header(rnames, rlens, command: str) -> bytes:
    """The meta-information lines and the column line."""
    from .. import __version__

    lines = ["##fileformat=VCFv4.3", f"##source=gpu-genome-compare {__version__}"]
    if command:
        lines.append("##commandline=\"" + command.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
    lines += [f"##contig=<ID={name},length={int(length)}>" for name, length in zip(rnames, rlens)]
    lines += [
        '##ALT=<ID=INV,Description="Inversion">',
        '##ALT=<ID=DUP,Description="Duplication">',
        '##INFO=<ID=SVTYPE,Number=1,Type=String,Description="Type of structural variant">',
        '##INFO=<ID=SVLEN,Number=1,Type=Integer,Description="Length of the event: negative for deletions">',
        '##INFO=<ID=END,Number=1,Type=Integer,Description="Last reference position of the event">',
        '##INFO=<ID=MATEID,Number=1,Type=String,Description="ID of the breakend\'s mate">',
        '##INFO=<ID=QCHROM,Number=1,Type=String,Description="Query record the alignment lies on">',
        '##INFO=<ID=QPOS,Number=1,Type=Integer,Description="Position on the query record (1-based)">',
        '##INFO=<ID=QEND,Number=1,Type=Integer,Description="Last position of the event on the query record">',
        "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO",
    ]
    return ("\n".join(lines) + "\n").encode()
