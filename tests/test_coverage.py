"""Coverage of both genomes: unions of HSP intervals, checked against a base-by-base count, and the
reference side against the query-side computation with the genomes swapped."""
import numpy as np

from gpu_kernels.coverage import merge_intervals, pair_coverage, record_coverage, table_coverage


def random_hsps(n: int, nq: int, nr: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    length = rng.integers(1, 400, n)
    qstart, rstart = rng.integers(0, 2000, n), rng.integers(0, 3000, n)
    return {"qrec": rng.integers(0, nq, n).astype(np.int32), "rrec": rng.integers(0, nr, n).astype(np.int32),
            "strand": rng.integers(0, 2, n).astype(np.int8), "qstart": qstart, "qend": qstart + length,
            "rstart": rstart}


def swapped(hsps: dict) -> dict:
    """The same HSPs as a comparison of the reference (as query) with the query (as reference)."""
    length = hsps["qend"] - hsps["qstart"]
    return {"qrec": hsps["rrec"], "rrec": hsps["qrec"], "strand": hsps["strand"], "qstart": hsps["rstart"],
            "qend": hsps["rstart"] + length, "rstart": hsps["qstart"]}


def counted(rec, start, end, records: int) -> np.ndarray:
    """Covered bases per record, one base at a time."""
    out = np.zeros(records, dtype=np.int64)
    for r in range(records):
        mask = np.zeros(4000, dtype=bool)
        for s, e in zip(start[rec == r], end[rec == r]):
            mask[s:e] = True
        out[r] = mask.sum()
    return out


def test_reference_coverage_equals_query_coverage_with_the_genomes_swapped():
    hsps = random_hsps(3000, nq=4, nr=3, seed=1)
    flipped = swapped(hsps)
    for strand in ("forward", "reverse", "both"):
        assert np.array_equal(record_coverage(hsps, 3, "reference")[strand], record_coverage(flipped, 3, "query")[strand])
    keys, counts, sides, _ = pair_coverage(hsps, 4, 3)
    keys2, counts2, sides2, _ = pair_coverage(flipped, 3, 4)
    # the same pairs, keyed the other way round
    order = np.argsort((keys2 % 4) * 3 + keys2 // 4)
    assert np.array_equal(keys, np.sort((keys2 % 4) * 3 + keys2 // 4)) and np.array_equal(counts, counts2[order])
    for strand in ("forward", "reverse", "both"):
        assert np.array_equal(sides["reference"][strand], sides2["query"][strand][order])
        assert np.array_equal(sides["query"][strand], sides2["reference"][strand][order])


def test_coverage_of_both_sides_is_the_union_of_intervals():
    hsps = random_hsps(500, nq=3, nr=2, seed=2)
    rend = hsps["rstart"] + hsps["qend"] - hsps["qstart"]
    both = record_coverage(hsps, 2, "reference")["both"]
    assert np.array_equal(both, counted(hsps["rrec"], hsps["rstart"], rend, 2))
    assert np.array_equal(record_coverage(hsps, 3, "query")["both"], counted(hsps["qrec"], hsps["qstart"], hsps["qend"], 3))
    assert (both < (rend - hsps["rstart"]).sum()).all()  # overlaps are counted once


def test_coverage_gathered_a_chunk_at_a_time_equals_the_whole_table():
    # chunks in shuffled order, some empty: the covered segments kept between chunks lose nothing
    hsps = random_hsps(4000, nq=3, nr=4, seed=3)
    rng = np.random.default_rng(4)
    order = rng.permutation(4000)
    cuts = np.sort(rng.integers(0, 4000, 12))
    chunks = [{name: column[order[a:b]] for name, column in hsps.items()} for a, b in zip(np.r_[0, cuts], np.r_[cuts, 4000])]
    streamed = table_coverage(chunks, 3, 4)
    keys, counts, sides, alignment = streamed.pairs()
    keys1, counts1, sides1, alignment1 = pair_coverage(hsps, 3, 4)
    assert np.array_equal(keys, keys1) and np.array_equal(counts, counts1)
    for name in ("aligned_bases", "aligned_reverse"):
        assert np.array_equal(alignment[name], alignment1[name])
    assert np.abs(alignment["reference_centre"] - alignment1["reference_centre"]).max() <= 1  # float sums' order
    rend = hsps["rstart"] + hsps["qend"] - hsps["qstart"]
    pair = hsps["qrec"].astype(np.int64) * 4 + hsps["rrec"]
    for strand, name in ((0, "forward"), (1, "reverse"), (None, "both")):
        sel = np.ones(4000, bool) if strand is None else hsps["strand"] == strand
        for side, (rec, start, end, n) in {"query": (hsps["qrec"], hsps["qstart"], hsps["qend"], 3),
                                           "reference": (hsps["rrec"], hsps["rstart"], rend, 4)}.items():
            assert np.array_equal(streamed.records(side)[name], counted(rec[sel], start[sel], end[sel], n)), (side, name)
            per_pair = counted(np.searchsorted(keys, pair[sel]), start[sel], end[sel], keys.size)
            assert np.array_equal(sides[side][name], per_pair) and np.array_equal(sides1[side][name], per_pair)


def test_merge_intervals_gives_disjoint_sorted_intervals_of_the_same_union():
    rng = np.random.default_rng(5)
    group = rng.integers(0, 5, 300) * 1_000_003  # sparse keys
    start = rng.integers(0, 1000, 300)
    end = start + rng.integers(1, 50, 300)
    g, s, e = merge_intervals(group, start, end)
    assert (e > s).all() and np.all((g[1:] > g[:-1]) | (s[1:] > e[:-1]))  # ordered, disjoint, not touching
    for key in np.unique(group):
        mask = np.zeros(1100, bool)
        for a, b in zip(start[group == key], end[group == key]):
            mask[a:b] = True
        merged = np.zeros(1100, bool)
        for a, b in zip(s[g == key], e[g == key]):
            merged[a:b] = True
        assert np.array_equal(mask, merged)
    # keys too far apart for key * span to fit in 64 bits take the dense path and give the same
    g2, s2, e2 = merge_intervals(group * 10**12, start, end)
    assert np.array_equal(g2, g * 10**12) and np.array_equal(s2, s) and np.array_equal(e2, e)


def test_batches_on_the_host_keep_every_row_in_order():
    from gpu_kernels.device import batched

    rng = np.random.default_rng(7)
    chunks = [{"a": rng.integers(0, 9, n), "b": rng.random(n)} for n in (5, 0, 17, 3, 40, 2)]
    got = list(batched(iter(chunks), 20))
    assert [len(b["a"]) for b in got] == [22, 43, 2]  # at least 20 rows a batch but the last
    assert got[1]["a"] is not chunks[4]["a"] and all(np.array_equal(np.concatenate([b[k] for b in got]),
                                                                  np.concatenate([c[k] for c in chunks])) for k in "ab")
