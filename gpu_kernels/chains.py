"""Chains of HSPs and their one-to-one backbone (docs/DEFINITIONS.md "What a chain is"; tests/oracle_chains.py
is the definition written plainly).

A chain is an ordered list of HSPs of one record pair and strand, each starting after the one
before it on both genomes (overlaps trimmed), at most max_gap apart, its diagonal at most max_shift
from the one before. NumPy puts the HSPs in the DP order and indexes them by diagonal bucket; the
compiled DP (chains.c) finds each HSP's best chain score and predecessor on all cores, record pair
and strand groups side by side, then the chains are taken best-first and the backbone kept chain
by chain. The CuPy twin runs the same DP and extraction on the device (chains.cu), a warp a
connected component of the link graph (components share no link, so no chain), after dropping the
HSPs no link touches that score too little to be a chain alone; only the chains' members go to the
host. Both backends give the same chains.
"""
from __future__ import annotations

import logging
import time

import numpy as np

from . import native
from .arrays import BLOCK, array_module, blocks, columns_to_host, cupy, kernel, settle, stable_argsort, to_host
from .backbone import backbone
from .hsps import complete, in_order, order_by
from .params import Params
from .schema import CHAIN, HSP
from .seqset import SeqSet
from .turns import host_stage

HAND_ON_CHAINS = 1 << 18  # chains whose backbone's first round is worth handing the device on for (turns.py)

log = logging.getLogger(__name__)
NULL = np.uint64(0)  # a kernel's pointer argument left out


class StageClock:
    """Stage times of one chaining, logged at its end (-v); device work is waited for at each mark."""

    def __init__(self, xp=np):
        self.xp, self.last, self.parts = xp, time.perf_counter(), []

    def mark(self, stage: str) -> None:
        settle(self.xp)
        now = time.perf_counter()
        self.parts.append(f"{stage} {now - self.last:.2f} s")
        self.last = now

    def log(self, what: str) -> None:
        log.info("%s: %s", what, ", ".join(self.parts))


def run_starts(values):
    """Whether each element starts a run of equal values (bool), on the array's device."""
    xp = array_module(values)
    starts = xp.ones(values.size, dtype=bool)
    starts[1:] = values[1:] != values[:-1]
    return starts


def chain_coords(h: dict, rlens) -> tuple:
    """(x, xe, y, ye): each HSP on the query and on the reference strand it was found on (the reverse
    strand's coordinates count from the reference record's end), int64, on the columns' device."""
    xp = array_module(h["qstart"])
    x, xe = h["qstart"].astype(xp.int64, copy=False), h["qend"].astype(xp.int64, copy=False)
    rstart, rend = h["rstart"].astype(xp.int64, copy=False), h["rend"].astype(xp.int64, copy=False)
    rlen = xp.asarray(np.asarray(rlens, dtype=np.int64))[h["rrec"]]
    reverse = h["strand"] == 1
    return x, xe, xp.where(reverse, rlen - rend, rstart), xp.where(reverse, rlen - rstart, rend)


def chain_hsps(hsps: dict, qlens, rlens, params: Params, threads: int = 0,
               ordered: bool = False) -> tuple[dict, np.ndarray, dict]:
    """Chains of an HSP table on the host: (the chains table, one row a chain in chain order: the
    CHAIN record's columns; the chain of every HSP row, -1 where it is in none; the chains' members:
    `rows` (HSP rows chain by chain, in chain order) with `trim`, the bases of each member's start
    that overlap the member before it, and their blocks, chain_blocks' columns). ordered: the table is in the canonical order (an engine's or
    a merged table), so it is not checked (a check costs a tenth of the chaining)."""
    c = params.chaining
    h = {name: np.asarray(column) for name, column in complete(hsps).items()}
    clock = StageClock()
    n = int(h["qstart"].size)
    nr = max(1, len(rlens))
    cpu = native.module("_cpu")
    threads = threads or native.threads()
    as64 = {name: h[name].astype(np.int64, copy=False) for name in ("qrec", "rrec", "strand", "qstart", "qend",
                                                                     "rstart", "rend", "score")}
    x, xe = as64["qstart"], as64["qend"]
    y, ye, group, bucket = (np.empty(n, dtype=np.int64) for _ in range(4))
    cpu.chain_keys(as64["qrec"], as64["rrec"], as64["strand"], x, xe, as64["rstart"], as64["rend"],
                   np.ascontiguousarray(rlens, dtype=np.int64), nr, c.max_shift, y, ye, group, bucket, threads)
    order = None if ordered else _dp_order(h, len(qlens), nr)
    clock.mark("keys")
    score = as64["score"]
    del as64
    if order is not None:
        x, xe, y, ye, group, score, bucket = (a[order] for a in (x, xe, y, ye, group, score, bucket))
    best, pred, linked = chain_dp(x, xe, y, ye, score, group, bucket, params, threads)
    clock.mark("dp")
    # best first, then the DP order; an HSP no link touches is a chain alone, kept only if it scores enough
    visit = np.flatnonzero(linked.view(bool) | (score >= c.min_chain_score))
    visit = visit[stable_argsort(-best[visit])]
    raw, scores, heads = (np.empty(n, dtype=np.int64) for _ in range(3))
    count = cpu.take_chains(best, pred, visit, raw, scores, heads)
    clock.mark("take")
    chain_ranked, ranked_scores = _ranked(raw, scores[:count], heads[:count], c.min_chain_score)
    if order is None:
        chain_of = chain_ranked
    else:
        chain_of = np.empty(n, dtype=np.int64)
        chain_of[order] = chain_ranked
    members, mchain, trim = _members(chain_ranked, x, xe, y, ye)
    rows = members if order is None else order[members]
    clock.mark("members")
    table, members = _finished(h, rows, mchain, trim, ranked_scores, qlens, rlens, clock)
    clock.mark("backbone")
    clock.log(f"chains of {n} HSPs")
    return table, chain_of, members


def chain_dp(x, xe, y, ye, score, group, bucket, params: Params, threads: int = 0) -> tuple:
    """(best, pred, linked): each HSP's best chain score ending at it, its predecessor there (-1:
    none), and whether some valid link touches it (uint8), of HSPs in the DP order given as int64
    arrays: chain_coords, the group (record pair and strand) and the diagonal bucket ((x - y) //
    max_shift)."""
    c = params.chaining
    n = int(x.size)
    cell = group * (int(bucket.max() - bucket.min()) + 1 if n else 1) + (bucket - (bucket.min() if n else 0))
    byb = stable_argsort(cell)  # by (group, bucket), the DP order within
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(group)) + 1, [n])).astype(np.int64) if n else \
        np.zeros(1, dtype=np.int64)
    best, pred, linked = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.zeros(n, dtype=np.uint8)
    native.module("_cpu").chain_dp(x, xe, y, ye, score, group, bucket, byb, bounds, c.max_gap, c.max_shift,
                                   c.chain_gap_open, c.chain_gap_extend, c.chain_gap_base, best, pred, linked,
                                   threads or native.threads())
    return best, pred, linked


def _ranked(raw, scores, heads, min_chain_score: int) -> tuple:
    """(each HSP's chain number, -1 where its chain scores under min_chain_score; the numbered chains'
    scores): raw chains (raw[i] names HSP i's, -1 for none; scores and heads are indexed by those
    names) numbered by score descending, ties by their first HSP's place in the DP order. On the
    arrays' device."""
    xp = array_module(raw)
    kept = xp.flatnonzero(scores >= min_chain_score)
    by_head = kept[stable_argsort(heads[kept])]
    ranked = by_head[stable_argsort(-scores[by_head])]
    number = xp.full(scores.size + 1, -1, dtype=xp.int64)  # the last one: no chain's
    number[ranked] = xp.arange(ranked.size, dtype=xp.int64)
    return number[xp.where(raw >= 0, raw, scores.size)], scores[ranked]


def _members(chain_ranked, x, xe, y, ye) -> tuple:
    """(the HSPs of chains, chain by chain, each in the DP order; their chains; each one's trim, the
    bases of its start that overlap the member before it): positions in the DP order, on the arrays'
    device."""
    xp = array_module(chain_ranked)
    members = xp.flatnonzero(chain_ranked >= 0)
    members = members[stable_argsort(chain_ranked[members])]
    mchain = chain_ranked[members]
    first = run_starts(mchain)
    prev = xp.concatenate((xp.zeros(1, dtype=xp.int64), members[:-1]))[:members.size]
    trim = xp.where(first, 0, xp.maximum(0, xp.maximum(xe[prev] - x[members], ye[prev] - y[members])))
    return members, mchain, trim


def _finished(h: dict, rows, mchain, trim, scores, qlens, rlens, clock=None) -> tuple[dict, dict]:
    """(the chains table, the members with their blocks), on the host, from the members: rows of h
    chain by chain, their chains, trims, and the chains' scores (on the table's device; the backbone
    is kept on the host)."""
    members = {"rows": rows, "trim": trim, "chain": mchain}
    members.update(chain_blocks(h, members, rlens))
    table = _chain_table(h, rows, trim, scores, members["first"], members["last"])
    if clock:
        clock.mark("table and blocks")
    first = []
    # a workflow job sharing its device hands it on for the copies and the round, where they take a while
    with host_stage(int(table["score"].size) >= HAND_ON_CHAINS):
        table, members = columns_to_host(table), columns_to_host(members)
        if clock:
            clock.mark("to the host")
        table["backbone"] = backbone(table, members, qlens, rlens, first=first)
    members["first_round"] = first[0]  # a chain's (not a block's): the backbone's first round (pipeline.py)
    return table, members


def _dp_order(h: dict, nq: int, nr: int) -> np.ndarray:
    """Indices putting HSPs in the DP order, the canonical one (hsps.sort_rows): record pair,
    strand, qstart, rstart, qend; None where the table is in it already (as the engine's are)."""
    columns = [h[c] for c in HSP.order]
    spans = [nq, nr, 2] + [int(h[c].max()) + 1 if h[c].size else 1 for c in HSP.order[3:]]
    return None if in_order(columns, spans) else order_by(columns, spans)


def chain_hsps_cupy(hsps: dict, qlens, rlens, params: Params, threads: int = 0,
                    ordered: bool = False) -> tuple[dict, object, dict]:
    """chain_hsps of a table on the device, with the same chains and members; chain_of stays on the
    device (a CuPy array: the HSP table's column). The DP and the chains' extraction run on the device
    (chains.cu), component by component of the link graph: the HSPs no link touches and that score
    under min_chain_score are in no chain and dropped first (on repeat-rich pairs most of them); the
    members' table, blocks and the backbone are made on the host. A table not in the DP order is
    chained on the host."""
    cp = cupy()
    c = params.chaining
    h = complete(hsps)
    n = int(h["qstart"].size)
    nr = max(1, len(rlens))
    if n == 0 or (not ordered and _dp_order(h, len(qlens), nr) is not None):  # not in the DP order: on the host
        table, chain_of, members = chain_hsps({name: to_host(column) for name, column in hsps.items()}, qlens, rlens,
                                              params, threads)
        return table, cp.asarray(chain_of), members
    clock = StageClock(cp)
    x, xe, y, ye = chain_coords(h, rlens)
    group = (h["qrec"].astype(cp.int64) * nr + h["rrec"]) * 2 + h["strand"]
    kept, best, pred, component, starts, work = component_dp(x, xe, y, ye, h["score"], group,
                                                              cp.floor_divide(x - y, c.max_shift), params, clock)
    x, xe, y, ye = (column[kept] for column in (x, xe, y, ye))
    components, k = int(starts.size) - 1, int(kept.size)
    visit = stable_argsort(-best)  # best first, then the DP order
    visit = visit[stable_argsort(component[visit])].astype(cp.int64, copy=False)
    del component
    raw = cp.full(k, -1, dtype=cp.int64)
    scores, heads = cp.zeros(k, dtype=cp.int64), cp.zeros(k, dtype=cp.int64)
    if components:
        kernel("chains.cu", "chain_take")((blocks(components),), (BLOCK,), (
            best, pred, visit, starts, work, cp.int64(components), raw, scores, heads))
    del best, pred, visit, starts, work
    clock.mark("take")
    started = cp.flatnonzero(raw == cp.arange(k, dtype=cp.int64))
    name = cp.empty(k, dtype=cp.int64)
    name[started] = cp.arange(started.size, dtype=cp.int64)
    chain_ranked, ranked_scores = _ranked(name[raw], scores[started], heads[started], c.min_chain_score)
    del name, raw, scores, heads, started
    members, mchain, trim = _members(chain_ranked, x, xe, y, ye)
    chain_of = cp.full(n, -1, dtype=cp.int64)
    chain_of[kept] = chain_ranked
    rows = kept[members]
    clock.mark(f"members ({int(rows.size)})")
    table, members = _finished(h, rows, mchain, trim, ranked_scores, qlens, rlens, clock)
    clock.mark("backbone")
    clock.log(f"chains of {n} HSPs on the device")
    return table, chain_of, members


def component_dp(x, xe, y, ye, score, group, bucket, params: Params, clock=None) -> tuple:
    """chain_dp's best and predecessors on the device, component by component of the link graph, of
    the HSPs a chain can hold (not chain_dp's twin: it returns the components too): (kept, best, pred, component, starts, work):
    the HSPs some link touches or that score at least min_chain_score alone (positions in the DP
    order), their best and predecessor (positions in kept), the connected component of the link
    graph each one is in, the components' bounds in the kept HSPs taken component by component (a
    stable sort by component), and the components largest first. Scores of any integer type."""
    cp = cupy()
    c = params.chaining
    n = int(x.size)
    longest = int((xe - x).max()) if n else 0
    links = tuple(cp.int64(v) for v in (c.max_gap, c.max_shift, longest))

    def bucket_order(x, xe, y, ye, group, bucket) -> tuple:
        """The coordinates gathered into the bucket order, cellb, byb, place, run_lo, run_hi and span."""
        byb, place, run_lo, run_hi, cellb, span = _bucket_index(group, bucket)
        return x[byb], xe[byb], y[byb], ye[byb], cellb, byb, place, run_lo, run_hi, span

    linked = cp.zeros(n, dtype=cp.uint8)
    if n:  # which HSPs some link touches
        xb, xeb, yb, yeb, cellb, byb, _, run_lo, run_hi, span = bucket_order(x, xe, y, ye, group, bucket)
        linked_b = cp.zeros(n, dtype=cp.uint8)
        kernel("chains.cu", "chain_components")((blocks(n),), (BLOCK,), (
            xb, xeb, yb, yeb, cellb, byb, run_lo, run_hi, cp.int64(n), cp.int64(span), *links, linked_b, NULL))
        linked[byb] = linked_b
        del xb, xeb, yb, yeb, cellb, byb, run_lo, run_hi, linked_b
        settle()
    kept = cp.flatnonzero((linked == 1) | (score >= c.min_chain_score))
    del linked
    k = int(kept.size)
    if clock:
        clock.mark("links")
    x, xe, y, ye, group, bucket = (column[kept] for column in (x, xe, y, ye, group, bucket))
    score = score[kept].astype(cp.int64)
    root = cp.empty(k, dtype=cp.int64)
    ordered = None
    if k:  # the union-find over the HSPs a chain can hold; the DP scans the same order
        ordered = bucket_order(x, xe, y, ye, group, bucket)
        xb, xeb, yb, yeb, cellb, byb, place, run_lo, run_hi, span = ordered
        parent = cp.arange(k, dtype=cp.int64)
        kernel("chains.cu", "chain_components")((blocks(k),), (BLOCK,), (
            xb, xeb, yb, yeb, cellb, byb, run_lo, run_hi, cp.int64(k), cp.int64(span), *links, NULL, parent))
        kernel("chains.cu", "chain_roots")((blocks(k),), (BLOCK,), (parent, cp.int64(k), root))
        del parent
    del x, xe, y, ye, group, bucket
    if clock:
        clock.mark("components")
    # components: the kept HSPs by root (their first HSP), the DP order within
    members = stable_argsort(root).astype(cp.int64, copy=False)
    first = run_starts(root[members])
    del root
    starts = cp.concatenate((cp.flatnonzero(first), cp.asarray([k], dtype=cp.int64)))
    components = int(starts.size) - 1
    work = cp.argsort(-cp.diff(starts)).astype(cp.int64, copy=False)
    component = cp.empty(k, dtype=cp.int64)
    component[members] = cp.cumsum(first, dtype=cp.int64) - 1
    del first
    # a best read before it is written (a link across components) would be far below any chain's
    best, pred = cp.full(k, -(1 << 62), dtype=cp.int64), cp.full(k, -1, dtype=cp.int64)
    unset = cp.zeros(1, dtype=cp.uint64)
    if k:  # best by position in the bucket order while the DP runs (its lanes read it in a row)
        xb, xeb, yb, yeb, cellb, byb, place, run_lo, run_hi, span = ordered
        kernel("chains.cu", "chain_dp")((blocks(components * 32),), (BLOCK,), (
            xb, xeb, yb, yeb, cellb, score, byb, place, run_lo, run_hi, cp.int64(k), cp.int64(span), members,
            starts, work, cp.int64(components), cp.int64(c.max_gap), cp.int64(c.max_shift),
            cp.int64(c.chain_gap_open), cp.int64(c.chain_gap_extend), cp.int64(c.chain_gap_base), cp.int64(longest),
            best, pred, cp.zeros(1, dtype=cp.uint64), unset))
        best = best[place]
        del ordered, xb, xeb, yb, yeb, cellb, byb, place, run_lo, run_hi
        settle()
        if int(unset[0]):  # a link across components: the union-find missed it
            raise RuntimeError(f"component_dp: {int(unset[0])} links read a best before it was written")
    if clock:
        clock.mark(f"dp of {k} HSPs in {components} components")
    return kept, best, pred, component, starts, work


def _bucket_index(group, bucket) -> tuple:
    """(byb, place, run_lo, run_hi, cellb, span) of HSPs in the DP order on the device: byb lists them by
    (group, diagonal bucket), the DP order within; place[i] is i's position there; run_lo[p], run_hi[p]
    bound the run of one (group, bucket) holding position p; cellb[p] is that (group, bucket) as one
    number, group * span + bucket - the lowest bucket (chains.cu's candidate scans)."""
    cp = cupy()
    n = int(group.size)
    low = int(bucket.min())
    span = int(bucket.max()) - low + 1
    cell = group * span + (bucket - low)
    key = cell.astype(cp.int32) if (int(group.max()) + 1) * span < 2**31 else cell  # 32-bit keys: half the radix passes
    byb = stable_argsort(key).astype(cp.int64, copy=False)
    del key
    place = cp.empty(n, dtype=cp.int64)
    place[byb] = cp.arange(n, dtype=cp.int64)
    cellb = cell[byb]
    del cell
    starts = run_starts(cellb)
    run = cp.cumsum(starts, dtype=cp.int64) - 1
    settle()
    edges = cp.concatenate((cp.flatnonzero(starts), cp.asarray([n], dtype=cp.int64)))
    return byb, place, edges[run], edges[run + 1], cellb, span


def _chain_table(h: dict, rows, trim, scores, first, last) -> dict:
    """The CHAIN record's columns from the members (rows of h, chain by chain, each in the DP order;
    first and last mark each chain's ends: chain_blocks'), on the arrays' device. Along a chain both x
    and y grow, start and end, so its spans are its first and last members' (on the reverse strand the
    reference's forward coordinates fall)."""
    chains = int(scores.size)
    if chains == 0:
        return CHAIN.empty()
    xp = array_module(first)
    starts, ends = xp.flatnonzero(first), xp.flatnonzero(last)
    at = {name: h[name][rows].astype(xp.int64) for name in ("qstart", "qend", "rstart", "rend", "identities")}
    length = at["qend"] - at["qstart"]
    kept = length - trim
    ids = at["identities"] * kept // xp.maximum(1, length)

    def total(values):
        sums = xp.cumsum(values)
        return sums[ends] - sums[starts] + values[starts]

    strand = h["strand"][rows][starts].astype(xp.int8)
    reverse = strand == 1
    return {"chain": xp.arange(chains, dtype=xp.int64), "qrec": h["qrec"][rows][starts].astype(xp.int32),
            "rrec": h["rrec"][rows][starts].astype(xp.int32), "strand": strand,
            "qstart": at["qstart"][starts], "qend": at["qend"][ends],
            "rstart": xp.where(reverse, at["rstart"][ends], at["rstart"][starts]),
            "rend": xp.where(reverse, at["rend"][starts], at["rend"][ends]),
            "score": scores.astype(xp.int64), "hsps": (ends - starts + 1).astype(xp.int64),
            "aligned": total(kept), "identities": total(ids)}


def chain_blocks(hsps: dict, members: dict, rlens) -> dict:
    """The chains' HSPs as blocks, member by member (chain by chain, each in chain order): `chain`,
    `x0`, `xe` on the query and `y0`, `ye` on the reference strand of the chain (overlaps trimmed
    from each block's start), and the gaps `dx`, `dy` to the next block of the chain (0 after the
    last); `first` and `last` mark a chain's ends. On the members' device."""
    xp = array_module(members["chain"])
    h = {name: hsps[name] for name in ("qstart", "qend", "rstart", "rrec", "strand")}
    rows, trim = members["rows"], members["trim"]
    rend = h["rstart"][rows].astype(xp.int64) + (h["qend"][rows] - h["qstart"][rows])
    sub = {"qstart": h["qstart"][rows], "qend": h["qend"][rows], "rstart": h["rstart"][rows], "rend": rend,
           "rrec": h["rrec"][rows], "strand": h["strand"][rows]}
    x, xe, y, ye = chain_coords(sub, rlens)
    return blocks_of(members["chain"], x + trim, xe, y + trim, ye)


def blocks_of(chain, x0, xe, y0, ye) -> dict:
    """Block columns (chain by chain, each in chain order) with the gaps `dx`, `dy` to the next block
    of the chain (0 after the last) and `first`, `last` marking each chain's ends; on their device."""
    xp = array_module(chain)
    first = run_starts(chain)
    last = xp.concatenate((first[1:], xp.ones(min(1, chain.size), dtype=bool)))
    dx, dy = xp.zeros(chain.size, dtype=xp.int64), xp.zeros(chain.size, dtype=xp.int64)
    dx[:-1], dy[:-1] = x0[1:] - xe[:-1], y0[1:] - ye[:-1]
    dx[last], dy[last] = 0, 0
    return {"chain": chain, "x0": x0, "xe": xe, "y0": y0, "ye": ye, "dx": dx, "dy": dy, "first": first, "last": last}


def block_positions(chains: dict, blocks: dict, query: SeqSet, reference: SeqSet) -> tuple:
    """(qpos, rpos, length, strand) of each chain block: where it starts in the query codes and in the
    codes of the reference strand of its chain (the reverse strand's: the reference codes' reverse
    complement), its length, and the strand (int8). On the blocks' device."""
    xp = array_module(blocks["x0"])
    chain = blocks["chain"]
    strand = xp.asarray(chains["strand"])[chain].astype(xp.int8)
    qrec, rrec = xp.asarray(chains["qrec"])[chain].astype(xp.int64), xp.asarray(chains["rrec"])[chain].astype(xp.int64)
    qpos = xp.asarray(query.starts)[qrec] + blocks["x0"]
    roff = xp.where(strand == 1, xp.asarray(reference.reverse_starts())[rrec], xp.asarray(reference.starts)[rrec])
    return qpos, roff + blocks["y0"], blocks["xe"] - blocks["x0"], strand
