"""How the pair numbers its chains across parts (pipeline.py): a part counts its chains by (score, query
record, reference record) and gives each chain its `tie` among those of its group (`part_ranks`); the
assembly numbers every part's chains from those counts as the pair compared whole numbers them
(`chain_numbers`)."""
from __future__ import annotations

import numpy as np

from .arrays import row_groups, stable_argsort


def _group_key(score, qrec, rrec):
    """One int64 a row ordering (score descending, query record, reference record) as the three keys do,
    or None where their spans do not fit in 63 bits together."""
    top, qbits, rbits = int(score.max()), int(qrec.max()).bit_length(), int(rrec.max()).bit_length()
    if (top - int(score.min())).bit_length() + qbits + rbits > 63 or int(qrec.min()) < 0 or int(rrec.min()) < 0:
        return None
    return ((top - score) << (qbits + rbits)) | (qrec << rbits) | rrec


def part_ranks(chains: dict) -> tuple:
    """What numbers a part's chains among the pair's (score descending, then the head HSP in the
    canonical order: query record, reference record, its row): each chain's `tie` (the part's
    chains before it of its score and record pair: a record pair is whole in one part) and the
    part's count of chains of each (score, query record, reference record). One stable radix sort of a
    key packing the three (a whole genome's part holds millions of chains), else one a key."""
    score, qrec, rrec = (chains[name].astype(np.int64) for name in ("score", "qrec", "rrec"))
    number = np.asarray(chains["chain"], dtype=np.int64)
    order = np.arange(number.size) if bool((number[1:] >= number[:-1]).all()) else stable_argsort(number)
    packed = _group_key(score, qrec, rrec) if number.size else None
    for key in (rrec, qrec, -score) if packed is None else (packed,):
        order = order[stable_argsort(key[order])]
    score, qrec, rrec = score[order], qrec[order], rrec[order]
    new = np.ones(order.size, dtype=bool)
    new[1:] = (score[1:] != score[:-1]) | (qrec[1:] != qrec[:-1]) | (rrec[1:] != rrec[:-1])
    starts = np.flatnonzero(new)
    tie = np.empty(order.size, dtype=np.int64)
    tie[order] = np.arange(order.size, dtype=np.int64) - starts[np.cumsum(new) - 1]
    return tie, {"score": score[starts], "qrec": qrec[starts], "rrec": rrec[starts],
                 "count": np.diff(np.append(starts, order.size)).astype(np.int64)}


def chain_numbers(parts: list, chains: dict) -> np.ndarray:
    """The pair's number of each of the parts' chains kept (concatenated, with `tie`): the chains of
    every part (part.ranks' counts) before its (score, query record, reference record), then its tie."""
    counted = {name: np.concatenate([p.ranks[name] for p in parts]) for name in ("score", "qrec", "rrec", "count")}
    rows = np.concatenate((np.column_stack((-counted["score"], counted["qrec"], counted["rrec"])),
                           np.column_stack((-chains["score"].astype(np.int64), chains["qrec"].astype(np.int64),
                                            chains["rrec"].astype(np.int64)))))
    group = row_groups(rows)
    n = counted["count"].size
    total = np.bincount(group[:n], weights=counted["count"], minlength=int(group.max(initial=-1)) + 1)
    before = np.concatenate(([0], np.cumsum(total)[:-1])).astype(np.int64)
    return before[group[n:]] + chains["tie"]
