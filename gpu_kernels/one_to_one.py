"""The one-to-one alignments (docs/DEFINITIONS.md "What an alignment is", 7 and 8): chosen by score
(one_to_one), then cut where they meet so that they share no base (trimmed).

Each alignment's ends are extended on their own, so two one-to-one alignments may hold the same
query or reference bases where they meet (up to kilobases where the flanks are distant), and those
bases' variants, counts and ANI were made twice. Before anything is written, along each genome an
alignment gives up what lies before the furthest end of the one-to-one alignments starting before it
(the longer first where two start together), as the liftOver chains already did on the reference:
the cut is found on its CIGAR (align_trim.c: whole gap runs, up to the next identical column), its
spans, columns by kind and score lose what the cut held, and its texts (CIGAR, cs, delta, SNP lines)
are cut there. One wholly inside another on either genome is no longer one-to-one (tp:A:S)."""
from __future__ import annotations

import logging

import numpy as np

from . import native
from .arrays import exclusive_sum
from .backbone import backbone
from .formats.strings import take_strings
from .params import Params

log = logging.getLogger(__name__)

# trim_walk's fields an alignment (align_trim.c)
(SKIP_FRONT, SKIP_BACK, DQ_FRONT, DR_FRONT, DQ_BACK, DR_BACK, CUT_EQ, CUT_X, CUT_I, CUT_D, CUT_N, CUT_SCORE, COLUMNS,
 EMPTIED, TRIM_FIELDS) = range(15)
TEXT_KINDS = {"cigar": 0, "cs": 1, "delta": 2}
# bases of an alignment on each genome, not yet covered, that make it one-to-one however much else of it is
MIN_NEW = 500


def one_to_one(al: dict, qlens, rlens, eligible=None) -> np.ndarray:
    """The one-to-one alignments (int8 1), taken by score descending (ties: table order): one joins
    where more than half of its span on the query and more than half on the reference are not yet
    covered by one that joined (chains.backbone's rule, on the gapped spans), or at least MIN_NEW bases
    on each are. A chain of the backbone can hold a repeat hit where its HSPs left the true alignment's
    bases uncovered; once the true chain's gaps are filled, that hit overlaps it and is secondary. And
    where a chain took such a hit past an assembly gap it could not bridge, the true alignment of the
    stretch before the gap overlaps it by more than half, yet holds the gap's flanks alone (MIN_NEW;
    the cut then gives each its own bases). eligible: the rows that may join
    (the backbone chains' alignments: with `secondary` the others are only added, never chosen)."""
    if eligible is not None:
        rows = np.flatnonzero(np.asarray(eligible))
        keep = np.zeros(int(al["qstart"].size), dtype=np.int8)
        keep[rows] = one_to_one({name: al[name][rows] for name in ("qrec", "rrec", "strand", "score", "qstart",
                                                                    "qend", "rstart", "rend")}, qlens, rlens)
        return keep
    n = int(al["qstart"].size)
    order = np.lexsort((np.arange(n), -al["score"]))
    rlen = np.asarray(rlens, dtype=np.int64)[al["rrec"][order].astype(np.int64)]
    reverse = al["strand"][order] == 1
    rstart, rend = al["rstart"][order], al["rend"][order]
    ranked = {"chain": np.arange(n, dtype=np.int64), "qrec": al["qrec"][order], "rrec": al["rrec"][order],
              "strand": al["strand"][order]}
    spans = {"chain": ranked["chain"], "x0": al["qstart"][order], "xe": al["qend"][order],
             "y0": np.where(reverse, rlen - rend, rstart), "ye": np.where(reverse, rlen - rstart, rend)}
    keep = np.zeros(n, dtype=np.int8)
    keep[order] = backbone(ranked, spans, qlens, rlens, pairs=False, min_new=MIN_NEW)
    return keep


def start_cuts(rec, start, end) -> np.ndarray:
    """Bases each interval [start, end) on record rec gives up at its start so that none shares a base
    with another: what lies before the furthest end of the intervals starting before it (the longer
    first where two start together); as long as it is, where it lies wholly inside them."""
    from .formats.vcf_small import reach_before

    rec, start, end = (np.asarray(v, dtype=np.int64) for v in (rec, start, end))
    by = np.lexsort((-end, start, rec))
    cut = np.zeros(start.size, dtype=np.int64)
    cut[by] = np.clip(reach_before(end[by], rec[by]) - start[by], 0, end[by] - start[by])
    return cut
    by = np.lexsort((-end, start, rec))
    lift = rec[by] * (int(end.max()) + 1)  # each record above the ones before it
    reach = np.maximum.accumulate(end[by] + lift) - lift
    before = np.concatenate(([-1], reach[:-1]))
    before[np.concatenate(([True], rec[by][1:] != rec[by][:-1]))] = -1
    cut[by] = np.clip(before - start[by], 0, end[by] - start[by])
    return cut


def overlap_wants(al: dict) -> np.ndarray:
    """Query and reference bases each one-to-one alignment gives up at the front and at the back of its
    columns in PAF's order (4 a row: query, reference at the front, then at the back; 0 for the others).
    On the reverse strand PAF's columns run along the reference with the query from its end."""
    one = np.flatnonzero(np.asarray(al["backbone"]) == 1)
    want = np.zeros((np.asarray(al["backbone"]).size, 4), dtype=np.int64)
    q = start_cuts(al["qrec"][one], al["qstart"][one], al["qend"][one])
    r = start_cuts(al["rrec"][one], al["rstart"][one], al["rend"][one])
    reverse = np.asarray(al["strand"])[one] == 1
    want[one, 0] = np.where(reverse, 0, q)
    want[one, 1] = r
    want[one, 2] = np.where(reverse, q, 0)
    return want


def trimmed(al: dict, text, query, reference, params: Params, threads: int = 0) -> tuple[dict, object]:
    """(al, text) with no base in two one-to-one alignments: the alignments' columns (ALIGNMENT's) with
    the cut rows' spans, counts and score made again and those cut away wholly no longer one-to-one, and
    a text(kind) that gives the cut texts. text(kind): align.text_of's kinds, a string table a row; query
    and reference: the SeqSets the cuts' N columns are read from."""
    want = overlap_wants(al)
    rows = np.flatnonzero(want.any(axis=1))
    if rows.size == 0:
        return al, text
    cpu = native.module("_cpu")
    threads = threads or native.threads()
    a = params.aligning
    cigars_whole = text("cigar")
    cigars = take_strings([cigars_whole], rows)
    reverse = np.asarray(al["strand"])[rows] == 1
    qbase = np.asarray(query.starts, np.int64)[np.asarray(al["qrec"], np.int64)[rows]]
    rbase = np.asarray(reference.starts, np.int64)[np.asarray(al["rrec"], np.int64)[rows]]
    qs, qe, rs, re_ = (np.asarray(al[name], np.int64)[rows] for name in ("qstart", "qend", "rstart", "rend"))
    out = np.zeros((rows.size, TRIM_FIELDS), dtype=np.int64)
    cpu.trim_walk(cigars[0], cigars[1], np.ascontiguousarray(want[rows]), qbase + np.where(reverse, qe - 1, qs),
                  qbase + np.where(reverse, qs, qe - 1), rbase + rs, rbase + re_ - 1,
                  np.where(reverse, -1, 1).astype(np.int8), query.codes, reference.codes, a.align_match,
                  a.align_mismatch, a.gap_open, a.gap_extend, out, threads)
    emptied = out[:, EMPTIED] == 1
    cut = rows[~emptied]
    o = out[~emptied]
    rev = reverse[~emptied]
    al = {name: np.array(column, copy=True) if np.ndim(column) and len(column) == want.shape[0] else column
          for name, column in al.items()}
    al["qstart"][cut] += np.where(rev, o[:, DQ_BACK], o[:, DQ_FRONT])
    al["qend"][cut] -= np.where(rev, o[:, DQ_FRONT], o[:, DQ_BACK])
    al["rstart"][cut] += o[:, DR_FRONT]
    al["rend"][cut] -= o[:, DR_BACK]
    for name, field in (("matches", CUT_EQ), ("mismatches", CUT_X), ("insertions", CUT_I), ("deletions", CUT_D),
                        ("unknown", CUT_N), ("score", CUT_SCORE)):
        al[name][cut] -= o[:, field]
    al["backbone"][rows[emptied]] = 0
    log.info("one-to-one alignments sharing bases: %d cut where they meet (%d query and %d reference bases), %d "
             "wholly inside others made secondary", cut.size, int((o[:, DQ_FRONT] + o[:, DQ_BACK]).sum()),
             int((o[:, DR_FRONT] + o[:, DR_BACK]).sum()), int(emptied.sum()))
    cuts = {"rows": cut, "front": np.ascontiguousarray(o[:, SKIP_FRONT]),
            "back": np.ascontiguousarray(o[:, SKIP_BACK]), "columns": np.ascontiguousarray(o[:, COLUMNS])}
    made = {}  # the CIGARs, asked for here and by every writer: cut once

    def cut_text(kind: str) -> tuple:
        if kind in made:
            return made[kind]
        whole = cigars_whole if kind == "cigar" else text(kind)
        if kind == "snps":
            return _snp_lines_within(whole, cuts["rows"], al, threads)
        part = take_strings([whole], cuts["rows"])
        size = np.empty(cut.size, dtype=np.int64)
        cpu.trim_text(TEXT_KINDS[kind], part[0], part[1], cuts["front"], cuts["back"], cuts["columns"], size,
                      np.empty(0, dtype=np.uint8), threads)
        at = exclusive_sum(size)
        body = np.empty(int(at[-1]), dtype=np.uint8)
        cpu.trim_text(TEXT_KINDS[kind], part[0], part[1], cuts["front"], cuts["back"], cuts["columns"], at[:-1].copy(),
                      body, threads)
        out = _replaced(whole, cuts["rows"], (body, at))
        if kind == "cigar":
            made[kind] = out
        return out

    return al, cut_text


def _replaced(table: tuple, rows, new: tuple) -> tuple:
    """A string table with the strings of rows replaced by new's (in that order), each string copied once."""
    n = np.asarray(table[1]).size - 1
    index = np.arange(n, dtype=np.int64)
    index[rows] = n + np.arange(np.asarray(rows).size, dtype=np.int64)
    return take_strings([table, new], index)


def _snp_lines_within(table: tuple, rows, al: dict, threads: int) -> tuple:
    """A table of SNP lines (show-snps -T's) with the lines of rows kept where they lie inside their
    alignment's spans as cut (P1 on the reference, P2 on the query, both 1-based): only the lines at the
    cut ends are read (align_trim.c's trim_snps), and each row's lines copied once."""
    cpu = native.module("_cpu")
    text, offsets = table
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    start, length = offsets[:-1].copy(), np.diff(offsets)
    kept_start, kept_length = np.empty(rows.size, dtype=np.int64), np.empty(rows.size, dtype=np.int64)
    spans = [np.ascontiguousarray(np.asarray(al[name], dtype=np.int64)[rows]) for name in ("rstart", "rend", "qstart", "qend")]
    cpu.trim_snps(text, offsets, rows, *spans, kept_start, kept_length, threads)
    start[rows], length[rows] = kept_start, kept_length
    at = exclusive_sum(length)
    out = np.empty(int(at[-1]), dtype=np.uint8)
    cpu.gather_spans(out, text, start, length, at[:-1].copy(), b"", b"", b"", threads)
    return out, at
