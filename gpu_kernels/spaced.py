"""Spaced seeds for distant genomes: LASTZ's way of finding homology that exact 32-mers miss.

A seed pattern (`12of19`: 1110100110010101111, `14of22`: 1110101100110010101111, or any 0/1 string)
reads a window's bases at its 1 positions only, so that a substitution at a 0 position keeps the
seed; with `transition` a seed also holds with one transition (A<->G, C<->T) at a 1 position. Every
valid reference window's key is sorted once (`spaced_words`); each query window looks its key and
its transition variants up (`spaced_counts`, then `spaced_fill`), and each seed is extended without
gaps under HOXD70 scores with an X-drop (`spaced_extend`, a seed a thread). An HSP is kept where its score, scaled
down on low-complexity bases (`entropy`), reaches `hsp_threshold`; the table's `score` column holds
that score in hundredths (a match about 1, as the exact seeds' scores). A seed with another seed 1 to
span bases before it on its diagonal is left out as it would be extended (spaced.h shadowed, read from
the codes and the index, as the exact seeds' look-back is); every other seed is extended, and the copies
one HSP's seeds make are dropped with the contained HSPs (hsps.drop_contained), so the HSPs depend on
nothing but the two strands, whatever the batches.

The rules are spaced.h's, compiled for the host (spaced.c) and the device (spaced.cu);
tests/oracle_spaced.py writes them plainly.
"""
from __future__ import annotations

import numpy as np

from . import native
from .arrays import BLOCK, array_module, blocks, cupy, kernel, select
from .errors import InputError
from .kernels import SPACED_LONG

NULL = np.uint64(0)  # a kernel's pointer argument left out
PATTERNS = {"12of19": "1110100110010101111", "14of22": "1110101100110010101111"}


def seed_pattern(seed: str) -> tuple[int, int]:
    """(care, span) of a seed pattern name or 0/1 string: bit j of care set where position j is read."""
    text = PATTERNS.get(seed, seed)
    if not text or set(text) - {"0", "1"} or text[0] != "1" or text[-1] != "1":
        raise InputError(f"seed = {seed!r} is not exact, {', '.join(PATTERNS)} or a 0/1 pattern that starts and "
                         "ends with 1")
    if len(text) > 64 or text.count("1") > 32 or text.count("1") < 8:
        raise InputError(f"seed = {seed!r}: a pattern spans at most 64 bases and reads 8 to 32 of them")
    return sum(1 << j for j, c in enumerate(text) if c == "1"), len(text)


def spaced_words(codes, care: int, span: int):
    """(keys uint64, positions int64) of every valid window (spaced.h window_key), sorted by key, ties
    in position order."""
    cpu, threads = native.cpu(), native.threads()
    codes = np.ascontiguousarray(codes)
    n = cpu.spaced_words(codes, care, span, None, None, threads)
    keys, pos = np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.int64)
    if n:
        cpu.spaced_words(codes, care, span, keys, pos, threads)
        cpu.sort_pairs(keys, pos, 2 * bin(care).count("1"), threads)
    return keys, pos


def spaced_words_cupy(codes, care: int, span: int):
    """spaced_words on the device: a thread a window (spaced.cu), the valid ones kept in order
    (select.cu), then sorted as one uint64 a word, its key above its position, where both fit in 64
    bits (a human-sized strand: 28 + 30 bits with 14of22), so that the sort holds a copy of one column,
    not a stable argsort's indices and both columns gathered (60 GB at its peak for a 900 Mbp
    reference, which three jobs sharing an 80 GB GPU could not find); else CuPy's stable argsort."""
    cp = cupy()
    n = max(int(codes.size) - span + 1, 0)
    keys, valid = cp.empty(n, dtype=cp.uint64), cp.empty(n, dtype=cp.uint8)
    if n:
        kernel("spaced.cu", "spaced_keys")((blocks(n, cap=2**31 - 1),), (BLOCK,),
                                            (codes, cp.int64(codes.size), cp.uint64(care), cp.int32(span), keys, valid))
    valid = valid.view(cp.bool_)
    kept_keys, kept_pos = select("words_count", "words_write", n, (valid, cp.int64(n)),
                                 (valid, cp.int64(n), keys, cp.int64(0)), [cp.uint64, cp.int64])
    del keys, valid
    pos_bits = max(1, int(n - 1).bit_length())
    if 2 * bin(care).count("1") + pos_bits > 64:
        order = cp.argsort(kept_keys, kind="stable")
        return kept_keys[order], kept_pos[order]
    words = (kept_keys << cp.uint64(pos_bits)) | kept_pos.view(cp.uint64)
    del kept_keys, kept_pos
    words.sort()  # by key, then position: the stable order
    pos = (words & cp.uint64((1 << pos_bits) - 1)).view(cp.int64)
    words >>= cp.uint64(pos_bits)
    return words, pos


# the most top-bit buckets of a reference index: 2^20 offsets, 8 MiB
BUCKET_BITS = 20


def spaced_index(keys, pos, care: int) -> tuple:
    """(keys, positions, buckets, shift): the sorted reference words of spaced_words with the offsets of
    their keys' top bits (buckets[t]: the first word whose key >> shift is t or more), so that a
    lookup searches one bucket (generic: either backend's arrays)."""
    xp, bits = array_module(keys), 2 * bin(care).count("1")
    shift = max(0, bits - BUCKET_BITS)
    tops = xp.arange((1 << (bits - shift)) + 1, dtype=xp.uint64)
    buckets = xp.searchsorted(keys >> xp.uint64(shift), tops).astype(xp.int64)
    return keys, pos, buckets, shift


def spaced_counts(qcodes, q0: int, q1: int, care: int, span: int, transition: bool, index: tuple):
    """The seeds of each query window in [q0, q1) against the index (spaced_index) of a reference strand:
    int64, one a window (the shadowed ones among them: spaced_extend leaves them out)."""
    counts = np.empty(max(q1 - q0, 0), dtype=np.int64)
    keys, pos, buckets, shift = index
    if counts.size:
        native.cpu().spaced_counts(np.ascontiguousarray(qcodes), q0, q1, care, span, int(transition),
                                   np.ascontiguousarray(keys), buckets, shift, np.ascontiguousarray(pos), counts,
                                   native.threads())
    return counts


def spaced_counts_cupy(qcodes, q0: int, q1: int, care: int, span: int, transition: bool, index: tuple):
    """spaced_counts on the device: a thread a window (spaced.cu)."""
    cp = cupy()
    n = max(q1 - q0, 0)
    counts = cp.empty(n, dtype=cp.int64)
    keys, pos, buckets, shift = index
    if n:
        kernel("spaced.cu", "spaced_hits")((blocks(n, cap=2**31 - 1),), (BLOCK,),
                                            (qcodes, cp.int64(qcodes.size), cp.int64(q0), cp.int64(q1), cp.uint64(care),
                                             cp.int32(span), cp.int32(int(transition)), keys, buckets, cp.int32(shift),
                                             pos, counts, NULL, NULL, NULL))
    return counts


def spaced_fill(qcodes, q0: int, q1: int, care: int, span: int, transition: bool, index: tuple, offsets):
    """The seeds spaced_counts counts of the windows [q0, q1) as (query starts, reference starts), int64,
    window i's from offsets[i - q0] on (offsets: spaced_counts' exclusive sums, then their total)."""
    total = int(offsets[-1])
    sq, sr = np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64)
    keys, pos, buckets, shift = index
    if total:
        native.cpu().spaced_fill(np.ascontiguousarray(qcodes), q0, q1, care, span, int(transition),
                                 np.ascontiguousarray(keys), buckets, shift, np.ascontiguousarray(pos),
                                 np.ascontiguousarray(offsets[:-1]), sq, sr, native.threads())
    return sq, sr


def spaced_fill_cupy(qcodes, q0: int, q1: int, care: int, span: int, transition: bool, index: tuple, offsets):
    """spaced_fill on the device: a thread a window (spaced.cu)."""
    cp = cupy()
    total = int(offsets[-1])
    sq, sr = cp.empty(total, dtype=cp.int64), cp.empty(total, dtype=cp.int64)
    keys, pos, buckets, shift = index
    n = q1 - q0
    if total:
        kernel("spaced.cu", "spaced_hits")((blocks(n, cap=2**31 - 1),), (BLOCK,),
                                            (qcodes, cp.int64(qcodes.size), cp.int64(q0), cp.int64(q1), cp.uint64(care),
                                             cp.int32(span), cp.int32(int(transition)), keys, buckets, cp.int32(shift),
                                             pos, NULL, offsets, sq, sr))
    return sq, sr


def spaced_extend(qcodes, rcodes, seeds: tuple, sq, sr, care: int, span: int, transition: bool, index: tuple,
                  xdrop: int, entropy: bool, threshold: int = 0):
    """Each seed's HSP (spaced.h spaced_hsp): (qstart, qend, score, identities), int64, a row a seed, on
    the query axis; score is HOXD70's, scaled down where entropy is set, and -1 where another seed
    shadows the seed (spaced.h shadowed, on seeds: the (query, reference strand) codes windows are taken
    from, as spaced_counts'; the extension reads the codes). A score below threshold (a seed spaced_raw
    drops) is the walk's, not scaled, with identities 0."""
    n = int(sq.size)
    out = [np.empty(n, dtype=np.int64) for _ in range(4)]
    keys, pos, buckets, shift = index
    if n:
        native.cpu().spaced_extend(np.ascontiguousarray(qcodes), np.ascontiguousarray(rcodes),
                                   *(np.ascontiguousarray(s) for s in seeds), np.ascontiguousarray(sq),
                                   np.ascontiguousarray(sr), care, span, int(transition), np.ascontiguousarray(keys),
                                   buckets, shift, np.ascontiguousarray(pos), xdrop, int(entropy), int(threshold), *out,
                                   native.threads())
    return tuple(out)


def spaced_extend_cupy(qcodes, rcodes, seeds: tuple, sq, sr, care: int, span: int, transition: bool, index: tuple,
                       xdrop: int, entropy: bool, threshold: int = 0):
    """spaced_extend on the device: a thread a seed (spaced.cu), the walks longer than SPACED_WALK bases
    a side walked apart, a thread each in warps of their own."""
    cp = cupy()
    n = int(sq.size)
    out = [cp.empty(n, dtype=cp.int64) for _ in range(4)]
    keys, pos, buckets, shift = index
    if n:
        kernel("spaced.cu", "spaced_extend")((blocks(n, cap=2**31 - 1),), (BLOCK,),
                                              (qcodes, cp.int64(qcodes.size), rcodes, cp.int64(rcodes.size), *seeds, sq,
                                               sr, cp.int64(n), cp.uint64(care), cp.int32(span),
                                               cp.int32(int(transition)), keys, buckets, cp.int32(shift), pos,
                                               cp.int32(xdrop), cp.int32(int(entropy)), cp.int64(threshold), *out))
        which = cp.flatnonzero(out[2] == SPACED_LONG)
        if which.size:
            kernel("spaced.cu", "spaced_extend_long")(
                (blocks(int(which.size), cap=2**31 - 1),), (BLOCK,),
                (qcodes, cp.int64(qcodes.size), rcodes, cp.int64(rcodes.size), sq, sr, which, cp.int64(which.size),
                 cp.int32(span), cp.int32(xdrop), cp.int32(int(entropy)), cp.int64(threshold), *out))
    return tuple(out)


def spaced_raw(qstart, qend, score, ids, sq, sr, threshold: int) -> dict:
    """The raw table (HSP.view("raw")) of the extended seeds scoring threshold or more (never negative,
    so the shadowed seeds' -1 is dropped here), score in hundredths (generic: either backend's arrays)."""
    keep = score >= threshold
    qstart, qend, score, ids, sq, sr = (a[keep] for a in (qstart, qend, score, ids, sq, sr))
    return {"qstart": qstart, "qend": qend, "rstart": sr - (sq - qstart), "rend": sr + (qend - sq),
            "score": score // 100, "identities": ids}
