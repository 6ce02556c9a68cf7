"""The HSP table (Parquet) and the text formats streamed from it."""
import json
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

import legacy_formats
from conftest import MYCO_232, MYCO_7422, ROOT
from gpu_kernels import Params, compare
from gpu_kernels import formats as F
from gpu_kernels.errors import InputError
from gpu_kernels.schema import HSP

COLUMNS = HSP.names


@pytest.fixture(scope="module")
def myco():
    return compare(MYCO_232, MYCO_7422, Params())


def test_parquet_round_trip(tmp_path, myco):
    path = tmp_path / "h.parquet"
    myco.write_parquet(str(path))
    table = pq.read_table(path)
    assert table.column_names == list(COLUMNS)
    types = {f.name: str(f.type) for f in table.schema}
    assert types["qrec"] == types["rrec"] == "int32" and types["strand"] == "int8"
    assert all(types[c] == "int64" for c in HSP.names if c not in HSP.view("narrow"))
    hsps, meta = F.read_hsps(str(path))
    for name in COLUMNS:
        assert np.array_equal(hsps[name], myco.hsps[name])
    assert meta["query"]["names"] == list(myco.query.names)
    assert meta["query"]["lengths"] == [int(x) for x in myco.query.lengths]
    assert meta["reference"]["names"] == list(myco.reference.names)
    assert meta["params"] == myco.params.as_dict()
    assert Params(**meta["params"]) == myco.params
    assert meta["stats"]["hsps"] == table.num_rows
    # pandas reads it as it is
    frame = pd_read(path)
    assert len(frame) == table.num_rows and list(frame.columns) == list(COLUMNS)


def pd_read(path):
    import pandas as pd

    return pd.read_parquet(path)


def test_tiny_row_groups_give_the_same_rows(tmp_path, myco):
    whole, small = tmp_path / "whole.parquet", tmp_path / "small.parquet"
    myco.write_parquet(str(whole))
    myco.write_parquet(str(small), row_group_rows=37)
    n = myco.stats["hsps"]
    assert pq.ParquetFile(small).num_row_groups == -(-n // 37) > 10
    assert pq.read_table(small).equals(pq.read_table(whole))
    parts = list(F.iter_hsps(str(small)))
    assert sum(p["qstart"].size for p in parts) == n


def test_a_full_disk_names_the_file_and_leaves_nothing_looking_finished(tmp_path, myco, monkeypatch):
    table, out = tmp_path / "h.parquet", tmp_path / "h.paf"
    myco.write_parquet(str(table), row_group_rows=100)

    def full(fd, data, offset):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(F.os, "pwrite", full)
    with pytest.raises(OSError) as caught:
        F.paf_from_table(str(table), str(out))
    assert caught.value.filename == str(out) and caught.value.errno == 28
    assert list(tmp_path.iterdir()) == [table]  # no PAF, no temporary file


def test_paf_and_gecko_from_parquet_equal_the_old_writers(tmp_path, myco, monkeypatch):
    # slices of 7 rows: every row group of 100 is cut into slices read from one shared row group
    monkeypatch.setattr(F.tables, "TEXT_SLICE_ROWS", 7)
    table = tmp_path / "h.parquet"
    myco.write_parquet(str(table), row_group_rows=100)
    h = myco.hsps
    q, r = myco.query, myco.reference
    paf = tmp_path / "h.paf"
    assert F.paf_from_table(str(table), str(paf), threads=3) == len(h["qstart"])
    assert paf.read_text() == "".join(legacy_formats.paf_lines(h, q.names, q.lengths, r.names, r.lengths))
    csv = tmp_path / "h.csv"
    F.gecko_csv_from_table(str(table), str(csv), "A", "B", 10, 5, threads=2)
    text = csv.read_text().splitlines(keepends=True)
    assert len(text) == 17 + len(h["qstart"]) and "Total fragments      : %d\n" % len(h["qstart"]) in text
    assert "".join(text[17:]) == "".join(legacy_formats.gecko_rows(h, q.lengths, r.lengths, 1))
    # the in-memory writer and the device-side writer give the same bytes
    direct = tmp_path / "direct.paf"
    myco.write_paf(str(direct), threads=2)
    assert direct.read_bytes() == paf.read_bytes()


def test_text_formats_round_like_printf():
    """Fixed decimals as %.Nf writes them, ties and near-ties included, on many drawn fractions."""
    rng = np.random.default_rng(3)
    n = 300_000
    length = rng.integers(0, 5000, n)
    ids = (length * rng.random(n)).astype(np.int64)
    hsps = {"qrec": np.zeros(n, np.int64), "rrec": np.zeros(n, np.int64), "qstart": np.zeros(n, np.int64),
            "qend": length, "rstart": np.zeros(n, np.int64), "rend": length, "strand": rng.integers(0, 2, n),
            "score": 2 * ids - length, "identities": ids, "length": length}
    text = bytes(F.paf_text(hsps, ["a"], [10**6], ["b"], [10**6])).decode()
    assert text == "".join(legacy_formats.paf_lines(hsps, ["a"], [10**6], ["b"], [10**6]))
    text = bytes(F.gecko_text(hsps, [10**6], [10**6], 3)).decode()
    assert text == "".join(legacy_formats.gecko_rows(hsps, np.array([10**6]), np.array([10**6]), 3))


def test_compiled_decimals_are_printf_exact():
    """The compiled row printer's fixed decimals equal printf's on exact ties (k/64, k/8: half to even),
    values near 2^53, tiny and huge values, negative zero, infinities; integers at the int64 ends."""
    rng = np.random.default_rng(5)
    values = np.concatenate([rng.random(100_000) * 10.0 ** rng.integers(-8, 12, 100_000), -rng.random(1000),
                             np.arange(1, 5000) / 64.0, np.arange(0, 4, 0.125), [0.0, -0.0, 5e-324, 1e-300, 2.0**53 - 1,
                             123456789.987654321, 1e30, np.inf, -np.inf]])
    for decimals in range(10):
        text = bytes(F.format_rows(values.size, (("f", values, decimals), "\n"))).decode()
        assert text == "".join("%.*f\n" % (decimals, v) for v in values)
    ints = np.array([0, -1, 9, 10, 99, 100, 2**31, -2**63, 2**63 - 1], dtype=np.int64)
    names = F.name_table(["", "chr1", "a|b"])
    text = bytes(F.format_rows(ints.size, (("i", ints), "\t", ("n", np.arange(ints.size) % 3, names), "\n"))).decode()
    assert text == "".join(f"{v}\t{['', 'chr1', 'a|b'][i % 3]}\n" for i, v in enumerate(ints.tolist()))


def test_positions_past_2_31_stay_exact(tmp_path):
    big = 2**31 + 10
    hsps = {name: np.array([big - 100, big - 5], dtype=np.int64) for name in COLUMNS}
    hsps.update(qrec=np.array([0, 0]), rrec=np.array([0, 0]), strand=np.array([0, 1]),
                qend=np.array([big - 36, big]), rend=np.array([big - 36, big]), length=np.array([64, 5]),
                score=np.array([64, 5]), identities=np.array([64, 5]))
    path = tmp_path / "big.parquet"
    F.write_hsps(str(path), hsps, ["q"], [big], ["r"], [big])
    back, _ = F.read_hsps(str(path))
    for name in COLUMNS:
        assert back[name].tolist() == np.asarray(hsps[name]).tolist()
    paf = tmp_path / "big.paf"
    F.paf_from_table(str(path), str(paf))
    first = paf.read_text().splitlines()[0].split("\t")
    assert first[1] == str(big) and first[2] == str(big - 100) and first[3] == str(big - 36)


def test_command_line_counts_agree(tmp_path):
    """HSP count == Parquet rows == PAF lines, and nothing half-written is left."""
    table, paf = tmp_path / "out.parquet", tmp_path / "out.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(table),
                           "-o", str(paf)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    count = int(proc.stderr.split()[0])
    assert count == pq.ParquetFile(table).metadata.num_rows == len(paf.read_text().splitlines()) > 500
    assert json.loads(pq.read_schema(table).metadata[b"gpu_kernels"])["stats"]["hsps"] == count
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_outputs_of_an_earlier_run_are_replaced_and_inputs_never_removed(tmp_path):
    """A second run over the first's outputs leaves the same table and PAF and nothing else; a file
    written over by atomic_path is replaced whole; an output named as an input, or beside a missing
    input, is not removed first."""
    table, paf = tmp_path / "out.parquet", tmp_path / "out.paf"
    base = [sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(table), "-o", str(paf)]
    runs = []
    for _ in range(2):
        assert subprocess.run(base, cwd=ROOT, capture_output=True).returncode == 0
        runs.append((pq.read_table(table), paf.read_bytes()))
    assert runs[0][0].equals(runs[1][0]) and runs[0][1] == runs[1][1] and len(runs[0][1]) > 10000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.paf", "out.parquet"]

    target = tmp_path / "text"
    target.write_text("old and longer")
    with F.atomic_path(str(target)) as tmp:
        with open(tmp, "w") as handle:
            handle.write("new")
    assert target.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["out.paf", "out.parquet", "text"]



def test_row_groups_copied_byte_for_byte_read_as_the_rows_written(tmp_path):
    """The workflow's merge: tables appended by copying their row groups (mixed with rows encoded
    anew) read back as one table of all the rows, in order, statistics included."""
    rng = np.random.default_rng(8)
    tables, paths = [], []
    for i, n in enumerate((5_000, 1, 12_345)):
        qstart = np.sort(rng.integers(0, 10**9, n))
        length = rng.integers(64, 900, n)
        hsps = {"qrec": np.full(n, i), "rrec": rng.integers(0, 5, n), "qstart": qstart, "qend": qstart + length,
                "rstart": rng.integers(0, 10**9, n), "strand": rng.integers(0, 2, n), "score": length,
                "identities": length - 3}
        path = tmp_path / f"part{i}.parquet"
        F.write_hsps(str(path), hsps, ["a", "b", "c"], [1, 2, 3], list("vwxyz"), [1] * 5, row_group_rows=999)
        tables.append(pq.read_table(path))
        paths.append(path)
    merged = tmp_path / "merged.parquet"
    with F.HspWriter(str(merged), ["a", "b", "c"], [1, 2, 3], list("vwxyz"), [1] * 5, row_group_rows=999) as out:
        out.copy_row_groups(str(paths[0]))
        out.write({name: tables[1].column(name).to_numpy() for name in tables[1].column_names})
        out.copy_row_groups(str(paths[2]))
    import pyarrow as pa

    assert pq.read_table(merged).equals(pa.concat_tables(tables))
    assert pq.ParquetFile(merged).metadata.num_row_groups == 6 + 1 + 13
    filtered = pq.read_table(merged, filters=[("qrec", "=", 2)])
    assert filtered.num_rows == 12_345
    with pytest.raises(InputError):
        with F.HspWriter(str(tmp_path / "bad.parquet"), ["a"], [1], ["b"], [1]) as out:
            (tmp_path / "junk.parquet").write_bytes(b"not parquet at all")
            out.copy_row_groups(str(tmp_path / "junk.parquet"))
    assert not (tmp_path / "bad.parquet").exists()


def test_row_groups_encoded_in_parallel_splice_into_one_valid_file(tmp_path):
    """Our pages and footer read back as pyarrow's own file of the same rows does, statistics and filters too."""
    from gpu_kernels import thrift

    rng = np.random.default_rng(5)
    n = 50_000
    qstart = np.sort(rng.integers(0, 10**9, n))
    length = rng.integers(64, 900, n)
    hsps = {"qrec": rng.integers(0, 3, n), "rrec": rng.integers(0, 5, n), "qstart": qstart, "qend": qstart + length,
            "rstart": rng.integers(0, 10**9, n), "strand": rng.integers(0, 2, n), "score": length // 2,
            "identities": length - 3}
    spliced, single = tmp_path / "spliced.parquet", tmp_path / "single.parquet"
    with F.HspWriter(str(spliced), ["a", "b", "c"], [1, 2, 3], list("vwxyz"), [1] * 5, row_group_rows=999,
                     threads=4) as writer:
        writer.write(hsps)
    import pyarrow as pa

    from gpu_kernels.hsps import complete

    full = complete(hsps)
    table = pa.Table.from_arrays([pa.array(full[c], type=f.type) for c, f in zip(COLUMNS, F.hsp_schema())],
                                 schema=F.hsp_schema())
    pq.write_table(table, single, row_group_size=999)
    assert pq.ParquetFile(spliced).num_row_groups == pq.ParquetFile(single).num_row_groups == -(-n // 999)
    assert pq.read_table(spliced).equals(pq.read_table(single))
    low = int(qstart[n // 3])
    assert pq.read_table(spliced, filters=[("qstart", "<", low)]).num_rows == int((qstart < low).sum())
    for i in (0, 7, 50):
        a = pq.ParquetFile(spliced).metadata.row_group(i).column(2).statistics
        b = pq.ParquetFile(single).metadata.row_group(i).column(2).statistics
        assert (a.min, a.max, a.num_values) == (b.min, b.max, b.num_values)
    footer = spliced.read_bytes()
    size = int.from_bytes(footer[-8:-4], "little")
    raw = footer[-8 - size:-8]
    assert thrift.encode_struct(thrift.Reader(raw).struct()) == raw
    empty = tmp_path / "empty.parquet"
    with F.HspWriter(str(empty), ["a"], [1], ["b"], [1]):
        pass
    assert pq.read_table(empty).num_rows == 0 and F.read_meta(str(empty))["query"]["names"] == ["a"]


def test_a_late_column_after_the_row_groups_reads_as_written(tmp_path):
    """A column given late (the HSPs' chains, computed while the rest is written) goes after every row
    group's other chunks: pyarrow (and DuckDB, polars where installed) read the rows as written, with
    its statistics; a table copied from it is whole; a late column never given leaves no file."""
    from gpu_kernels.backend import NumpyBackend
    from gpu_kernels.pages import table_pages
    from gpu_kernels.schema import HSP_CHAINED

    rng = np.random.default_rng(11)
    n, group = 5_000, 700
    table = _extreme_columns(rng, n)
    table["chain"] = rng.integers(-1, 40, n)
    path, copied = tmp_path / "late.parquet", tmp_path / "copied.parquet"
    backend = NumpyBackend()
    with F.HspWriter(str(path), ["a"], [1], ["b"], [1], row_group_rows=group, threads=3, record=HSP_CHAINED,
                     late=("chain",)) as writer:
        assert writer.early == HSP.names
        for at in range(0, n, 2 * group):  # in slices, as write_table hands them over
            part = {name: column[at:at + 2 * group] for name, column in table.items()}
            writer.write_pages(table_pages(part, backend, group, HSP_CHAINED, writer.early), min(2 * group, n - at))
        for at in range(0, n, 3 * group):
            part = {"chain": table["chain"][at:at + 3 * group]}
            writer.write_pages(table_pages(part, backend, group, HSP_CHAINED, ("chain",)), min(3 * group, n - at), late=True)
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == -(-n // group) and meta.schema.names == list(HSP_CHAINED.names)
    last_early = max(meta.row_group(meta.num_row_groups - 1).column(i).data_page_offset for i in range(len(HSP.names)))
    assert meta.row_group(0).column(len(HSP.names)).data_page_offset > last_early  # really after them all
    got = pq.read_table(path)
    for name in HSP_CHAINED.names:
        assert np.array_equal(got.column(name).to_numpy(), table[name]), name
    stats = meta.row_group(1).column(len(HSP.names)).statistics
    assert (stats.min, stats.max) == (int(table["chain"][group:2 * group].min()), int(table["chain"][group:2 * group].max()))
    assert pq.read_table(path, filters=[("chain", "=", 7)]).num_rows == int((table["chain"] == 7).sum())
    for reader in ("duckdb", "polars"):
        try:
            module = __import__(reader)
        except ImportError:
            continue
        frame = (module.sql(f"select * from read_parquet('{path}')").fetchnumpy() if reader == "duckdb"
                 else module.read_parquet(path))
        for name in HSP_CHAINED.names:
            assert np.array_equal(np.asarray(frame[name]), table[name]), (reader, name)
    with F.HspWriter(str(copied), ["a"], [1], ["b"], [1], row_group_rows=group, record=HSP_CHAINED) as out:
        out.copy_row_groups(str(path))
    assert pq.read_table(copied).equals(got)
    with pytest.raises(RuntimeError, match="lacks columns"):
        with F.HspWriter(str(tmp_path / "short.parquet"), ["a"], [1], ["b"], [1], row_group_rows=group,
                         record=HSP_CHAINED, late=("chain",)) as writer:
            writer.write_pages(table_pages(table, backend, group, HSP_CHAINED, writer.early), n)
    assert not (tmp_path / "short.parquet").exists()


def _extreme_columns(rng, n: int) -> dict:
    """Columns of n rows mixing runs, steps and values anywhere in each column's type (deltas that wrap)."""
    def column(dtype):
        info = np.iinfo(dtype)
        kind = rng.integers(0, 4)
        if kind == 0:
            return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        if kind == 1:
            return np.full(n, rng.integers(info.min, info.max, dtype=dtype, endpoint=True), dtype=dtype)
        if kind == 2:
            return np.sort(rng.integers(0, min(info.max, 10**12), n)).astype(dtype)
        return rng.choice(np.array([info.min, info.max, 0, -1, 1], dtype=dtype), n)

    types = {"qrec": np.int32, "rrec": np.int32, "strand": np.int8}
    return {name: column(types.get(name, np.int64)) for name in COLUMNS}


@pytest.mark.parametrize("seed", range(12))
def test_delta_pages_read_back_exactly(tmp_path, seed):
    """Our DELTA_BINARY_PACKED pages hold any values of each column's type: pyarrow reads back exactly
    what was written, whatever the row count and row group size (short blocks, one-row groups)."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 2, 33, 128, 129, 513, 5000]))
    group = int(rng.choice([1, 2, 127, 128, 129, 1000, 1 << 21]))
    hsps = _extreme_columns(rng, n)
    path = tmp_path / "x.parquet"
    with F.HspWriter(str(path), ["a"], [1], ["b"], [1], row_group_rows=group, threads=3) as writer:
        writer.write(hsps)
    table = pq.read_table(path)
    assert table.num_rows == n and pq.ParquetFile(path).num_row_groups == -(-n // group)
    for name in COLUMNS:
        assert np.array_equal(table.column(name).to_numpy(), hsps[name]), name
    stats = pq.ParquetFile(path).metadata.row_group(0).column(COLUMNS.index("qstart")).statistics
    assert (stats.min, stats.max) == (int(hsps["qstart"][:group].min()), int(hsps["qstart"][:group].max()))


def test_other_readers_read_the_table(tmp_path):
    """DuckDB and polars (where installed) read the table as pyarrow does."""
    rng = np.random.default_rng(3)
    hsps = _extreme_columns(rng, 3000)
    path = tmp_path / "x.parquet"
    with F.HspWriter(str(path), ["a"], [1], ["b"], [1], row_group_rows=700) as writer:
        writer.write(hsps)
    tried = 0
    try:
        import duckdb
    except ImportError:
        pass
    else:
        tried += 1
        got = duckdb.sql(f"select * from read_parquet('{path}')").fetchnumpy()
        for name in COLUMNS:
            assert np.array_equal(np.asarray(got[name]), hsps[name]), name
    try:
        import polars
    except ImportError:
        pass
    else:
        tried += 1
        frame = polars.read_parquet(path)
        for name in COLUMNS:
            assert np.array_equal(frame[name].to_numpy(), hsps[name]), name
    if not tried:
        pytest.skip("neither duckdb nor polars is installed")


def test_take_strings_gathers_any_rows_of_several_tables(tmp_path):
    """take_strings (bytes.c's gather on threads) against Python slicing: drawn tables, one empty, an Arrow
    array among them, rows repeated and in any order; save_tables and load_tables give the tables back."""
    from gpu_kernels.formats.strings import arrow_strings, load_tables, save_tables, take_strings

    rng = np.random.default_rng(5)
    for round_ in range(20):
        tables = []
        for n in rng.integers(0, 30, size=rng.integers(1, 5)):
            offsets = np.concatenate(([0], np.cumsum(rng.integers(0, 3000 if round_ % 2 else 40, n)))).astype(np.int64)
            tables.append((rng.integers(33, 127, int(offsets[-1]), dtype=np.uint8).tobytes(), offsets))
        strings = [data[o[i]:o[i + 1]] for data, o in tables for i in range(o.size - 1)]
        rows = rng.integers(0, len(strings), rng.integers(0, 60)) if strings else np.zeros(0, np.int64)
        given = [arrow_strings(t) if k == 1 else t for k, t in enumerate(tables)]
        data, offsets = take_strings(given, rows, threads=3)
        assert [bytes(data[offsets[i]:offsets[i + 1]]) for i in range(rows.size)] == [strings[r] for r in rows]
        save_tables(tmp_path / "t.bin", {f"kind{k}": t for k, t in enumerate(tables)})
        loaded = load_tables(tmp_path / "t.bin")
        assert [(bytes(d), o.tolist()) for d, o in loaded.values()] == [(d, o.tolist()) for d, o in tables]
    # past 4 MiB a thread: the output cut into parts of equal bytes, strings split across the parts
    offsets = np.concatenate(([0], np.cumsum(rng.integers(0, 1 << 20, 40)))).astype(np.int64)
    big = (rng.integers(33, 127, int(offsets[-1]), dtype=np.uint8).tobytes(), offsets)
    rows = rng.permutation(40)
    data, got = take_strings([big], rows, threads=4)
    assert bytes(data) == b"".join(big[0][offsets[r]:offsets[r + 1]] for r in rows)


def test_packed_arrays_come_back_as_they_were_saved_and_take_little_room(tmp_path, monkeypatch):
    """save_arrays/load_arrays (a workflow job's hand-over): every dtype and shape the text parts have,
    empty and 0-d arrays, arrays cut in several chunks, and a subset by name; a file of another kind is
    refused; a byte a column of ops (mostly matches) packs to a small fraction of itself."""
    from gpu_kernels.errors import InputError
    from gpu_kernels.formats import packed

    monkeypatch.setattr(packed, "CHUNK", 1000)
    rng = np.random.default_rng(3)
    ops = (rng.random(50_000) < 0.02).astype(np.uint8) * rng.integers(1, 4, 50_000, dtype=np.uint8)
    arrays = {"ax": rng.integers(-1 << 40, 1 << 40, 3001), "ops": ops, "strand": rng.integers(-1, 2, 7).astype(np.int8),
              "ext": rng.integers(0, 9, (13, 8)), "empty": np.zeros(0, np.int32), "one": np.array(5.5),
              "rec": np.arange(11, dtype=np.int32)[::2]}
    packed.save_arrays(tmp_path / "p.bin", arrays, threads=3)
    back = packed.load_arrays(tmp_path / "p.bin", threads=2)
    assert list(back) == list(arrays)
    for name, array in arrays.items():
        assert back[name].dtype == array.dtype and back[name].shape == array.shape, name
        assert np.array_equal(back[name], array), name
    assert list(packed.load_arrays(tmp_path / "p.bin", names={"ops", "rec"})) == ["ops", "rec"]
    assert np.array_equal(packed.load_arrays(tmp_path / "p.bin", names={"rec"})["rec"], arrays["rec"])
    packed.save_arrays(tmp_path / "ops.bin", {"ops": ops})
    assert (tmp_path / "ops.bin").stat().st_size < ops.nbytes / 8
    (tmp_path / "other.bin").write_bytes(b"PAR1 not packed\n")
    with pytest.raises(InputError, match="not a file of packed arrays"):
        packed.load_arrays(tmp_path / "other.bin")


@pytest.mark.parametrize("slice_rows", [3, 10_000])
def test_the_snp_file_holds_the_one_to_one_rows_lines_in_order(tmp_path, monkeypatch, slice_rows):
    """write_snps: the header, then the lines of the rows with backbone 1, in row order, however the rows
    are sliced (the secondary rows' lines left out without the table copied in their order)."""
    from gpu_kernels.formats import alignments

    monkeypatch.setattr(alignments, "SLICE_ROWS", slice_rows)
    rng = np.random.default_rng(5)
    lines = [b"".join(b"%d\tA\tG\t%d\t1\t1\tr\tq\n" % (i, j) for j in range(rng.integers(0, 4))) for i in range(40)]
    table = (b"".join(lines), np.concatenate(([0], np.cumsum([len(x) for x in lines]))).astype(np.int64))
    for backbone in (np.ones(40, dtype=np.int8), (rng.random(40) < 0.6).astype(np.int8)):
        path = tmp_path / "snps.tsv"
        alignments.write_snps(str(path), {"backbone": backbone, "qstart": np.zeros(40, dtype=np.int64)}, table)
        text = path.read_bytes()
        assert text.startswith(b"#P1\t") and text.split(b"\n", 1)[1] == b"".join(
            line for line, one in zip(lines, backbone) if one)
