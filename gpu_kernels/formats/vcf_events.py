"""The events between a pair's one-to-one alignments that the VCF (vcf.py) records, found from the
alignments' columns alone: which alignments are inversions, which two make a tandem duplication or a
breakend pair, and the stretches between collinear alignments (an indel long enough to end one,
align.pieces' split_indel) with their bases."""
from __future__ import annotations

import numpy as np

from ..encode import COMPLEMENT

SV_BASES = 50        # an indel at least this long is a structural event (SVTYPE=DEL or INS), as in dbVar
RELOCATION = 10_000  # query-adjacent alignments of one reference record this far apart (or out of order): a BND pair


def inversions(al: dict) -> np.ndarray:
    """The one-to-one alignments (rows of al) on the strand that holds fewer of their query record's
    aligned bases on that reference record: inversions."""
    qrec, rrec = al["qrec"].astype(np.int64), al["rrec"].astype(np.int64)
    pair = qrec * (int(rrec.max(initial=0)) + 1) + rrec
    bases = (al["qend"] - al["qstart"]).astype(np.int64)
    keys, where = np.unique(pair, return_inverse=True)
    reverse = np.bincount(where, weights=bases * (al["strand"] == 1), minlength=keys.size)
    total = np.bincount(where, weights=bases, minlength=keys.size)
    major_reverse = 2 * reverse > total
    return np.flatnonzero((al["strand"] == 1) != major_reverse[where])


def junctions(al: dict) -> tuple:
    """(B, A): rows of al next to each other on a query record (B before A) that lie on different
    reference records (translocations), or on one record in the same orientation but out of order or
    over RELOCATION bases apart (relocations): each a BND pair. A change of strand on one record is an
    inversion's (inversions), not a breakend."""
    order = np.lexsort((al["qstart"], al["qrec"]))
    b, a = order[:-1], order[1:]
    same_query = al["qrec"][b] == al["qrec"][a]
    other_record = al["rrec"][b] != al["rrec"][a]
    forward = (al["strand"][b] == 0) & (al["strand"][a] == 0)
    backward = (al["strand"][b] == 1) & (al["strand"][a] == 1)
    apart = np.where(forward, (al["rstart"][a] < al["rstart"][b]) | (al["rstart"][a] - al["rend"][b] > RELOCATION),
                     (al["rstart"][a] > al["rstart"][b]) | (al["rstart"][b] - al["rend"][a] > RELOCATION))
    keep = same_query & (other_record | ((forward | backward) & apart))
    return b[keep], a[keep]


def collinear_gaps(al: dict) -> dict:
    """The stretches between two alignments next to each other on a query record that lie on one
    reference record in one orientation and in order, each gap at most RELOCATION bases (an
    alignment ends at a long indel: align.pieces' split_indel). Each stretch, on the reference's
    strand: the reference's bases [r0, r1) (0-based) and the query's [q0, q1), read reversed and
    complemented on the reverse strand, where both gaps were widened back over any overlap of the
    two alignments. Columns: b (the alignment before), r0, r1, q0, q1, reverse."""
    order = np.lexsort((al["qstart"], al["qrec"]))
    b, a = order[:-1], order[1:]
    reverse = al["strand"][b] == 1
    same = (al["qrec"][b] == al["qrec"][a]) & (al["rrec"][b] == al["rrec"][a]) & (al["strand"][b] == al["strand"][a])
    rs, re_ = al["rstart"].astype(np.int64), al["rend"].astype(np.int64)
    r0, r1 = np.where(reverse, re_[a], re_[b]), np.where(reverse, rs[b], rs[a])
    q0, q1 = al["qend"][b].astype(np.int64), al["qstart"][a].astype(np.int64)
    in_order = np.where(reverse, rs[a] < rs[b], rs[a] > rs[b])
    gr, gq = r1 - r0, q1 - q0
    keep = same & in_order & (gr > -SV_BASES) & (np.maximum(gr, gq) <= RELOCATION)  # more: a DUP or a BND
    b, r0, r1, q0, q1, reverse, gr, gq = (v[keep] for v in (b, r0, r1, q0, q1, reverse, gr, gq))
    back = np.maximum(0, -np.minimum(gr, gq))  # the overlap, on the diagonal, given back to the stretch
    r0 = r0 - back
    q0, q1 = np.where(reverse, q0, q0 - back), np.where(reverse, q1 + back, q1)
    return {"b": b, "r0": r0, "r1": r1, "q0": q0, "q1": q1, "reverse": reverse}


def flat_codes(codes, starts, lo, hi, reverse=None) -> tuple:
    """The codes [lo, hi) of records (starts: their offsets in codes) one after another, each reversed
    and complemented where reverse; and where each begins (offsets, one more than the pieces)."""
    length = np.maximum(hi - lo, 0)
    offsets = np.concatenate(([0], np.cumsum(length))).astype(np.int64)
    within = np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1], length)
    if reverse is not None:
        flip = np.repeat(reverse, length)
        within = np.where(flip, np.repeat(length, length) - 1 - within, within)
    out = np.asarray(codes[np.repeat(starts + lo, length) + within]).astype(np.uint8)
    if reverse is not None:
        out = np.where(flip, COMPLEMENT[out], out)
    return out, offsets
