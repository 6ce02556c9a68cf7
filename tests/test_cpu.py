"""The compiled CPU stages (gpu_kernels._cpu) against plain NumPy on drawn inputs: the radix sort,
word keys, seed groups and keys, the window of words a tile reads, the kept seeds, the extension."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from generate import related_pair
from gpu_kernels import Params, native
from gpu_kernels.arrays import concat_columns, row_groups, stable_argsort, take_columns, unique_groups
from gpu_kernels.diagonals import decode_keys, filter_keys, key_width
from gpu_kernels.encode import encode
from gpu_kernels.seeds import KeptSeeds, count_seeds, seed_groups, seed_keys
from gpu_kernels.seqset import make_seqset
from gpu_kernels.words import word_keys, words, words_in

CPU = native.cpu()


def numpy_words(codes, k):
    """Sorted words by NumPy alone: every ACGT window's key, a stable argsort."""
    keys, valid = word_keys(codes, k)
    pos = np.flatnonzero(valid)
    keys = keys[pos]
    order = np.argsort(keys, kind="stable")
    return keys[order], pos[order]


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 200_000), st.sampled_from([1, 5, 11, 12, 33, 47, 64]),
       st.sampled_from([4, 8, 0]), st.integers(1, 4), st.booleans(), st.sampled_from([None, 0, 1, 2]))
def test_radix_sort_is_a_stable_sort(seed, n, bits, value_size, threads, heavy, scratch):
    """Also with the caller's scratch buffer (words.words' between word sets): just big enough, a
    byte short (the sort makes its own), or larger and holding an earlier sort's leftovers."""
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    if bits < 64:
        keys &= np.uint64((1 << bits) - 1)
    if heavy and n:  # a third of the keys equal, as words of a repeat are
        keys[rng.random(n) < 0.33] = keys[0]
    values = np.arange(n, dtype=np.int32 if value_size == 4 else np.int64) if value_size else None
    sorted_keys = keys.copy()
    if scratch is None:
        CPU.sort_pairs(sorted_keys, values, bits, threads)
    else:
        size = n * (8 + value_size) - (scratch == 1) + 1000 * (scratch == 2)
        buffer = rng.integers(0, 256, max(size, 0), dtype=np.uint8)
        CPU.sort_pairs(sorted_keys, values, bits, threads, buffer)
    order = np.argsort(keys, kind="stable")
    assert (sorted_keys == keys[order]).all()
    if values is not None:
        assert (values == order).all()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.integers(4097, 50_000), st.sampled_from([np.int64, np.int32, np.uint64, np.int8]))
def test_stable_argsort(seed, n, dtype):
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    keys = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    keys[rng.random(n) < 0.5] = keys[1]
    assert (stable_argsort(keys) == np.argsort(keys, kind="stable")).all()


def random_codes(rng, n, ns=0.01, repeat=True):
    """Codes with N runs, a few borders, and (repeat) a copied stretch so that words repeat."""
    codes = rng.integers(0, 4, n).astype(np.uint8)
    codes[rng.random(n) < ns] = 4
    if repeat and n > 200:
        codes[n // 2:n // 2 + 100] = codes[10:110]
    return codes


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 3000), st.sampled_from([1, 3, 12, 31, 32]), st.sampled_from([0.0, 0.01, 0.3]))
def test_window_starts_are_the_word_starts(seed, n, k, ns):
    """The one-pass marking of ACGT windows equals marking every word's position of the full list."""
    codes = random_codes(np.random.default_rng(seed), n, ns)
    codes[::997] = 5  # borders too
    _, pos = words(codes, k)
    scattered, scanned = np.zeros(n, dtype=np.uint8), np.zeros(n, dtype=np.uint8)
    CPU.word_starts(pos, pos.itemsize, scattered)
    CPU.window_starts(codes, k, scanned)
    assert np.array_equal(scattered, scanned)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 3000), st.sampled_from([1, 3, 12, 31, 32]), st.integers(1, 3))
def test_words_equal_numpy(seed, n, k, threads):
    rng = np.random.default_rng(seed)
    codes = random_codes(rng, n)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPU_GENOME_COMPARE_THREADS", str(threads))
        keys, pos = words(codes, k)
    expected_keys, expected_pos = numpy_words(codes, k)
    assert (keys == expected_keys).all() and (pos == expected_pos).all()
    lo, hi = n // 3, 2 * n // 3
    inside = (expected_pos >= lo) & (expected_pos < hi)
    got = words_in(keys, pos, lo, hi, n)
    assert (got[0] == expected_keys[inside]).all() and (got[1] == expected_pos[inside]).all()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(10, 3000), st.integers(10, 3000), st.sampled_from([3, 6, 12]))
def test_seed_groups_and_keys_equal_numpy(seed, nq, nr, k):
    rng = np.random.default_rng(seed)
    qcodes, rcodes = random_codes(rng, nq), random_codes(rng, nr)
    (qk, qp), (rk, rp) = words(qcodes, k), words(rcodes, k)
    groups = seed_groups(qk, rk)
    # searchsorted groups, as NumPy finds them
    starts = np.flatnonzero(np.concatenate(([True], qk[1:] != qk[:-1]))) if qk.size else np.zeros(0, np.int64)
    lo, hi = np.searchsorted(rk, qk[starts], "left"), np.searchsorted(rk, qk[starts], "right")
    keep = hi > lo
    assert (groups.qfirst == starts[keep]).all() and (groups.rfirst == lo[keep]).all()
    assert (groups.rcount == (hi - lo)[keep]).all()
    qi, ri = np.nonzero(qk[:, None] == rk[None, :])
    sq, sr = qp[qi].astype(np.int64), rp[ri].astype(np.int64)
    width = key_width(nq, k)
    keys = seed_keys(groups, qp, rp, nr, width)
    assert count_seeds(groups) == keys.size == sq.size
    assert (keys == np.sort((sq - sr + nr).astype(np.uint64) * np.uint64(width) + sq.astype(np.uint64))).all()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(50, 900), st.integers(1, 3), st.sampled_from([6, 8, 12]),
       st.integers(1, 2), st.sampled_from([7, 10**6]), st.sampled_from([1, 50, 10**9]))
def test_kept_seeds_equal_the_filtered_keys(seed, length, nrec, k, threads, batch, budget):
    """The fused filter keeps exactly the seeds diagonals.filter_keys keeps of the sorted seed keys,
    on related sequences (long diagonal runs), batch by batch; a batch holds at most `budget` seeds
    unless it is a single key."""
    query, reference = related_pair(seed, length, nrec, k)
    q = make_seqset([f"q{i}" for i in range(nrec)], [encode(s.encode()) for s in query])
    r = make_seqset([f"r{i}" for i in range(nrec)], [encode(s.encode()) for s in reference])
    wq, wr = words(q.codes, k), words(r.codes, k)
    width = key_width(q.total, k)
    expected = filter_keys(seed_keys(seed_groups(*[w[0] for w in (wq, wr)]), wq[1], wr[1], r.total, width), k)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPU_GENOME_COMPARE_THREADS", str(threads))
        search = KeptSeeds(q.codes, r.codes, wq, wr, k, width)
        parts = [search.seeds(i0, i1) for i0, i1 in search.batches(batch, budget)]
    kept = np.sort(np.concatenate([keys for _, keys in parts])) if parts else np.zeros(0, np.uint64)
    assert (kept == expected).all()
    assert sum(n for n, _ in parts) == count_seeds(seed_groups(wq[0], wr[0]))
    for (i0, i1), (n, _) in zip(search.batches(batch, budget), parts):
        assert n <= budget or wq[0][i0] == wq[0][i1 - 1]
    sq, sr = decode_keys(kept, r.total, width)
    assert ((sq >= 0) & (sr >= 0)).all()


def test_extension_walks_to_the_rules_ends():
    """A hand-made pair: the HSP stops where the identity rule and the X-drop say."""
    from gpu_kernels.extend import extend

    seq = "ACGTTGCAAGCTTACG" * 8
    mutated = seq[:100] + ("A" if seq[100] != "A" else "C") + seq[101:]
    q = make_seqset(["q"], [encode(seq.encode())])
    r = make_seqset(["r"], [encode(mutated.encode())])
    at = q.starts[0] + 40
    params = Params(k=12, xdrop=20)
    qstart, qend, score, ids = extend(q.codes, r.codes, np.array([at]), np.array([r.starts[0] + 40]), 12,
                                      params.extension)
    assert qstart[0] == q.starts[0] and qend[0] == q.starts[0] + len(seq)  # the mismatch is crossed
    assert ids[0] == len(seq) - 1 and score[0] == (len(seq) - 1) * params.extension.match + params.extension.mismatch


def test_words_of_millions_of_windows_on_threads(monkeypatch):
    """Past a million windows a thread, word keys are cut between threads: the same words come back."""
    codes = random_codes(np.random.default_rng(3), 3_000_000)
    monkeypatch.setenv("GPU_GENOME_COMPARE_THREADS", "3")
    keys, pos = words(codes, 32)
    expected_keys, expected_pos = numpy_words(codes, 32)
    assert (keys == expected_keys).all() and (pos == expected_pos).all()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 4), st.booleans())
def test_compiled_fasta_encoding_is_translate(seed, threads, bad):
    """fasta.c's encoder (pieces of 1 MiB on threads) gives bytes.translate's codes, lengths and record
    starts, for records longer than a piece with CRLF or LF lines, of any letters or only ACGTU (the
    pieces encoded by arithmetic, fasta.c's write_clean); a bad letter past the first piece is reported
    at its index among the record's letters."""
    import os

    from gpu_kernels.encode import ENCODE
    from gpu_kernels.errors import InputError
    from gpu_kernels.fasta import encode_fasta, layout

    rng = np.random.default_rng(seed)
    letters = np.frombuffer(rng.choice([b"ACGTNacgtnRY", b"ACGTUacgtu"]), dtype=np.uint8)
    newline = rng.choice([b"\r\n", b"\n"])
    text = b""
    for r in range(int(rng.integers(1, 4))):
        seq = letters[rng.integers(0, letters.size, int(rng.choice([5, 70_000, 2_500_000])))].tobytes()
        if not any(base in seq for base in b"ACGTUacgtu"):  # a record of N alone is refused, whatever the encoder
            seq = b"A" + seq[1:]
        width = int(rng.integers(50, 100))
        text += f">r{r} x\n".encode() + newline.join(seq[i:i + width] for i in range(0, len(seq), width)) + b"\n"
    spans = layout(text, "x.fa")
    if bad:  # a letter in the second half of the last body
        _, start, end = spans[-1]
        at = int(rng.integers((start + end) // 2, end))
        while text[at:at + 1] in (b"\n", b"\r"):
            at -= 1
        text = text[:at] + b"!" + text[at + 1:]
    os.environ["GPU_GENOME_COMPARE_THREADS"] = str(threads)
    try:
        expected = [text[s:e].translate(bytes(ENCODE.tolist()), b" \t\r\n") for _, s, e in spans]
        if bad:
            with pytest.raises(InputError, match="unexpected character '!'"):
                encode_fasta(text, spans, "x.fa")
            return
        seqset = encode_fasta(text, spans, "x.fa")
    finally:
        del os.environ["GPU_GENOME_COMPARE_THREADS"]
    assert seqset.lengths.tolist() == [len(e) for e in expected]
    assert b"".join(seqset.codes[s:s + n].tobytes() for s, n in zip(seqset.starts, seqset.lengths)) == b"".join(expected)
    assert (seqset.codes == 5).sum() == seqset.codes.size - sum(len(e) for e in expected)


@pytest.mark.parametrize("threads", [1, 3])
def test_a_file_of_many_records_is_laid_out_and_read_as_layout_does(tmp_path, monkeypatch, threads):
    """Probe and read sets of millions of records (issue 35): their headers are found on threads
    (fasta.fast_layout, fasta.c) and a large file read in parts on threads (fasta.c's read_file). The
    same names, bodies, codes and borders as the record-by-record layout; a file whose headers need
    layout's checks (a repeated name, an empty one, a control byte) goes to it and gets its error."""
    from gpu_kernels import fasta
    from gpu_kernels.errors import InputError
    from gpu_kernels.seqset import make_seqset

    monkeypatch.setenv("GPU_GENOME_COMPARE_THREADS", str(threads))
    rng = np.random.default_rng(threads)
    rows = []
    for i in range(2500):
        head = rng.choice(["", " a description", "\tx y", "  \t"])
        seq = np.frombuffer(b"ACGTNacgt", dtype=np.uint8)[rng.integers(0, 9, int(rng.integers(1, 300)))].tobytes()
        end = b"\r\n" if i % 7 == 0 else b"\n"
        rows.append(f">p{i}{head}".encode() + end + b"\n".join(seq[at:at + 60] for at in range(0, len(seq), 60)) + end)
    text = b"".join(rows)
    fast = fasta.fast_layout(text, "x.fa")
    slow = fasta.layout(text, "x.fa")
    assert fast is not None and fast[0] == [name for name, _, _ in slow]
    assert fast[1].tolist() == [[start, end] for _, start, end in slow]
    got = fasta.encode_fasta(text, fast, "x.fa")
    assert got.name_table[0] == "".join(got.names).encode() and got.name_table[1][-1] == len(got.name_table[0])
    again = make_seqset(got.names, [got.codes[a:a + n] for a, n in zip(got.starts, got.lengths)])
    assert (got.codes == again.codes).all() and (got.codes == fasta.encode_fasta(text, slow, "x.fa").codes).all()
    path = tmp_path / "many.fa"
    path.write_bytes(text)
    monkeypatch.setattr(fasta, "PARALLEL_READ", 1)
    assert fasta.read_bytes(str(path)) == text
    for wrong, message in ((b">p7\nACGT\n", "duplicate record name"), (b">\nACGT\n", "empty record name"),
                           (b">q\x01\nACGT\n", "control characters")):
        bad = text + wrong
        assert fasta.fast_layout(bad, "x.fa") is None
        path.write_bytes(bad)
        with pytest.raises(InputError, match=message):
            fasta.load_fasta(str(path))


def _walks_of(q, r, sq, sr, k, ext):
    """(qstart, qend, score, identities) of each seed and the bases the walks read (extend.c)."""
    from gpu_kernels import native

    out = [np.empty(sq.size, dtype=np.int64) for _ in range(4)]
    reads = native.cpu().extend(q, r, np.ascontiguousarray(sq, dtype=np.int64), np.ascontiguousarray(sr, dtype=np.int64),
                                k, ext.match, ext.mismatch, ext.n_score, ext.xdrop, float(ext.min_identity), *out, 2)
    return tuple(out), reads


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([1, 2]), st.sampled_from([-1, -4]), st.sampled_from([0, -1]),
       st.sampled_from([0, 7, 50]), st.sampled_from([0.0, 60.0, 80.0, 90.0, 100.0]), st.sampled_from([1, 3, 40]))
def test_the_seeds_of_a_diagonal_walked_together_end_as_each_alone(seed, match, mismatch, n_score, xdrop,
                                                                     min_identity, spacing):
    """Seeds of one diagonal are walked side by side (bundles that split where the identity rule
    answers differently, stop one member at a time where a score drops below 0, and merge): every
    seed's HSP is the one its own walk gives, here the oracle's. Stretches of every divergence, N
    runs and a record border lie on three diagonals; the seeds come sorted by diagonal, as the engine
    gives them, or shuffled."""
    from types import SimpleNamespace

    import oracle
    from gpu_kernels.params import Extension

    rng = np.random.default_rng(seed)
    k, size = 12, 2400
    base = rng.integers(0, 4, size).astype(np.uint8)
    other = base.copy()
    for at in range(0, size, 300):  # 300-base stretches, each with its own divergence
        rate = rng.choice([0.0, 0.03, 0.1, 0.2, 0.3, 0.6])
        hit = np.flatnonzero(rng.random(300) < rate) + at
        other[hit] = (other[hit] + rng.integers(1, 4, hit.size)) % 4
    at = int(rng.integers(0, size - 40))
    other[at:at + int(rng.integers(1, 30))] = 4
    q = make_seqset(["q1", "q2"], [base[:size // 2 + 77], base[size // 2 + 77:]])
    r = make_seqset(["r"], [other])
    shifts = (0, 1, -2)  # diagonals: the same bases shifted (a tandem-like offset) give other walks
    sq = np.concatenate([np.arange(max(0, -d), size - k - max(0, d), spacing) for d in shifts])
    sr = np.concatenate([np.arange(max(0, -d), size - k - max(0, d), spacing) + d for d in shifts])
    qpos = np.where(sq < size // 2 + 77, q.starts[0] + sq, q.starts[1] + sq - size // 2 - 77)
    rpos = r.starts[0] + sr
    order = np.lexsort((qpos, qpos - rpos))
    ext = Extension(match=match, mismatch=mismatch, n_score=n_score, xdrop=xdrop, min_identity=min_identity)
    together, _ = _walks_of(q.codes, r.codes, qpos[order], rpos[order], k, ext)
    shuffled = rng.permutation(order)
    apart, _ = _walks_of(q.codes, r.codes, qpos[shuffled], rpos[shuffled], k, ext)
    back = np.argsort(shuffled)
    for a, b in zip(together, apart):
        assert np.array_equal(a[np.argsort(order)], b[back])
    p = SimpleNamespace(**Params(k=k, match=match, mismatch=mismatch, n_score=n_score, xdrop=xdrop,
                                 min_identity=min_identity).as_dict())
    qs = "".join("ACGTN|"[c] for c in q.codes)
    rs = "".join("ACGTN|"[c] for c in r.codes)
    checked = rng.choice(order.size, min(60, order.size), replace=False)
    for n in checked:
        i, j = int(qpos[order][n]), int(rpos[order][n])
        right = _bounded_walk(oracle, qs, rs, i + k, j + k, 1, p)
        left = _bounded_walk(oracle, qs, rs, i - 1, j - 1, -1, p)
        assert (together[0][n], together[1][n]) == (i - left[1], i + k + right[1])
        assert together[2][n] == left[0] + right[0] - k * match and together[3][n] == k + left[2] + right[2]


def _bounded_walk(oracle, qs, rs, i, j, step, p):
    """oracle.walk on one record pair: the codes' record borders ('|') end the strings it walks."""
    lo_q, hi_q = qs.rfind("|", 0, max(i, 0) + 1) + 1, qs.find("|", max(i, 0))
    lo_r, hi_r = rs.rfind("|", 0, max(j, 0) + 1) + 1, rs.find("|", max(j, 0))
    if min(i, j) < 0 or qs[i] == "|" or rs[j] == "|":
        return (p.k * p.match, 0, 0)
    q, r = qs[lo_q:hi_q if hi_q >= 0 else None], rs[lo_r:hi_r if hi_r >= 0 else None]
    return oracle.walk(q, r, i - lo_q, j - lo_r, step, p)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([1, 2]), st.sampled_from([-1, -3]), st.sampled_from([0, -1]),
       st.sampled_from([0, 5, 10, 13, 20, 50]), st.sampled_from([0.0, 80.0, 95.0, 100.0]))
def test_extension_is_the_oracles_walk(seed, match, mismatch, n_score, xdrop, min_identity):
    """extend.c (eight bases at once on the way down) gives the oracle's walk for seeds in drawn pairs:
    long identical stretches, diverged ones, N runs, record ends; several scorings."""
    from types import SimpleNamespace

    import oracle
    from gpu_kernels.extend import extend
    from gpu_kernels.params import Extension

    rng = np.random.default_rng(seed)
    k = 12
    base = rng.integers(0, 4, 3000).astype(np.uint8)
    other = base.copy()
    other[rng.random(base.size) < rng.choice([0.02, 0.15, 0.5])] = rng.integers(0, 4)
    for codes in (base, other):
        at = int(rng.integers(0, base.size - 50))
        codes[at:at + int(rng.integers(1, 40))] = 4
    q, r = make_seqset(["q"], [base]), make_seqset(["r"], [other])
    windows = [i for i in range(base.size - k) if (base[i:i + k] == other[i:i + k]).all() and base[i:i + k].max() < 4]
    if not windows:
        return
    picked = np.array(sorted(rng.choice(windows, min(300, len(windows)), replace=False)))
    ext = Extension(match=match, mismatch=mismatch, n_score=n_score, xdrop=xdrop, min_identity=min_identity)
    qstart, qend, score, ids = extend(q.codes, r.codes, q.starts[0] + picked, r.starts[0] + picked, k, ext)
    p = SimpleNamespace(**Params(k=k, match=match, mismatch=mismatch, n_score=n_score, xdrop=xdrop,
                                 min_identity=min_identity).as_dict())
    qs, rs = "".join("ACGTN"[c] for c in base), "".join("ACGTN"[c] for c in other)
    for n, i in enumerate(picked.tolist()):
        right = oracle.walk(qs, rs, i + k, i + k, 1, p)
        left = oracle.walk(qs, rs, i - 1, i - 1, -1, p)
        assert (qstart[n] - q.starts[0], qend[n] - q.starts[0]) == (i - left[1], i + k + right[1])
        assert score[n] == left[0] + right[0] - k * match and ids[n] == k + left[2] + right[2]


@pytest.mark.parametrize("seed, n, span", [(1, 0, 5), (2, 1, 5), (3, 5000, 3), (4, 100_000, 1 << 40),
                                           (5, 70_000, 1 << 62)])
def test_row_groups_are_numpy_unique_inverse(seed, n, span):
    """The rows' group numbers (the radix sort's) are np.unique's inverse, whichever path a span takes."""
    rng = np.random.default_rng(seed)
    rows = np.column_stack([rng.integers(-span // 2, span // 2, n, dtype=np.int64),
                            rng.integers(0, 3, n, dtype=np.int64)])
    expected = np.unique(rows, axis=0, return_inverse=True)[1].reshape(-1) if n else np.zeros(0, dtype=np.int64)
    assert np.array_equal(row_groups(rows), expected)
    assert np.array_equal(unique_groups(rows[:, 0]), np.unique(rows[:, 0], return_inverse=True)[1].reshape(-1))


def test_take_columns_is_each_column_taken_or_concatenated():
    rng = np.random.default_rng(6)
    tables = [{"a": rng.integers(0, 9, n), "b": rng.random(n)} for n in (5, 0, 40_000)]
    index = rng.permutation(40_005)
    whole = concat_columns(tables, "ab")
    assert all(np.array_equal(whole[k], np.concatenate([t[k] for t in tables])) for k in "ab")
    taken = take_columns(whole, index)
    assert list(taken) == ["a", "b"] and all(np.array_equal(taken[k], whole[k][index]) for k in "ab")
    assert all(np.array_equal(v, whole[k][index[:7]]) for k, v in take_columns(whole, index[:7], 1).items())
