"""A genome's codes at two bits a base (gpu_kernels/twobit.py, twobit.c): what is read back equals the
codes a byte a base, against a plain NumPy oracle."""
import numpy as np
import pytest


def drawn_codes(rng, size: int) -> np.ndarray:
    """Bases with runs of N (at the ends too) and border runs, as a genome's layout holds them."""
    from gpu_kernels.encode import BORDER, N_CODE

    codes = rng.integers(0, 4, size).astype(np.uint8)
    for value, runs in ((N_CODE, 30), (BORDER, 5)):
        for _ in range(runs if size > 50 else 1):
            start = int(rng.integers(0, max(1, size)))
            codes[start:start + int(rng.integers(1, 400))] = value
    if size > 4:
        codes[:2], codes[-3:] = N_CODE, N_CODE
    return codes


def oracle_runs(codes: np.ndarray, value: int) -> tuple[np.ndarray, np.ndarray]:
    edges = np.diff(np.concatenate(([0], (codes == value).astype(np.int8), [0])))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


@pytest.mark.parametrize("size", [0, 1, 3, 4, 5, 63, 1000, 9_000_001])
def test_packed_codes_read_back_as_written(tmp_path, size):
    """Any span unpacked where a caller lays it: its bases, its runs of N; the runs found on threads are
    the oracle's; the whole layout again with its borders."""
    from gpu_kernels import native
    from gpu_kernels.encode import BORDER, N_CODE
    from gpu_kernels.twobit import PackedCodes, save_codes

    rng = np.random.default_rng(size)
    codes = drawn_codes(rng, size)
    starts, ends = (np.frombuffer(b, np.int64) for b in native.cpu().value_runs(codes, N_CODE, 4))
    want = oracle_runs(codes, N_CODE)
    assert np.array_equal(starts, want[0]) and np.array_equal(ends, want[1])
    path = str(tmp_path / "codes.2bit")
    save_codes(path, codes, threads=3)
    assert abs((tmp_path / "codes.2bit").stat().st_size - size / 4) < 200 + 16 * starts.size
    packed = PackedCodes(path)
    for _ in range(20):
        start = int(rng.integers(0, size + 1))
        length = int(rng.integers(0, size - start + 1))
        at = int(rng.integers(0, 9))
        out = np.full(length + at + 5, 99, dtype=np.uint8)
        packed.into(out, start, length, at, threads=2)
        plain = codes[start:start + length].copy()
        plain[plain == BORDER] &= 3  # borders are the layout's, not the file's
        assert np.array_equal(out[at:at + length], plain)
        assert (out[:at] == 99).all() and (out[at + length:] == 99).all()
    # the records between the borders: the layout whole again
    record_starts, record_ends = oracle_runs((codes != BORDER).astype(np.uint8), 1)
    assert np.array_equal(packed.layout(record_starts, record_ends - record_starts), codes)


def test_a_codes_file_of_another_kind_is_refused_in_one_line(tmp_path):
    from gpu_kernels.errors import InputError
    from gpu_kernels.twobit import PackedCodes

    path = tmp_path / "codes.2bit"
    with open(path, "wb") as handle:  # an index of the version before: a code a byte
        np.save(handle, np.zeros(10, dtype=np.uint8))
    with pytest.raises(InputError, match="two bits a base"):
        PackedCodes(str(path))
