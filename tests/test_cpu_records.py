"""The compiled CPU stages on records (gpu_kernels._cpu): FASTA bodies read in pieces, blanked records
and batches, a file loaded while a backend is made, the fast mode's word filter."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gpu_kernels import native

CPU = native.cpu()


@pytest.mark.parametrize("piece", [1, 7, 1 << 14])
def test_body_pieces_cover_each_body_in_order(piece, monkeypatch):
    """fasta.body_pieces (the device encoder's work items): each body cut into consecutive pieces of at
    most DEVICE_PIECE bytes that cover it exactly, at least one a record (an empty body's is empty)."""
    from gpu_kernels import fasta

    monkeypatch.setattr(fasta, "DEVICE_PIECE", piece)
    rng = np.random.default_rng(piece)
    sizes = rng.choice([0, 1, 5, 100, 40_000], 60)
    ends = np.cumsum(sizes + 3)
    bodies = np.stack([ends - sizes, ends], axis=1).astype(np.int64)
    pieces, first = fasta.body_pieces(bodies)
    assert first[0] == 0 and first[-1] == pieces.shape[0] and (np.diff(first) >= 1).all()
    for r, (start, end) in enumerate(bodies.tolist()):
        own = pieces[first[r]:first[r + 1]]
        assert own[0, 0] == start and own[-1, 1] == end and (own[1:, 0] == own[:-1, 1]).all()
        assert ((own[:, 1] - own[:, 0]) <= piece).all() and ((own[:, 1] > own[:, 0]).all() or start == end)


def test_blanked_records_and_batches_are_the_records_own_codes():
    """matches.blanked_records makes exactly the chosen records' codes borders (fasta.c's fill_spans) in a
    copy, and the batches' records (views of the codes, as seqset.record_slice cuts them) hold each
    record's codes at its start with the borders around, as make_seqset lays them out."""
    from gpu_kernels import matches as M
    from gpu_kernels.seqset import make_seqset, record_slice

    rng = np.random.default_rng(2)
    records = [rng.integers(0, 5, int(rng.integers(1, 500))).astype(np.uint8) for _ in range(50)]
    query = make_seqset([f"q{i}" for i in range(50)], records)
    chosen = np.array([0, 3, 4, 17, 49])
    blanked = M.blanked_records(query, chosen)
    for i, codes in enumerate(records):
        got = blanked.codes[blanked.starts[i]:blanked.starts[i] + codes.size]
        assert np.array_equal(got, np.full(codes.size, 5) if i in chosen else codes)
    outside = np.ones(query.codes.size, dtype=bool)
    for i in chosen:
        outside[query.starts[i]:query.starts[i] + records[i].size] = False
    assert np.array_equal(blanked.codes[outside], query.codes[outside])
    assert (query.codes[query.starts[0]:query.starts[0] + records[0].size] == records[0]).all()  # a copy
    for first, end in M.record_runs(query.lengths, 2000):
        batch = record_slice(query, first, end)
        made = make_seqset(batch.names, records[first:end])
        assert np.array_equal(batch.codes, made.codes) and np.array_equal(batch.starts, made.starts)
        assert np.array_equal(batch.lengths, made.lengths)


def test_a_file_loaded_for_a_backend_still_being_made_is_the_same():
    """load_fasta with a future of the backend (the command line's mems and mums make it on a thread
    while the files are read): the host's SeqSet on the CPU backend; the backend's error where making it
    failed, raised where the file is encoded."""
    from concurrent.futures import Future

    from gpu_kernels import fasta
    from gpu_kernels.backend import NumpyBackend
    from gpu_kernels.errors import InputError
    from conftest import MYCO_232

    made: Future = Future()
    made.set_result(NumpyBackend())
    got, expected = fasta.load_fasta(MYCO_232, True, made), fasta.load_fasta(MYCO_232, True)
    assert got.names == expected.names and np.array_equal(got.codes, expected.codes)
    failed: Future = Future()
    failed.set_exception(InputError("no device here"))
    with pytest.raises(InputError, match="no device here"):
        fasta.load_fasta(MYCO_232, True, failed)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000), st.integers(1, 6), st.integers(0, 5), st.sampled_from([4, 8]))
def test_fast_mode_filter_keeps_the_rare_words_of_each_record(seed, n, records, max_freq, position_size):
    """drop_frequent on the host (words.c, in place) keeps exactly the words whose key occurs at most
    max_freq times in their own record, in order: the plain definition, record by record."""
    from gpu_kernels.words import drop_frequent

    rng = np.random.default_rng(seed)
    total = n + int(rng.integers(0, 50))
    starts = np.sort(rng.choice(np.arange(1, total), size=min(records - 1, total - 1), replace=False)).astype(np.int64)
    starts = np.concatenate(([0], starts))
    pos = np.sort(rng.choice(total, size=n, replace=False))
    keys = rng.integers(0, max(1, n // 3), n).astype(np.uint64)  # many repeats
    order = np.lexsort((pos, keys))
    keys, pos = keys[order], pos[order].astype(np.int32 if position_size == 4 else np.int64)
    record = np.searchsorted(starts, pos, side="right")
    counts = {}
    for key, rec in zip(keys.tolist(), record.tolist()):
        counts[key, rec] = counts.get((key, rec), 0) + 1
    want = [i for i, (key, rec) in enumerate(zip(keys.tolist(), record.tolist()))
            if max_freq == 0 or counts[key, rec] <= max_freq]
    got_keys, got_pos = drop_frequent(keys.copy(), pos.copy(), starts, max_freq)
    assert np.array_equal(got_keys, keys[want]) and np.array_equal(got_pos, pos[want])
    assert got_pos.dtype == pos.dtype


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(6))
def test_the_device_fast_mode_filter_keeps_the_hosts_words(seed):
    """drop_frequent on the device (words.cu frequent_keep, select.cu keep_write) keeps the host's words:
    runs of one key across records, runs longer than max_freq by one and by thousands, positions int64."""
    import cupy as cp

    from gpu_kernels.words import drop_frequent

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200_000))
    total = n + 1000
    starts = np.concatenate(([0], np.sort(rng.choice(np.arange(1, total), size=int(rng.integers(0, 40)),
                                                     replace=False)))).astype(np.int64)
    pos = np.sort(rng.choice(total, size=n, replace=False)).astype(np.int64)
    keys = rng.integers(0, max(1, n // int(rng.choice([1, 3, 30]))), n).astype(np.uint64)
    keys[rng.random(n) < 0.05] = 7  # one key of thousands of copies
    order = np.lexsort((pos, keys))
    keys, pos = keys[order], pos[order]
    for max_freq in (1, 2, 20):
        want = drop_frequent(keys.copy(), pos.copy(), starts, max_freq)
        got = drop_frequent(cp.asarray(keys), cp.asarray(pos), cp.asarray(starts), max_freq)
        assert got[1].dtype == cp.int64
        assert np.array_equal(cp.asnumpy(got[0]), want[0]) and np.array_equal(cp.asnumpy(got[1]), want[1])


@pytest.mark.parametrize("spaces", [b"", b"\r", b" \t", b"\r \t"])
def test_the_genome_scan_counts_the_bases_read_fasta_reads(tmp_path, spaces):
    """workflow.genome.scan_fasta's lengths (white space counted in place, only the kinds the file holds)
    are those of the sequences read_fasta reads."""
    from gpu_kernels.fasta import read_fasta
    from gpu_kernels.workflow.genome import scan_fasta

    rng = np.random.default_rng(len(spaces))
    text = b""
    for i in range(5):
        seq = rng.choice(np.frombuffer(b"ACGTNacgt", np.uint8), int(rng.integers(1, 3000))).tobytes()
        lines = [seq[j:j + int(rng.integers(1, 90))] for j in range(0, len(seq), 60)]
        text += b">r%d desc\n" % i + b"".join(line + (spaces if rng.random() < 0.5 else b"") + b"\n" for line in lines)
    path = tmp_path / "g.fa"
    path.write_bytes(text)
    records = read_fasta(str(path))
    assert [c.length for c in scan_fasta(str(path))] == [r.codes.size for r in records]


def test_reverse_complement_of_large_codes_on_threads_is_the_table_lookup():
    from gpu_kernels.encode import COMPLEMENT
    from gpu_kernels.seqset import reverse_complement

    rng = np.random.default_rng(5)
    for size in ((1 << 22) + 3, (1 << 23) + 1):  # past the threaded path's threshold, odd lengths
        codes = rng.integers(0, COMPLEMENT.size, size=size, dtype=np.uint8)
        assert np.array_equal(reverse_complement(codes), COMPLEMENT[codes[::-1]])
        assert np.array_equal(reverse_complement(codes[1:]), COMPLEMENT[codes[1:][::-1]])  # a view
