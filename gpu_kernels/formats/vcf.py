"""VCF 4.3 of the one-to-one alignments, on the reference: SNPs, indels left-aligned and with their
anchor base (as `bcftools norm` leaves them, but short of the variant before them; one anchored on a
variant folded with it into one record: no two records overlap), and structural events as typed records (`SVTYPE`):
deletions and insertions of at least SV_BASES bases (sequence-resolved), inversions (`<INV>`: a
one-to-one alignment on the other strand from the rest of its query record's alignments on that
reference record), tandem duplications (`<DUP>`: an insertion of SV_BASES or more whose bases are,
once it is moved left, the reference's next ones) and breakends (`BND` pairs: two alignments next to each other on the query that lie
on different reference records, or on one record out of order or far apart). Each record carries
where it lies on the query (`QCHROM`, `QPOS`; `QEND` for the structural ones).

The SNPs and indels are read from the alignments' SNP lines (align.text_of's "snps", show-snps -T's
columns), a compiled text; every step here works on whole columns, so millions of variants take a
few passes of NumPy, not a Python call each."""
from __future__ import annotations

import re

import numpy as np

from .rows import format_rows, name_problem, name_table
from .vcf_events import SV_BASES, collinear_gaps, flat_codes, inversions, junctions
from .vcf_small import (DOT, LETTERS, Reference, as_letters, joined_tables, printed_rows, reordered_table, rows_back,
                        small_variants, snp_lines, string_table, tandem_copies)

PIECE_ROWS = 1 << 20  # VCF rows printed at a time


def gap_events(al: dict, ref: Reference, query) -> tuple:
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
    refs = string_table([ref.piece(rrec[rows], r0[rows] + 1, dr[rows])], rows.size)
    alts = string_table([(q_codes, q_lo[rows], dq[rows])], rows.size)
    complex_rows = {"rec": rrec[rows], "pos": r0[rows] + 1, "ref": as_letters(refs), "alt": as_letters(alts),
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
            tables.append(printed_rows(rows_here.size, fields))
            rows.append(rows_here)
    return reordered_table(joined_tables(tables), rows_back(rows, base.size))


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
    ref = Reference(reference.codes, reference.starts, reference.lengths)
    # an alignment ended at a long indel (split_indel): the indel lies between it and the next one
    gap_lines, joined, gap_rrec, gap_qrec = gap_events(al, ref, query)
    lines = {name: np.concatenate((column, gap_lines[name])) for name, column in lines.items()}
    small = small_variants(lines, np.concatenate((al["rrec"].astype(np.int64), gap_rrec)), ref)
    rnames, qnames = list(reference.names), list(query.names)
    qname_table = name_table(qnames)
    qrec_small = np.concatenate((al["qrec"].astype(np.int64), gap_qrec))[lines["alignment"][small["line"]]]
    qpos_small = lines["p2"][small["line"]]
    # a long insertion of the bases that follow it on the reference (once moved left) is a tandem
    # duplication: a symbolic record below, not a sequence
    tandem = tandem_copies(small, ref, SV_BASES)
    dup_rec, dup_start, dup_len = small["rec"][tandem], small["pos"][tandem], small["size"][tandem]
    dup_qrec, dup_qpos = qrec_small[tandem], qpos_small[tandem]
    if tandem.any():
        kept = ~tandem
        small = {name: column[kept] if isinstance(column, np.ndarray) else column for name, column in small.items()}
        qrec_small, qpos_small = qrec_small[kept], qpos_small[kept]
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
            infos.append((rows, printed_rows(rows.size, fields)))
    small_info, info_row = joined_tables([t for _, t in infos]), rows_back([r for r, _ in infos], small["kind"].size)
    # inversions: symbolic, the base before as REF (VCF 4.3, 5.3)
    inv = inversions(al)
    inv_pos = np.maximum(al["rstart"][inv].astype(np.int64), 1)
    inv_rec = al["rrec"][inv].astype(np.int64)
    inv_ref, inv_alt = ref.symbolic(inv_rec, inv_pos, b"<INV>")
    inv_info = printed_rows(inv.size, ("SVTYPE=INV;SVLEN=", ("i", al["rend"][inv] - al["rstart"][inv]), ";END=",
                                 ("i", al["rend"][inv]), ";QCHROM=", ("n", al["qrec"][inv], qname_table),
                                 ";QPOS=", ("i", al["qstart"][inv] + 1), ";QEND=", ("i", al["qend"][inv])))
    # tandem duplications: symbolic too, from the base before the copied stretch to its end; the
    # inserted copy's place on the query
    dup_pos = np.maximum(dup_start, 1)
    dup_ref, dup_alt = ref.symbolic(dup_rec, dup_pos, b"<DUP>")
    dup_info = printed_rows(dup_rec.size, ("SVTYPE=DUP;SVLEN=", ("i", dup_len), ";END=", ("i", dup_start + dup_len),
                                          ";QCHROM=", ("n", dup_qrec, qname_table), ";QPOS=", ("i", dup_qpos)))
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
        joined_info.append((rows, printed_rows(rows.size, fields)))
    joined_info = reordered_table(joined_tables([t for _, t in joined_info]), rows_back([r for r, _ in joined_info],
                                                                        joined["size"].size))
    inv_rec = np.concatenate((inv_rec, dup_rec, joined["rec"]))
    inv_pos = np.concatenate((inv_pos, dup_pos, joined["pos"]))
    inv_ref, inv_alt = joined_tables([inv_ref, dup_ref, joined["ref"]]), joined_tables([inv_alt, dup_alt, joined["alt"]])
    inv_info = joined_tables([inv_info, dup_info, joined_info])
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
    bnd_alt = joined_tables([_bnd_alts(b_base, a_rec, a_pos, ~b_rev, np.where(a_rev, "]", "["), rnames),
                       _bnd_alts(a_base, b_rec, b_pos, a_rev, np.where(b_rev, "[", "]"), rnames)])
    number = np.concatenate((np.arange(j), np.arange(j))) + 1
    side = np.concatenate((np.ones(j, np.int64), np.full(j, 2, np.int64)))
    bnd_id = printed_rows(2 * j, ("bnd", ("i", number), "_", ("i", side)))
    q_side = np.concatenate((al["qend"][b], al["qstart"][a] + 1))
    bnd_info = printed_rows(2 * j, ("SVTYPE=BND;MATEID=bnd", ("i", number), "_", ("i", 3 - side), ";QCHROM=",
                              ("n", np.concatenate((al["qrec"][b], al["qrec"][a])), qname_table), ";QPOS=",
                              ("i", q_side)))
    # every record, by reference record and position
    n_small, n_inv = small["kind"].size, inv_rec.size  # the inversions and duplications
    rec = np.concatenate((small["rec"], inv_rec, bnd_rec))
    pos = np.concatenate((small["pos"], inv_pos, bnd_pos))
    rest = np.arange(n_inv + 2 * j, dtype=np.int64)  # the SVs' rows follow the small ones'
    allele_rest = rest + small["ref"][1].size - 1  # (the small alleles' tables still hold the tandem copies')
    tables = {"ref": joined_tables([small["ref"], inv_ref, bnd_ref]), "alt": joined_tables([small["alt"], inv_alt, bnd_alt]),
              "info": joined_tables([small_info, inv_info, bnd_info])}
    rows = {"ref": np.concatenate((small["row"], allele_rest)), "alt": np.concatenate((small["row"], allele_rest)),
            "info": np.concatenate((info_row, rest + n_small))}
    ids = joined_tables([(b".", np.array([0, 1], dtype=np.int64)), bnd_id])
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


def vcf_header(rnames, rlens, command: str) -> bytes:
    """The meta-information lines and the column line."""
    from ..release import version

    lines = ["##fileformat=VCFv4.3", f"##source=gpu-genome-compare {version()}"]
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
