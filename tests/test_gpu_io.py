"""The CuPy backend against the NumPy backend: FASTA encoding, exact matches, tables and pages, device
memory (skipped without a GPU)."""
import numpy as np
import pytest

from gpu_kernels.schema import MATCH

from conftest import MYCO_232, MYCO_7422
from gpu_kernels import compare
from gpu_kernels.fasta import read_fasta
from gpu_kernels.seqset import make_seqset

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")


@pytest.mark.parametrize("unique", [False, True])
def test_exact_matches_same_on_gpu(unique):
    from gpu_kernels.backend import CupyBackend, NumpyBackend
    from gpu_kernels.matches import find_matches

    q, r = read_fasta(MYCO_232), read_fasta(MYCO_7422)
    query = make_seqset([x.name for x in q], [x.codes for x in q])
    reference = make_seqset([x.name for x in r], [x.codes for x in r])
    for min_len in (20, 50):
        host = find_matches(query, reference, min_len, unique, NumpyBackend())
        dev = find_matches(query, reference, min_len, unique, CupyBackend())
        rows = lambda m: set(zip(*(np.asarray(m[c]).tolist() for c in MATCH.names)))
        assert rows(host) == rows(dev) and len(rows(host)) > 1000


def test_exact_matches_in_repeats_same_on_gpu(monkeypatch):
    """Tandem repeats, N runs and many records (pairs that extend left skipped by their symbol
    before, record starts), with room for 7 MEMs at first so the kernel runs twice: the CPU's MEMs."""
    from gpu_kernels import matches as M
    from gpu_kernels.backend import CupyBackend, NumpyBackend

    rng = np.random.default_rng(5)
    unit = rng.integers(0, 4, 7).astype(np.uint8)

    def genome(n):
        parts = []
        for _ in range(n):
            piece = rng.integers(0, 4, int(rng.integers(30, 300))).astype(np.uint8)
            piece[rng.random(piece.size) < 0.02] = 4
            parts.append(np.concatenate([np.tile(unit, int(rng.integers(1, 12))), piece]))
        return make_seqset([f"s{i}" for i in range(n)], parts)

    query, reference = genome(40), genome(30)
    monkeypatch.setattr(M, "first_room", lambda: 7)
    for unique in (False, True):
        host = M.find_matches(query, reference, 12, unique, NumpyBackend())
        dev = M.find_matches(query, reference, 12, unique, CupyBackend())
        rows = lambda m: sorted(zip(*(np.asarray(m[c]).tolist() for c in MATCH.names)))
        assert rows(host) == rows(dev) and len(rows(host)) > (20 if unique else 1000)


def test_reference_tiles_same_on_gpu():
    """A reference matched a tile of records at a time on the device (issue 35: a genome bigger than the
    device) gives the CPU's one-pass columns, row for row and in order; MUMs unique over all tiles; so do
    batches cut by the matches they find (issue 77), with tiles and without."""
    from gpu_kernels import matches as M
    from gpu_kernels.backend import CupyBackend, NumpyBackend

    rng = np.random.default_rng(8)
    ancestor = rng.integers(0, 4, 5000).astype(np.uint8)

    def copies(n, prefix):
        parts = []
        for _ in range(n):
            at = int(rng.integers(0, 4000))
            piece = ancestor[at:at + int(rng.integers(200, 1000))].copy()
            piece[rng.random(piece.size) < 0.03] = rng.integers(0, 5)
            parts.append(piece)
        return make_seqset([f"{prefix}{i}" for i in range(n)], parts)

    query, reference = copies(12, "q"), copies(9, "r")
    for unique in (False, True):
        host = M.find_matches(query, reference, 15, unique, NumpyBackend())
        for tile, rows in ((1, 0), (1500, 0), (0, 60), (1500, 60)):  # rows: batches cut by their matches
            dev = M.find_matches(query, reference, 15, unique, CupyBackend(), tile_bases=tile, match_rows=rows)
            assert all(np.array_equal(host[c], dev[c]) for c in MATCH.names), (unique, tile, rows)
        assert host["length"].size > (50 if unique else 150)


@pytest.mark.parametrize("length", [1, 12, 33, 64, 1024])
def test_whole_record_matches_same_on_gpu(length):
    """Records exactly -l long looked up whole (issue 35): the device's window hashes, index and hits are
    the CPU's, row for row and in order, on a repeat-rich reference of several records with N runs,
    probes drawn from it (both strands, over N runs, at record ends) and random ones; then find_matches
    on a mix of whole records and longer ones."""
    from gpu_kernels import matches as M, matches_runs as R
    from gpu_kernels.backend import CupyBackend, NumpyBackend

    rng = np.random.default_rng(length)
    unit = rng.integers(0, 4, 5).astype(np.uint8)
    pieces = []
    for _ in range(6):
        piece = np.concatenate([rng.integers(0, 4, int(rng.integers(length, 4 * length + 200))).astype(np.uint8),
                                np.tile(unit, 2 * length // 5 + 3)])
        piece[rng.random(piece.size) < 0.01] = 4
        pieces.append(piece)
    reference = make_seqset([f"r{i}" for i in range(6)], pieces)
    probes = []
    for _ in range(300):
        piece = pieces[int(rng.integers(0, 6))]
        at = int(rng.integers(0, piece.size - length + 1))
        probe = piece[at:at + length].copy()
        probes.append(probe if rng.random() < 0.5 else M.reverse_complement(probe))
    probes += [rng.integers(0, 4, length).astype(np.uint8) for _ in range(50)]
    probes += [rng.integers(0, 4, length + int(rng.integers(1, 50))).astype(np.uint8) for _ in range(20)]
    query = make_seqset([f"q{i}" for i in range(len(probes))], probes)
    whole = M.whole_records(query, length)
    host_index = R.whole_index(reference.codes, length)
    dev_index = R.whole_index_cupy(cp.asarray(reference.codes), length)
    assert all((a == b.get()).all() for a, b in zip(host_index, dev_index))
    starts = query.starts[whole]
    for strand in (0, 1):
        host = R.whole_record_matches(query.codes, starts, reference.codes, host_index, length, strand)
        dev = R.whole_record_matches_cupy(cp.asarray(query.codes), starts, cp.asarray(reference.codes), dev_index,
                                          length, strand)
        assert all((a == b.get()).all() for a, b in zip(host, dev))
        assert host[0].size >= (100 if strand == 0 else 1)
    for unique in (False, True):
        host = M.find_matches(query, reference, length, unique, NumpyBackend())
        dev = M.find_matches(query, reference, length, unique, CupyBackend())
        rows = lambda m: sorted(zip(*(np.asarray(m[c]).tolist() for c in MATCH.names)))
        assert rows(host) == rows(dev)


def drawn_fasta(rng, records: int, long: bool) -> bytes:
    """FASTA text of drawn records: LF or CRLF lines of drawn widths, blanks in lines, letters of any case,
    IUPAC codes and U, some records long (many device pieces), some a single line."""
    letters = np.frombuffer(b"ACGTNacgtnRYUu-", dtype=np.uint8)
    rows = []
    for r in range(records):
        size = int(rng.choice([1, 7, 300, 5000] + ([70_000] if long else [])))
        seq = letters[rng.integers(0, letters.size, size)].tobytes()
        end = [b"\n", b"\r\n"][int(rng.integers(0, 2))]
        width = int(rng.choice([10, 61, 100_000]))
        lines = [seq[i:i + width] for i in range(0, len(seq), width)]
        if rng.random() < 0.2:
            lines = [line + b" \t" for line in lines]
        rows.append(f">r{r} note\n".encode() + end.join(lines) + end)
    return b"".join(rows)


@pytest.mark.parametrize("seed", range(8))
def test_device_fasta_encoding_equals_the_host_one(seed, monkeypatch):
    """fasta.encode_fasta_cupy (fasta.cu: a warp a piece of a body) gives encode_fasta's lengths, starts
    and codes, borders included, for drawn files (records over many pieces, CRLF, blanks, IUPAC, U),
    with the bytes copied by it or handed over on the device; a bad byte, an empty record and an all-N
    one get the host's error, word for word."""
    from gpu_kernels import fasta
    from gpu_kernels.errors import InputError

    monkeypatch.setattr(fasta, "DEVICE_PIECE", int(np.random.default_rng(seed).choice([64, 1000, 1 << 14])))
    rng = np.random.default_rng(seed)
    text = drawn_fasta(rng, int(rng.integers(1, 40)), seed % 2 == 0)
    spans = fasta.layout(text, "x.fa")
    host = fasta.encode_fasta(text, spans, "x.fa", True)
    on_device = cp.asarray(np.frombuffer(text, dtype=np.uint8)) if seed % 3 == 0 else None
    dev = fasta.encode_fasta_cupy(text, spans, "x.fa", True, on_device)
    assert isinstance(dev.codes, cp.ndarray) and dev.names == host.names
    assert np.array_equal(dev.lengths, host.lengths) and np.array_equal(dev.starts, host.starts)
    assert np.array_equal(dev.codes.get(), host.codes) and np.array_equal(dev.has_acgt, host.has_acgt)
    at = int(rng.integers(0, len(spans)))
    _, start, end = spans[at]
    cases = []
    body = bytearray(text[start:end])
    letters = [i for i, b in enumerate(body) if chr(b).isalpha()]
    if letters:
        body[letters[int(rng.integers(0, len(letters)))]] = ord("!")
        cases.append((text[:start] + bytes(body) + text[end:], True))
    cases.append((text[:start] + b"\n" + text[end:], True))  # an empty record
    cases.append((text[:start] + b"N" * (end - start) + b"\n" + text[end:], False))  # all N, not a read set
    for bad, reads in cases:
        spans = fasta.layout(bad, "x.fa")
        with pytest.raises(InputError) as expected:
            fasta.encode_fasta(bad, spans, "x.fa", reads)
        with pytest.raises(InputError) as got:
            fasta.encode_fasta_cupy(bad, spans, "x.fa", reads)
        assert str(got.value) == str(expected.value)


def test_a_set_too_large_for_the_device_is_encoded_on_the_host(monkeypatch):
    """encode_fasta_cupy out of device memory (the bytes and codes of a read set larger than the GPU):
    the host's encoding instead, the same SeqSet with NumPy codes, and no error."""
    from gpu_kernels import fasta

    def full(*args):
        raise cp.cuda.memory.OutOfMemoryError(1 << 40, 1 << 30)
    text = drawn_fasta(np.random.default_rng(1), 20, False)
    spans = fasta.layout(text, "x.fa")
    monkeypatch.setattr(fasta, "_encode_on_device", full)
    got, expected = fasta.encode_fasta_cupy(text, spans, "x.fa", True), fasta.encode_fasta(text, spans, "x.fa", True)
    assert isinstance(got.codes, np.ndarray) and np.array_equal(got.codes, expected.codes)
    assert np.array_equal(got.starts, expected.starts) and got.names == expected.names


def test_large_host_arrays_go_to_the_device_whole(monkeypatch):
    """arrays.to_device through the two kept pinned buffers (filled on threads, fasta.c's copy_bytes):
    every byte arrives, for sizes that are and are not a whole number of chunks, any dtype."""
    from gpu_kernels import arrays

    monkeypatch.setattr(arrays, "PINNED_COPY", 1 << 10)
    monkeypatch.setattr(arrays, "PINNED_CHUNK", 1 << 12)
    monkeypatch.setattr(arrays, "_staging", [])
    rng = np.random.default_rng(3)
    for size, dtype in ((1 << 10, np.uint8), (3 * (1 << 12), np.uint8), (12_345, np.int64), (5000, np.uint32)):
        host = rng.integers(0, 1 << 30, size).astype(dtype)
        dev = arrays.to_device(host, cp)
        assert dev.dtype == host.dtype and np.array_equal(dev.get(), host)
        assert np.array_equal(arrays.to_host(dev), host)


@pytest.mark.parametrize("unique", [False, True])
def test_matches_of_a_query_encoded_on_the_device_equal_the_host_ones(unique, monkeypatch):
    """A read or probe set whose codes live on the device (the command line's mems and mums on the GPU):
    skipped records (all N, too short) and whole-record ones made borders there (fasta.cu's fill_spans),
    batches cut as views of the device codes: the rows of the host query's matches."""
    from gpu_kernels import fasta, matches as M
    from gpu_kernels.backend import CupyBackend, NumpyBackend

    rng = np.random.default_rng(7)
    reference = rng.integers(0, 4, 30_000).astype(np.uint8)
    reference[12_000:12_400] = 4
    rtext = b">ref\n" + np.frombuffer(b"ACGTN", dtype=np.uint8)[reference].tobytes() + b"\n"
    rows = []
    for i in range(200):
        kind = i % 5
        at = int(rng.integers(0, reference.size - 400))
        size = 40 if kind < 2 else int(rng.integers(41, 400)) if kind < 4 else 5
        seq = np.frombuffer(b"ACGTN", dtype=np.uint8)[reference[at:at + size]].tobytes()
        if i % 17 == 0:
            seq = b"N" * len(seq)
        rows.append(f">q{i}\n".encode() + b"\n".join(seq[j:j + 60] for j in range(0, len(seq), 60)) + b"\n")
    text = b"".join(rows)
    query = fasta.encode_fasta(text, fasta.layout(text, "q.fa"), "q.fa", True)
    dev_query = fasta.encode_fasta_cupy(text, fasta.layout(text, "q.fa"), "q.fa", True)
    ref = fasta.encode_fasta(rtext, fasta.layout(rtext, "r.fa"), "r.fa")
    host = M.find_matches(query, ref, 40, unique, NumpyBackend(), batch_bases=3000)
    dev = M.find_matches(dev_query, ref, 40, unique, CupyBackend(), batch_bases=3000)
    assert all(np.array_equal(host[c], dev[c]) for c in MATCH.names)
    assert host["length"].size > (30 if unique else 60)
    skipped = M.skip_unmatchable(dev_query, 40)
    assert isinstance(skipped.codes, cp.ndarray)
    assert np.array_equal(skipped.codes.get(), M.skip_unmatchable(query, 40).codes)


def test_mems_command_line_same_text_on_both_backends(tmp_path):
    """The command line's mems and mums with the probe set encoded on the device: the NumPy backend's
    text, byte for byte; a probe set with a bad letter gets the same one line and status 2."""
    import subprocess
    import sys

    from conftest import ROOT

    rng = np.random.default_rng(4)
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)
    reference = letters[rng.integers(0, 4, 50_000)].tobytes()
    ref = tmp_path / "ref.fa"
    ref.write_bytes(b">chr\n" + b"\n".join(reference[i:i + 80] for i in range(0, len(reference), 80)) + b"\n")
    probes = []
    for i in range(3000):
        at = int(rng.integers(0, len(reference) - 200))
        seq = reference[at:at + (64 if i % 4 else int(rng.integers(20, 200)))]
        probes.append(b">p%d\n%s\n" % (i, seq if i % 3 else letters[rng.integers(0, 4, len(seq))].tobytes()))
    query = tmp_path / "probes.fa"
    query.write_bytes(b"".join(probes))
    for mode in ("mems", "mums"):
        texts = [subprocess.run([sys.executable, "-m", "gpu_kernels", mode, str(query), str(ref), "-l", "64",
                                 "--backend", backend], cwd=ROOT, capture_output=True, check=True).stdout
                 for backend in ("numpy", "cupy")]
        assert texts[0] == texts[1] and texts[0].count(b"\n") > 4000
    query.write_bytes(b"".join(probes[:2000]) + b">bad\nACG1T\n" + b"".join(probes[2000:]))
    errors = [subprocess.run([sys.executable, "-m", "gpu_kernels", "mems", str(query), str(ref), "-l", "64",
                              "--backend", backend], cwd=ROOT, capture_output=True, text=True)
              for backend in ("numpy", "cupy")]
    assert [e.returncode for e in errors] == [2, 2] and errors[0].stderr == errors[1].stderr
    assert "unexpected character '1'" in errors[1].stderr and errors[1].stderr.count("\n") == 1


@pytest.mark.parametrize("seed", range(6))
def test_delta_pages_same_bytes_on_gpu(seed):
    """The device's Parquet pages are byte for byte the NumPy twin's, at both widths, any group size."""
    from gpu_kernels.pages import delta_pages, delta_pages_cupy

    rng = np.random.default_rng(seed)
    for n, group in ((1, 1), (129, 128), (5000, 1000), (300_001, 1 << 16)):
        for bits, values in ((64, rng.integers(-2**63, 2**63 - 1, n)), (64, np.sort(rng.integers(0, 10**9, n))),
                             (32, rng.integers(-2**31, 2**31 - 1, n)), (32, rng.integers(0, 3, n))):
            host = delta_pages(values, group, bits)
            device = [cp.asnumpy(a) for a in delta_pages_cupy(cp.asarray(values), group, bits)]
            for a, b in zip(host, device):
                assert np.array_equal(a, b), (n, group, bits)


def test_gpu_parquet_equals_cpu_parquet(tmp_path):
    """The real pair's HSP table written from the GPU is the same file as from the CPU."""
    from gpu_kernels.backend import CupyBackend, NumpyBackend

    cpu = compare(MYCO_232, MYCO_7422, backend=NumpyBackend())
    gpu = compare(MYCO_232, MYCO_7422, backend=CupyBackend())
    a, b = tmp_path / "cpu.parquet", tmp_path / "gpu.parquet"
    cpu.write_parquet(str(a), row_group_rows=100)
    gpu.write_parquet(str(b), row_group_rows=100)
    import pyarrow.parquet as pq

    ta, tb = pq.read_table(a), pq.read_table(b)
    assert ta.num_rows > 500 and ta.equals(tb) and pq.ParquetFile(b).num_row_groups == -(-ta.num_rows // 100)


def test_pinned_buffers_reserved_during_compare_give_the_same_table(tmp_path, monkeypatch):
    """With the writer's pinned buffers readied while compare puts the table in order (reserve_pages,
    here for a table of a few hundred rows), the Parquet table's pages are the same bytes as without
    them, and the write used the buffers reserved."""
    from gpu_kernels import backend as B

    files = []
    for prepin in ("0", "1"):
        monkeypatch.setenv("GPU_KERNELS_PREPIN", prepin)
        monkeypatch.setattr(B, "PREPIN_MIN_ROWS", 1)
        monkeypatch.setattr(B, "PAGE_BYTES_GUESS", 256)  # surely enough: no slice outgrows the buffers
        gpu = B.CupyBackend()
        result = compare(MYCO_232, MYCO_7422, backend=gpu)
        reserved = gpu._ring.buffers[0] if gpu._ring is not None else None
        files.append(tmp_path / f"{prepin}.parquet")
        result.write_parquet(str(files[-1]), row_group_rows=100)
        if prepin == "1":
            assert reserved is not None and reserved.size >= result.stats["hsps"] * B.PAGE_BYTES_GUESS
            assert gpu._ring.buffers[0] is reserved  # taken, not pinned again
        else:
            assert reserved is None
    # the same pages byte for byte; the footers differ only in the stats' times
    pages = []
    for path in files:
        data = path.read_bytes()
        pages.append(data[:len(data) - 8 - int.from_bytes(data[-8:-4], "little")])
    import pyarrow.parquet as pq

    assert len(pages[0]) > 4000 and pages[0] == pages[1] and pq.read_table(files[0]).equals(pq.read_table(files[1]))

    # a last write gives its buffers back as it finishes; a write after it pins new ones
    for last in (True, False):
        ring = gpu._ring
        files.append(tmp_path / f"last-{last}.parquet")
        result.write_parquet(str(files[-1]), row_group_rows=100, last=last)
        if last:
            assert gpu._ring is None
            gpu._releasing.join(timeout=60)
            assert not gpu._releasing.is_alive() and ring.buffers == [None] * len(ring.buffers)
        else:
            assert gpu._ring is not None
        data = files[-1].read_bytes()
        assert data[:len(pages[0])] == pages[0]


def test_concatenate_copies_device_memory():
    """arrays.concatenate (device-to-device copies) equals np.concatenate, empty parts and views included."""
    from gpu_kernels.arrays import concatenate

    rng = np.random.default_rng(3)
    for dtype in (np.int8, np.int32, np.int64, np.uint64):
        parts = [rng.integers(0, 100, n).astype(dtype) for n in (5, 0, 1000, 1)]
        device = [cp.asarray(p) for p in parts]
        device[2] = cp.asarray(np.repeat(parts[2], 2))[::2]  # a strided view
        got = concatenate(device)
        assert got.dtype == dtype and np.array_equal(cp.asnumpy(got), np.concatenate(parts))
