"""Coverage of both genomes: unions of HSP intervals, checked against a base-by-base count, and the
reference side against the query-side computation with the genomes swapped."""
import numpy as np

from gpu_kernels.coverage import pair_coverage, record_coverage


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
