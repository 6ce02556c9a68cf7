"""Exact-match modes: maximal exact matches (MEMs) and maximal unique matches (MUMs), as MUMmer defines them.

Definitions, the ones `mummer -maxmatch -b -c` and `mummer -mum -b -c` use:
- A match is a query substring equal to a reference substring, upper and lower case alike; any
  non-ACGT letter counts as N, and N matches N (MUMmer without -n). A MEM is a match of length
  >= L that cannot be extended left or right (record ends stop it).
- Reverse matches are matches of the reverse complement of each query record.
- A MUM is a MEM whose string occurs exactly once in the reference (all records) and exactly once
  in its query record (on that strand).

Algorithm: words of k = min(L, 21) symbols, 3 bits a symbol. Reference words are sampled every
L - k + 1 positions and query words all taken, so every match of length >= L contains a sampled
seed; each seed is extended exactly to maximality and duplicates are removed. Occurrences are
counted from the MEM set itself: a match string occurs in the reference once for every MEM that
contains its query interval, and in the query once for every MEM (of that query record and strand)
that contains its reference interval.
"""
from __future__ import annotations

import numpy as np

from .arrays import array_module, stable_argsort
from .encode import BORDER
from .seeds import seed_groups, seeds
from .seqset import SeqSet, make_seqset, reverse_complement

MAX_K = 21  # 3 bits a symbol in a uint64
CHUNK = 32
BATCH = 1 << 23  # seeds extended at once
QUERY_BATCH = 32_000_000  # query bases matched at once (whole records)


def match_word_keys(codes, k: int):
    """(keys, valid) of every window: symbols 0..4 packed 3 bits each; valid when no BORDER inside."""
    xp = array_module(codes)
    n = codes.size - k + 1
    if n <= 0:
        return xp.zeros(0, dtype=xp.uint64), xp.zeros(0, dtype=bool)
    bad = xp.concatenate((xp.zeros(1, dtype=xp.int64), xp.cumsum(codes == BORDER, dtype=xp.int64)))
    valid = (bad[k:] - bad[:-k]) == 0
    base = codes.astype(xp.uint64)
    keys = xp.zeros(n, dtype=xp.uint64)
    for j in range(k):
        keys <<= xp.uint64(3)
        keys |= base[j:j + n]
    return keys, valid


def sorted_match_words(codes, k: int, step: int = 1):
    """Words at valid positions that are multiples of step, sorted by key."""
    xp = array_module(codes)
    keys, valid = match_word_keys(codes, k)
    if step > 1:
        valid &= (xp.arange(valid.size) % step) == 0
    pos = xp.flatnonzero(valid)
    keys = keys[pos]
    order = stable_argsort(keys)
    return keys[order], pos[order]


def _reach(qcodes, rcodes, qpos, rpos, step: int):
    """Bases equal from (qpos, rpos) onward in direction step, up to a mismatch or a BORDER.

    Every live walk reads a chunk at once; the chunk grows as walks finish (up to 64 kb for a
    few long matches), so one match of megabases costs tens of steps, not 10^5."""
    xp = array_module(qpos)
    n = qpos.size
    length = xp.zeros(n, dtype=xp.int64)
    live = xp.arange(n)
    while live.size:
        chunk = int(min(1 << 16, max(CHUNK, (CHUNK * BATCH) // live.size)))
        offsets = xp.arange(chunk, dtype=xp.int64) * step
        # a chunk may reach past the array's end (or start): clipped, it reads the BORDER codes there
        qi = xp.clip(qpos[live, None] + length[live, None] * step + offsets, 0, qcodes.size - 1)
        ri = xp.clip(rpos[live, None] + length[live, None] * step + offsets, 0, rcodes.size - 1)
        a, b = qcodes[qi], rcodes[ri]
        differ = (a != b) | (a == BORDER)
        ends = xp.where(differ.any(axis=1), differ.argmax(axis=1), chunk)
        length[live] += ends
        live = live[ends == chunk]
    return length


def strand_mems(qcodes, rcodes, min_match: int):
    """MEMs (qstart, rstart, length) between two code arrays, unique rows, sorted by (qstart, rstart).

    Seeds (query words against reference words sampled every min_match - k + 1 positions) are
    sorted by diagonal and query position. A run of seeds one sampling step apart on a diagonal is a
    chain; each round extends only the head of every chain to maximality and drops the seeds that
    lie inside a match found on their diagonal, so every match is walked once however long it is
    (extending every seed made identical sequences quadratic)."""
    xp = array_module(qcodes)
    k = min(min_match, MAX_K)
    step = min_match - k + 1
    qk, qp = sorted_match_words(qcodes, k)
    rk, rp = sorted_match_words(rcodes, k, step)
    sq, sr = seeds(seed_groups(qk, rk), qp, rp)
    del qk, qp, rk, rp
    empty = xp.zeros(0, dtype=xp.int64)
    if sq.size == 0:
        return empty, empty, empty
    diag = sq - sr
    order = _order2(diag, sq)
    sq, sr, diag = sq[order], sr[order], diag[order]
    del order
    # (diagonal, query position) as one sortable key
    span = int(qcodes.size) + 1  # matches never leave the query array, so never their diagonal's block
    key = (diag - int(diag.min())) * span + sq
    parts = []
    pending = xp.arange(sq.size, dtype=xp.int64)
    while pending.size:
        q, d = sq[pending], diag[pending]
        head = xp.ones(pending.size, dtype=bool)
        head[1:] = (d[1:] != d[:-1]) | (q[1:] - q[:-1] != step)
        heads = pending[head]
        starts, ends = [], []
        for at in range(0, heads.size, BATCH):  # bounded temporaries: a batch of walks x a chunk of bases
            bq, br = sq[heads[at:at + BATCH]], sr[heads[at:at + BATCH]]
            left = _reach(qcodes, rcodes, bq - 1, br - 1, -1)
            right = _reach(qcodes, rcodes, bq + k, br + k, +1)
            length = left + k + right
            keep = length >= min_match
            parts.append((bq[keep] - left[keep], br[keep] - left[keep], length[keep]))
            starts.append(key[heads[at:at + BATCH]] - left)
            ends.append(key[heads[at:at + BATCH]] + k + right)
        # the heads' matches are disjoint and in key order: a pending seed is done when its word lies
        # inside the match before it on its diagonal
        starts, ends = xp.concatenate(starts), xp.concatenate(ends)
        rest = pending[~head]
        at = xp.searchsorted(starts, key[rest], side="right") - 1
        inside = (at >= 0) & (key[rest] + k <= ends[xp.maximum(at, 0)])
        pending = rest[~inside]
    qs, rs, length = (xp.concatenate([p[i] for p in parts]) for i in range(3))
    if qs.size == 0:
        return qs, rs, length
    # one MEM per (diagonal, qstart): its length follows from maximality
    order = _order2(qs, rs)
    qs, rs, length = qs[order], rs[order], length[order]
    first = xp.ones(qs.size, dtype=bool)
    first[1:] = (qs[1:] != qs[:-1]) | (rs[1:] != rs[:-1])
    return qs[first], rs[first], length[first]


def _order2(first, second):
    """Indices ordering rows by (first, second) with two stable sorts (NumPy's lexsort, also on CuPy)."""
    order = stable_argsort(second)
    return order[stable_argsort(first[order])]


def unique_mask(qrec, qs, rs, length):
    """MUMs among MEMs: the query interval inside no other MEM and the reference interval inside no
    other MEM of the same query record (MEMs of one strand)."""
    n = qs.size
    alone_in_reference = ~_contained(qrec, qs, qs + length)
    alone_in_query = ~_contained(qrec, rs, rs + length)
    return alone_in_reference & alone_in_query if n else np.zeros(0, dtype=bool)


def _contained(group, start, end):
    """Whether each interval lies inside another interval of its group (equal intervals count)."""
    n = start.size
    out = np.zeros(n, dtype=bool)
    if n == 0:
        return out
    order = np.lexsort((-end, start, group))
    g, s, e = group[order], start[order], end[order]
    new = np.ones(n, dtype=bool)
    new[1:] = g[1:] != g[:-1]
    span = int(e.max()) + 1
    running = np.maximum.accumulate(np.cumsum(new) * span + e)
    inside = np.zeros(n, dtype=bool)
    inside[1:] = ((np.cumsum(new) * span + e)[1:] <= running[:-1]) & ~new[1:]
    same = np.zeros(n, dtype=bool)
    same[1:] = (g[1:] == g[:-1]) & (s[1:] == s[:-1]) & (e[1:] == e[:-1])
    same[:-1] |= same[1:]
    out[order] = inside | same
    return out


def query_batches(query: SeqSet, bases: int) -> list[tuple[SeqSet, int]]:
    """The query's records in batches of about `bases` (a longer record alone), each with its first record index.

    Matches of one query record never depend on another record (uniqueness is per query record), so a
    read set of hundreds of megabases is matched a batch at a time in bounded memory."""
    if query.total <= bases:
        return [(query, 0)]
    batches, first, size = [], 0, 0
    for i, length in enumerate(query.lengths.tolist()):
        if size and size + length > bases:
            batches.append((first, i))
            first, size = i, 0
        size += length
    batches.append((first, len(query.names)))
    codes = np.asarray(query.codes)
    return [(make_seqset(query.names[a:b], [codes[s:s + n] for s, n in zip(query.starts[a:b], query.lengths[a:b])]), a)
            for a, b in batches]


def find_matches(query: SeqSet, reference: SeqSet, min_match: int, unique: bool, backend,
                 batch_bases: int = QUERY_BATCH) -> dict:
    """MEMs (or MUMs) of every query record against the reference set, forward and reverse.

    Returns columns qrec, rrec, strand, qstart (0-based on the query strand searched: the reverse
    complement of the record for strand 1), rstart (0-based, forward reference), length.
    """
    parts = []
    for batch, first in query_batches(query, batch_bases):
        found = batch_matches(batch, reference, min_match, unique, backend)
        found["qrec"] = found["qrec"] + first
        parts.append(found)
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def batch_matches(query: SeqSet, reference: SeqSet, min_match: int, unique: bool, backend) -> dict:
    """find_matches for one batch of query records."""
    qcodes = backend.to_device(query.codes)
    rcodes = backend.to_device(reference.codes)
    tables = []
    for strand in (0, 1):
        codes = qcodes if strand == 0 else reverse_complement(qcodes)
        qs, rs, length = (backend.to_host(a) for a in strand_mems(codes, rcodes, min_match))
        if strand == 0:
            starts, qrec = query.starts, query.record_of(qs)
        else:
            starts, qrec = query.reverse_starts(), query.reverse_record_of(qs)
        rrec = reference.record_of(rs)
        qs = qs - starts[qrec]
        rs = rs - reference.starts[rrec]
        if unique:
            keep = unique_mask(qrec, qs, rs + reference.starts[rrec], length)
            qrec, rrec, qs, rs, length = qrec[keep], rrec[keep], qs[keep], rs[keep], length[keep]
        tables.append({"qrec": qrec, "rrec": rrec, "strand": np.full(qs.size, strand), "qstart": qs,
                       "rstart": rs, "length": length})
    return {name: np.concatenate([t[name] for t in tables]) for name in tables[0]}


def matches_to_hsps(matches: dict, query: SeqSet) -> dict:
    """Matches as HSP columns (query coordinates on the forward strand), for PAF, plots and coverage."""
    qstart = matches["qstart"].copy()
    reverse = matches["strand"] == 1
    qstart[reverse] = query.lengths[matches["qrec"][reverse]] - matches["qstart"][reverse] - matches["length"][reverse]
    length = matches["length"]
    return {"qrec": matches["qrec"], "rrec": matches["rrec"], "qstart": qstart, "qend": qstart + length,
            "rstart": matches["rstart"], "rend": matches["rstart"] + length, "strand": matches["strand"],
            "score": length, "identities": length, "length": length}


def hsps_to_matches(hsps: dict, query_lengths) -> dict:
    """The inverse of matches_to_hsps: reverse matches back to query-strand coordinates."""
    qstart = hsps["qstart"].copy()
    reverse = hsps["strand"] == 1
    qstart[reverse] = np.asarray(query_lengths)[hsps["qrec"][reverse]] - hsps["qend"][reverse]
    return {"qrec": hsps["qrec"], "rrec": hsps["rrec"], "strand": hsps["strand"], "qstart": qstart,
            "rstart": hsps["rstart"], "length": hsps["length"]}
