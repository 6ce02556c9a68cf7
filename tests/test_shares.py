"""The compare jobs' shares (gpu_kernels/workflow/shares.py): merged, they are the coverage numbers and
the dots that one pass over the pair's whole HSP table gives, in any layout; and the raster's rule
(a query record's rows counted from its offset's row) against a plain loop."""
import numpy as np
import pytest

from test_plots import many_hsps

QLENS = np.array([700_000, 1_200_000, 90_000, 400_000, 1_000_000])
RLENS = np.array([1_000_000, 650_000, 1_100_000, 300_000])


def table(n: int, seed: int) -> dict:
    from gpu_kernels.hsps import sort_rows

    rng = np.random.default_rng(seed)
    hsps = many_hsps(n, seed=seed, nq=QLENS.size, nr=RLENS.size, span=250_000)
    hsps["rstart"] = np.minimum(hsps["rstart"], RLENS[hsps["rrec"]] - 5000)
    # lengths from a small range, so that the longest tie at the lines' floor
    hsps["qstart"] = np.minimum(hsps["qstart"], QLENS[hsps["qrec"]] - 5000)
    hsps["qend"] = hsps["qstart"] + rng.integers(64, 80, n) * 50
    hsps["identities"] = ((hsps["qend"] - hsps["qstart"]) * rng.uniform(0.8, 1.0, n)).astype(np.int64)
    hsps["score"] = hsps["identities"]
    return sort_rows({name: np.asarray(column) for name, column in hsps.items()}, QLENS.size, RLENS.size)


def jobs(hsps: dict) -> list[dict]:
    """The table's rows split as compare jobs split them: query bins against groups of reference bins."""
    out = []
    for qbin in ([0, 1], [2, 3, 4]):
        for rgroup in ([0, 2], [1, 3]):
            rows = np.isin(hsps["qrec"], qbin) & np.isin(hsps["rrec"], rgroup)
            out.append({name: column[rows] for name, column in hsps.items()})
    return out


def oracle(hsps: dict, layout, html: bool, max_pair_plots: int):
    """The pass over the whole table: tables.hsp_coverage's numbers and gather_pictures' dots."""
    from gpu_kernels.coverage import table_coverage
    from gpu_kernels.workflow.dots import HTML_LINES, MAX_LINES, Dots
    from gpu_kernels.workflow.gather import best_pairs
    from gpu_kernels.workflow.tables import coverage_numbers

    nr = RLENS.size
    numbers = coverage_numbers(table_coverage([hsps], QLENS.size, nr), QLENS.size, nr)
    whole = Dots(layout.width, layout.height, layout, max_lines=HTML_LINES if html else MAX_LINES)
    for lo in range(0, hsps["qstart"].size, 7000):  # chunks, as a table's row groups come
        whole.add({name: column[lo:lo + 7000] for name, column in hsps.items()})
    summary = {**numbers, "qindex": numbers["keys"] // nr, "rindex": numbers["keys"] % nr}
    pairs = {}
    for qi, ri in best_pairs(summary, max_pair_plots, nr):
        rows = (hsps["qrec"] == qi) & (hsps["rrec"] == ri)
        chunk = {name: column[rows] for name, column in hsps.items()}
        chunk["qrec"], chunk["rrec"] = chunk["qrec"] * 0, chunk["rrec"] * 0
        pairs[(qi, ri)] = Dots(RLENS[ri], QLENS[qi]).add(chunk)
    return numbers, whole, pairs


def same_dots(got, want) -> None:
    assert (got.count, got.rastered) == (want.count, want.rastered)
    assert np.array_equal(got.cells, want.cells)
    assert got.lines.keys() == want.lines.keys()
    for name in want.lines:
        assert np.array_equal(got.lines[name], want.lines[name]), name


@pytest.mark.parametrize("html,lines", [(False, None), (True, None), (False, 300)])
def test_merged_shares_are_the_pass_over_the_whole_table(tmp_path, monkeypatch, html, lines):
    """lines: the dotplots' MAX_LINES made small, so that every pair dotplot has more HSPs than lines and
    the lines' floor falls among ties."""
    from gpu_kernels.workflow import dots, shares
    from gpu_kernels.workflow.dots import Layout
    from gpu_kernels.workflow.genome import Genome
    from gpu_kernels.workflow.shares import gathered, load_share, make_share, merge_shares, save_share

    if lines is not None:
        monkeypatch.setattr(dots, "MAX_LINES", lines)
        monkeypatch.setattr(shares, "MAX_LINES", lines)

    hsps = table(90_000, seed=3)
    query = Genome.of("Q", [f"q{i}" for i in range(QLENS.size)], QLENS)
    reference = Genome.of("R", [f"r{i}" for i in range(RLENS.size)], RLENS)
    paths = []
    for k, job in enumerate(jobs(hsps)):
        paths.append(str(tmp_path / f"share{k}.npz"))
        save_share(paths[-1], make_share(job, QLENS, RLENS, True, html, 6))
    numbers, merged = merge_shares(paths, query, reference, 6)
    save_share(str(tmp_path / "merged.npz"), merged)
    merged = load_share(str(tmp_path / "merged.npz"))
    summary = {**numbers, "qindex": numbers["keys"] // RLENS.size, "rindex": numbers["keys"] % RLENS.size}
    for layout in (Layout(QLENS, RLENS), Layout(QLENS, RLENS, [3, 0, 4, 2, 1], [True, False, False, True, True])):
        placed = gathered(merged, summary, query, reference, "reference", layout)
        want_numbers, want_whole, want_pairs = oracle(hsps, layout, html, 6)
        assert numbers.keys() == want_numbers.keys()
        for name in want_numbers:
            assert np.array_equal(numbers[name], want_numbers[name]), name
        assert np.array_equal(placed.layout.qoff, layout.qoff) and np.array_equal(placed.layout.flip, layout.flip)
        same_dots(placed.whole, want_whole)
        assert list(placed.pairs) == list(want_pairs) and len(want_pairs) == 6
        for key in want_pairs:
            same_dots(placed.pairs[key], want_pairs[key])
        assert placed.whole.rastered > 0 and want_whole.lines["x0"].size > (1000 if lines is None else 299)
        if lines is not None:
            assert all(dots.rastered > 0 for dots in want_pairs.values())


def test_shares_that_hold_one_chromosome_pair_twice_are_refused(tmp_path):
    """A chromosome pair's numbers are whole in the one compare job that holds it, so shares of two jobs that
    both hold one (here a job's rows cut in two) are not a run's: one clear error, no numbers."""
    from gpu_kernels.errors import InputError
    from gpu_kernels.workflow.genome import Genome
    from gpu_kernels.workflow.shares import make_share, merge_shares, save_share

    job = jobs(table(20_000, seed=5))[0]
    paths = []
    for h in (0, 1):
        rows = np.arange(job["qstart"].size) % 2 == h
        paths.append(str(tmp_path / f"half{h}.npz"))
        save_share(paths[-1], make_share({name: column[rows] for name, column in job.items()}, QLENS, RLENS, False,
                                         False, 0))
    query = Genome.of("Q", [f"q{i}" for i in range(QLENS.size)], QLENS)
    reference = Genome.of("R", [f"r{i}" for i in range(RLENS.size)], RLENS)
    with pytest.raises(InputError, match="hold one chromosome pair"):
        merge_shares(paths, query, reference, 0)


def test_the_share_rehearsal_makes_a_compare_jobs_share(monkeypatch):
    """rehearse_share makes a share as a compare job does (its HSPs in chains, records numbered in the genome,
    the genome dotplot with the interactive one's lines and pair dotplots), so that its kernels are the job's."""
    from gpu_kernels.backend import NumpyBackend
    from gpu_kernels.workflow import shares

    made = []
    real = shares.make_share
    monkeypatch.setattr(shares, "make_share", lambda *args: made.append(real(*args)) or made[-1])
    assert shares.rehearse_share(NumpyBackend()) > 0
    share = made[0]
    assert int(share["whole.count"]) > 10_000 and share["whole.qstart"].size > 1000
    assert share["pairs"].shape == (1, 2) and share["coverage.keys"].size == 1


def test_a_records_raster_rows_count_from_its_offsets_row():
    """Dots' raster against a plain loop: each HSP's midpoint marks (drawn strand, the row of its
    record's offset plus the row of its midpoint along the record as drawn, the column along the
    reference) with its identity, the highest winning."""
    from gpu_kernels.workflow.dots import RASTER, Dots, Layout

    hsps = table(3000, seed=8)
    layout = Layout(QLENS, RLENS, [4, 1, 0, 3, 2], [False, True, False, True, False])
    dots = Dots(layout.width, layout.height, layout, max_lines=0).add(hsps)
    want = np.zeros((2, RASTER * RASTER), np.float32)
    xs, ys = RASTER / (2 * float(RLENS.sum())), RASTER / (2 * float(QLENS.sum()))
    roff = np.concatenate(([0], np.cumsum(RLENS)[:-1]))
    for i in range(hsps["qstart"].size):
        q, r = int(hsps["qrec"][i]), int(hsps["rrec"][i])
        qs, qe, rs = int(hsps["qstart"][i]), int(hsps["qend"][i]), int(hsps["rstart"][i])
        flip = bool(layout.flip[q])
        y2 = 2 * int(QLENS[q]) - qs - qe if flip else qs + qe
        row = min(int(2 * int(layout.qoff[q]) * ys) + int(y2 * ys), RASTER - 1)
        column = min(int((2 * (int(roff[r]) + rs) + qe - qs) * xs), RASTER - 1)
        drawn = int(hsps["strand"][i]) ^ int(flip)
        value = np.float32(100.0 * int(hsps["identities"][i]) / max(qe - qs, 1))
        want[drawn, row * RASTER + column] = max(want[drawn, row * RASTER + column], value)
    assert np.array_equal(dots.cells, want) and dots.rastered == hsps["qstart"].size


@pytest.mark.gpu
@pytest.mark.parametrize("lines", [None, 300])
def test_a_share_made_on_the_device_is_the_hosts(monkeypatch, lines):
    cp = pytest.importorskip("cupy")
    from gpu_kernels.workflow import dots, shares
    from gpu_kernels.workflow.shares import make_share

    if lines is not None:  # pair dotplots of more HSPs than lines
        monkeypatch.setattr(dots, "MAX_LINES", lines)
        monkeypatch.setattr(shares, "MAX_LINES", lines)

    for job in jobs(table(60_000, seed=4)):
        host = make_share(job, QLENS, RLENS, True, True, 4)
        device = make_share({name: cp.asarray(column) for name, column in job.items()}, QLENS, RLENS, True, True, 4)
        assert host.keys() == device.keys()
        for name in host:
            assert np.array_equal(host[name], device[name]), name


def test_a_share_cut_short_is_one_clear_error(tmp_path):
    from gpu_kernels.errors import InputError
    from gpu_kernels.workflow.shares import load_share, make_share, save_share

    path = tmp_path / "share.npz"
    save_share(str(path), make_share(table(2000, seed=1), QLENS, RLENS, True, False, 2))
    assert load_share(str(path), "pairs")["pairs"].shape[1] == 2
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(InputError, match="not a readable compare job's share"):
        load_share(str(path))
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(InputError, match="not a compare job's share"):
        load_share(str(tmp_path / "other.npz"))
