"""Chains against their oracle (tests/oracle_chains.py): drawn HSP tables (several records, both
strands, repeats on other diagonals, overlaps, equal scores), and the bundled pair."""
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings, strategies as st

import oracle_chains
from conftest import MYCO_232, MYCO_7422
from gpu_kernels import Params, compare
from gpu_kernels.chains import chain_hsps
from gpu_kernels.encode import COMPLEMENT
from gpu_kernels.hsps import sort_rows
from gpu_kernels.seqset import make_seqset
from test_align import mutated, strand_codes


def drawn_table(seed: int, n: int, records: int, span: int) -> tuple[dict, list, list]:
    """HSPs of `records` x `records` record pairs: runs along a few diagonals (chains to find, with
    indels and overlaps), scattered repeat hits, duplicates of scores (ties)."""
    rng = np.random.default_rng(seed)
    qlens = [int(span + rng.integers(0, span // 2)) for _ in range(records)]
    rlens = [int(span + rng.integers(0, span // 2)) for _ in range(records)]
    rows = []
    while len(rows) < n:
        qrec, rrec, strand = int(rng.integers(records)), int(rng.integers(records)), int(rng.integers(2))
        q, r = int(rng.integers(0, qlens[qrec] // 2)), int(rng.integers(0, rlens[rrec] // 2))
        for _ in range(int(rng.integers(1, 8))):  # a run along a diagonal, shifting by small indels
            length = int(rng.choice([20, 40, 40, 60, 100]))
            if q + length > qlens[qrec] or r + length > rlens[rrec]:
                break
            ids = int(rng.integers(length * 3 // 4, length + 1))
            rows.append((qrec, rrec, strand, q, q + length, r, 2 * ids - length if rng.random() < 0.8 else 10, ids))
            q += length + int(rng.integers(-15, 40))
            r += length + int(rng.integers(-15, 40)) if rng.random() < 0.7 else length + int(rng.integers(-300, 300))
            q, r = max(q, 0), max(r, 0)
    qrec, rrec, strand, qs, qe, rs, score, ids = (np.array(c, dtype=np.int64) for c in zip(*rows[:n]))
    table = {"qrec": qrec.astype(np.int32), "rrec": rrec.astype(np.int32), "qstart": qs, "qend": qe, "rstart": rs,
             "strand": strand.astype(np.int8), "score": np.maximum(score, 1), "identities": ids}
    return sort_rows(table, records, records), qlens, rlens


def check(table: dict, qlens, rlens, params: Params) -> None:
    chains, chain_of, members = chain_hsps(table, qlens, rlens, params, threads=3)
    h = {k: np.asarray(v).tolist() for k, v in table.items()}
    h["rend"] = [s + e - b for s, b, e in zip(h["rstart"], h["qstart"], h["qend"])]
    want_of, want = oracle_chains.chains(h, list(rlens), SimpleNamespace(**params.as_dict()))
    assert chain_of.tolist() == want_of
    assert chains["score"].tolist() == [s for s, _ in want]
    assert chains["backbone"].tolist() == [b for _, b in want]
    assert np.array_equal(np.sort(members["rows"]), np.flatnonzero(chain_of >= 0))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 120), records=st.integers(1, 3),
       max_shift=st.sampled_from([1, 7, 50, 1000]), max_gap=st.sampled_from([0, 30, 200, 10_000]),
       min_chain_score=st.sampled_from([0, 50, 400]), gap_open=st.integers(0, 20))
def test_chains_equal_the_oracle_on_drawn_tables(seed, n, records, max_shift, max_gap, min_chain_score, gap_open):
    table, qlens, rlens = drawn_table(seed, n, records, 2000)
    check(table, qlens, rlens, Params(max_shift=max_shift, max_gap=max_gap, min_chain_score=min_chain_score,
                                      chain_gap_open=gap_open))


def test_chains_equal_the_oracle_on_the_bundled_pair():
    result = compare(MYCO_232, MYCO_7422, Params())
    check(result.hsps, result.query.lengths, result.reference.lengths, Params())
    chains, _, _ = chain_hsps(result.hsps, result.query.lengths, result.reference.lengths, Params())
    # the pair's large inversion is a reverse backbone chain, the main diagonal forward ones
    backbone = chains["backbone"] == 1
    assert chains["strand"][backbone].tolist().count(1) >= 1 and chains["hsps"][0] > 20
    assert chains["score"].tolist() == sorted(chains["score"].tolist(), reverse=True)


def chain_outputs(tmp_path, query=MYCO_232, reference=MYCO_7422, extra=()):
    import subprocess
    import sys

    from conftest import ROOT

    paths = {name: tmp_path / name for name in ("c.paf", "c.chain", "c.parquet", "h.paf")}
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", query, reference, "-o", str(paths["h.paf"]),
                    "--chains", str(paths["c.paf"]), "--chain-file", str(paths["c.chain"]), "--chains-table",
                    str(paths["c.parquet"]), *extra], check=True, cwd=ROOT, capture_output=True)
    return paths


def cigar_sums(cigar: str) -> dict:
    import re

    sums = {"M": 0, "I": 0, "D": 0}
    for length, op in re.findall(r"(\d+)([MID])", cigar):
        sums[op] += int(length)
    assert re.fullmatch(r"(\d+[MID])+", cigar) and not re.search(r"(?<!\d)0[MID]", cigar)
    return sums


def test_every_chain_paf_row_adds_up_and_the_chain_file_is_consistent(tmp_path):
    """cg:Z adds up to both spans (M + I to the query's, M + D to the reference's) and its M to the
    aligned bases; each UCSC chain's blocks and gaps add up to both spans, blocks positive; the
    Parquet table holds the same chains; one backbone chain a row at most as often as tp:A:P."""
    import pyarrow.parquet as pq

    paths = chain_outputs(tmp_path, extra=("--min-chain-score", "0"))
    rows = [line.split("\t") for line in paths["c.paf"].read_text().splitlines()]
    table = pq.read_table(paths["c.parquet"]).to_pydict()
    assert len(rows) == len(table["chain"]) > 50
    for row, aligned, backbone in zip(rows, table["aligned"], table["backbone"]):
        tags = dict((t[:2], t[5:]) for t in row[12:])
        sums = cigar_sums(tags["cg"])
        assert sums["M"] + sums["I"] == int(row[3]) - int(row[2])
        assert sums["M"] + sums["D"] == int(row[8]) - int(row[7])
        assert sums["M"] == aligned and int(row[10]) == sum(sums.values())
        assert tags["tp"] == ("P" if backbone else "S")
    chains = paths["c.chain"].read_text().split("\n\n")
    assert chains[-1] == "" and len(chains) - 1 == len(rows)
    for text in chains[:-1]:
        lines = text.split("\n")
        head = lines[0].split()
        t_span, q_span = int(head[6]) - int(head[5]), int(head[11]) - int(head[10])
        blocks = [list(map(int, line.split())) for line in lines[1:]]
        assert all(len(b) == 3 for b in blocks[:-1]) and len(blocks[-1]) == 1 and all(b[0] > 0 for b in blocks)
        assert sum(b[0] + (b[1] if len(b) == 3 else 0) for b in blocks) == t_span
        assert sum(b[0] + (b[2] if len(b) == 3 else 0) for b in blocks) == q_span
        assert head[0] == "chain" and head[4] == "+" and int(head[3]) >= int(head[6]) and int(head[8]) >= int(head[11])


def test_crossmap_lifts_intervals_through_the_chain_file(tmp_path):
    """BED intervals in the middle of backbone chains' blocks on the reference, lifted by CrossMap
    through the chain file, land where the blocks put them on the query (forward and reverse)."""
    import shutil
    import subprocess

    import pytest

    if shutil.which("CrossMap") is None:
        pytest.skip("CrossMap is not installed (the test extras install it)")
    result = compare(MYCO_232, MYCO_7422, Params())
    chains = result.chain()
    _, blocks = result._chains
    paths = chain_outputs(tmp_path)
    rlen = int(result.reference.lengths[0])
    reverse = chains["strand"][blocks["chain"]] == 1
    rlo = np.where(reverse, rlen - blocks["ye"], blocks["y0"])  # the blocks on the reference's forward strand
    on_backbone = np.flatnonzero((chains["backbone"][blocks["chain"]] == 1) & (blocks["xe"] - blocks["x0"] > 400))
    # intervals that one backbone chain alone spans on the reference (CrossMap may take any chain over one)
    spans = [(a, b) for a, b, keep in zip(chains["rstart"], chains["rend"], chains["backbone"]) if keep]
    alone = [i for i in on_backbone if sum(a < rlo[i] + 250 and rlo[i] + 150 < b for a, b in spans) == 1]
    picked = np.array(alone[::2])
    assert picked.size > 15 and reverse[picked].sum() >= 3
    rname = result.reference.names[0]
    lines, want = [], {}
    for i in picked:
        a, b = int(rlo[i]) + 150, int(rlo[i]) + 250
        if not reverse[i]:
            q = (int(blocks["x0"][i]) + 150, int(blocks["x0"][i]) + 250)
        else:
            q = (int(blocks["xe"][i]) - 250, int(blocks["xe"][i]) - 150)
        lines.append(f"{rname}\t{a}\t{b}\tx{i}\t0\t+")
        want[f"x{i}"] = (q, "-" if reverse[i] else "+")
    (tmp_path / "in.bed").write_text("\n".join(lines) + "\n")
    subprocess.run(["CrossMap", "bed", str(paths["c.chain"]), str(tmp_path / "in.bed"), str(tmp_path / "out.bed")],
                   check=True, capture_output=True)
    got = {}
    for line in (tmp_path / "out.bed").read_text().splitlines():
        f = line.split("\t")
        got.setdefault(f[3], set()).add(((int(f[1]), int(f[2])), f[5]))
    assert all(want[name] in got.get(name, set()) for name in want), \
        [(name, want[name], got.get(name)) for name in want if want[name] not in got.get(name, set())][:3]


def test_chaining_a_table_a_record_pair_at_a_time_equals_chaining_it_whole(tmp_path):
    """The workflow's chains rule reads the HSP table a few row groups at a time and chains each
    record pair's HSPs when they are all read: the same chains, blocks and backbone as chaining the
    whole table at once, however the row groups cut the record pairs."""
    from gpu_kernels.chains import chain_blocks
    from gpu_kernels.formats import HspWriter
    from gpu_kernels.workflow.chaining import chain_table

    table, qlens, rlens = drawn_table(5, 600, 3, 3000)
    params = Params(min_chain_score=40)
    whole, _, members = chain_hsps(table, qlens, rlens, params)
    blocks = chain_blocks(table, members, rlens)
    assert whole["chain"].size > 20 and len(set(zip(whole["qrec"].tolist(), whole["rrec"].tolist()))) > 3
    for rows in (7, 100, 10_000):
        path = tmp_path / f"h{rows}.parquet"
        with HspWriter(str(path), [f"q{i}" for i in range(3)], qlens, [f"r{i}" for i in range(3)], rlens, params,
                       row_group_rows=rows) as writer:
            writer.write(table)
        got, got_blocks = chain_table(str(path), qlens, rlens, params)
        assert all(np.array_equal(got[name], whole[name]) for name in whole), rows
        assert all(np.array_equal(got_blocks[name], blocks[name]) for name in blocks), rows


def test_no_hsps_make_no_chains_and_empty_files(tmp_path):
    """Two unrelated sequences: no HSP, so no chain; every chain output is written, empty (the table
    with its columns), and the command exits 0."""
    import pyarrow.parquet as pq

    rng = np.random.default_rng(1)
    for name in ("a", "b"):
        (tmp_path / f"{name}.fa").write_text(f">{name}\n" + "".join(rng.choice(list("ACGT"), 5000)) + "\n")
    paths = chain_outputs(tmp_path, str(tmp_path / "a.fa"), str(tmp_path / "b.fa"))
    assert paths["c.paf"].read_text() == paths["c.chain"].read_text() == paths["h.paf"].read_text() == ""
    table = pq.read_table(paths["c.parquet"])
    assert table.num_rows == 0 and "backbone" in table.column_names


def test_a_table_of_one_row_group_a_record_pair_is_chained_a_pair_at_a_time(tmp_path):
    """The merge copies each bin pair's row groups whole, so a row group often ends where a record pair
    does: each record pair is still a part of its own (memory holds one, not the table)."""
    from gpu_kernels.formats import HspWriter
    from gpu_kernels.hsps import take
    from gpu_kernels.workflow.chaining import record_pair_parts

    table, qlens, rlens = drawn_table(9, 600, 3, 3000)
    path = tmp_path / "h.parquet"
    pair = table["qrec"].astype(np.int64) * 3 + table["rrec"]
    with HspWriter(str(path), [f"q{i}" for i in range(3)], qlens, [f"r{i}" for i in range(3)], rlens) as writer:
        for key in np.unique(pair):
            writer.write(take(table, pair == key))  # one row group a record pair
    parts = list(record_pair_parts(str(path)))
    assert len(parts) == np.unique(pair).size > 3
    assert [offset for offset, _ in parts] == np.flatnonzero(np.diff(np.append(-1, pair))).tolist()


def test_the_hsp_table_of_a_run_with_chains_holds_each_hsps_chain(tmp_path):
    """compare --hsps with chains: the HSP table's last column is each HSP's chain (-1: none), as
    chain_hsps numbers them; each chain's HSPs are the chains table's `hsps`; without chains the table
    has no such column."""
    import pyarrow.parquet as pq

    paths = chain_outputs(tmp_path, extra=("--hsps", str(tmp_path / "h.parquet")))
    table = pq.read_table(tmp_path / "h.parquet")
    assert table.schema.names[-1] == "chain"
    hsps = {name: table[name].to_numpy() for name in table.schema.names}
    result = compare(MYCO_232, MYCO_7422, Params())
    _, chain_of, _ = chain_hsps(result.hsps, result.query.lengths, result.reference.lengths, Params())
    assert np.array_equal(hsps["chain"], chain_of) and (chain_of >= 0).sum() > 100
    chains = pq.read_table(paths["c.parquet"]).to_pydict()
    assert np.bincount(chain_of[chain_of >= 0]).tolist() == chains["hsps"]
    plain = tmp_path / "plain.parquet"
    import subprocess
    import sys

    from conftest import ROOT

    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(plain)],
                   check=True, cwd=ROOT, capture_output=True)
    assert "chain" not in pq.read_schema(plain).names


def refine_case(seed: int, records: int):
    """(query, reference): records pairs of 2-4 kb sequences from one ancestor each, the query 2-15 %
    diverged with indels (close pairs of them make ungapped HSPs run across shifted stretches), N
    runs, tandem runs (units of 1-6 bases) that the indels make differ in length, some reference
    records stored reverse-complemented, and a repeat copied into another."""
    rng = np.random.default_rng(seed)
    qseqs, rseqs = [], []
    for _ in range(records):
        ancestor = rng.integers(0, 4, int(rng.integers(2000, 4000))).astype(np.uint8)
        for _ in range(int(rng.integers(0, 5))):
            unit = rng.integers(0, 4, int(rng.integers(1, 7))).astype(np.uint8)
            size = int(rng.integers(10, 90))
            at = int(rng.integers(0, ancestor.size - size))
            ancestor[at:at + size] = np.tile(unit, size // unit.size + 1)[:size]
        qseq, _ = mutated(rng, ancestor, float(rng.choice([0.02, 0.08, 0.15])), float(rng.choice([0.005, 0.02])))
        for at in sorted(rng.integers(0, qseq.size - 40, qseq.size // 250))[::-1]:  # shifted stretches
            span = int(rng.integers(4, 30))  # a base deleted, one inserted span bases on
            qseq = np.concatenate((qseq[:at], qseq[at + 1:at + 1 + span], rng.integers(0, 4, 1).astype(np.uint8),
                                   qseq[at + 1 + span:]))
        rseq = ancestor.copy()
        if rng.random() < 0.4:
            rseq = COMPLEMENT[rseq[::-1]]
        if rng.random() < 0.5:  # a repeat: a piece of the query copied elsewhere in the reference
            a = int(rng.integers(0, qseq.size - 300))
            rseq = np.concatenate((rseq, np.minimum(qseq[a:a + 300], 3)))
        qseqs.append(qseq)
        rseqs.append(rseq)
    return (make_seqset([f"q{i}" for i in range(records)], qseqs),
            make_seqset([f"r{i}" for i in range(records)], rseqs))


def refined_by_the_oracle(query, reference, chains: dict, blocks: dict, params: Params) -> list:
    """Every chain's pieces by oracle_chains.refine: (chain, x0, xe, y0, ye, identities)."""
    p = SimpleNamespace(**params.as_dict())
    out = []
    for c in range(chains["chain"].size):
        mine = blocks["chain"] == c
        members = list(zip(*(blocks[name][mine].tolist() for name in ("x0", "xe", "y0", "ye", "trim"))))
        q = strand_codes(query, int(chains["qrec"][c]), 0)
        r = strand_codes(reference, int(chains["rrec"][c]), int(chains["strand"][c]))
        out += [(c, *piece) for piece in oracle_chains.refine(members, q, r, p)]
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), records=st.integers(1, 3), drop=st.sampled_from([0, 1, 3, 5, 7, 20]),
       mismatch=st.sampled_from([-1, -3]), block_mismatch=st.sampled_from([-1, -2, -3]),
       tandem=st.sampled_from([0, 12, 16, 30]))
def test_refined_blocks_equal_the_oracle(seed, records, drop, mismatch, block_mismatch, tandem):
    """Seams between overlapping HSPs, the blocks' drops and the pieces' ends past tandem runs
    (chains.refine_blocks) as the oracle places them, and the chains' spans, aligned bases and
    identities from the pieces."""
    from gpu_kernels.placement import refine_blocks

    query, reference = refine_case(seed, records)
    params = Params(k=12, min_len=24, mismatch=mismatch, min_chain_score=30, block_drop=drop,
                    block_mismatch=block_mismatch, block_tandem=tandem)
    result = compare(query, reference, params)
    chains, _, members = chain_hsps(result.hsps, query.lengths, reference.lengths, params)
    table, blocks = refine_blocks(chains, members, query, reference, params, threads=3)
    want = refined_by_the_oracle(query, reference, chains, members, params)
    got = list(zip(*(blocks[name].tolist() for name in ("chain", "x0", "xe", "y0", "ye"))))
    assert got == [w[:5] for w in want]
    ids = np.zeros(chains["chain"].size, dtype=np.int64)
    np.add.at(ids, [w[0] for w in want], [w[5] for w in want])
    assert table["identities"].tolist() == ids.tolist()
    assert table["aligned"].tolist() == np.bincount(blocks["chain"], blocks["xe"] - blocks["x0"],
                                                    chains["chain"].size).astype(np.int64).tolist()
    assert np.array_equal(blocks["dx"][~blocks["last"]], blocks["x0"][1:][~blocks["last"][:-1]] -
                          blocks["xe"][:-1][~blocks["last"][:-1]])
    assert (blocks["dx"] >= 0).all() and (blocks["dy"] >= 0).all() and (blocks["xe"] > blocks["x0"]).all()
    assert np.array_equal(np.unique(blocks["chain"]), chains["chain"])  # every chain keeps its blocks


def test_a_chain_all_in_a_tandem_run_keeps_its_pieces():
    """Pieces lose the tandem runs at their ends, but a chain whose pieces would all go (a
    microsatellite's hits on another) keeps them: as the oracle places them, and as with
    block_tandem 0."""
    from gpu_kernels.placement import refine_blocks

    rng = np.random.default_rng(5)
    run = np.tile(np.array([0, 1], dtype=np.uint8), 70)  # (AC)70
    q = np.concatenate((rng.integers(0, 4, 1500), run, rng.integers(0, 4, 1500))).astype(np.uint8)
    r = np.concatenate((rng.integers(0, 4, 1000), run, rng.integers(0, 4, 1000))).astype(np.uint8)
    query, reference = make_seqset(["q"], [q]), make_seqset(["r"], [r])
    runs = {}
    for tandem in (0, 16):
        params = Params(k=12, min_len=24, min_chain_score=30, block_tandem=tandem)
        result = compare(query, reference, params)
        chains, _, members = chain_hsps(result.hsps, query.lengths, reference.lengths, params)
        table, blocks = refine_blocks(chains, members, query, reference, params)
        want = refined_by_the_oracle(query, reference, chains, members, params)
        assert list(zip(*(blocks[name].tolist() for name in ("chain", "x0", "xe", "y0", "ye")))) == \
            [w[:5] for w in want]
        assert np.array_equal(np.unique(blocks["chain"]), chains["chain"])
        runs[tandem] = {(c, a, z) for c, a, z in zip(*(blocks[name].tolist() for name in ("chain", "x0", "xe")))}
    assert chains["chain"].size >= 2
    inside = {c for c, a, z in runs[0] if a >= 1500 and z <= 1640}  # chains whose pieces all lie in the run
    assert inside and all({p for p in runs[16] if p[0] == c} == {p for p in runs[0] if p[0] == c} for c in inside)


def test_refined_blocks_move_seams_and_cut_drops():
    """On a diverged pair with indels, seams move and drops are cut (the property test's cases are
    not all trivial), and every chain PAF row still adds up to its spans."""
    from gpu_kernels.placement import refine_blocks

    query, reference = refine_case(7, 3)
    params = Params(k=12, min_len=24, min_chain_score=30)
    result = compare(query, reference, params)
    chains, _, members = chain_hsps(result.hsps, query.lengths, reference.lengths, params)
    table, blocks = refine_blocks(chains, members, query, reference, params)
    assert blocks["x0"].size > members["x0"].size  # drops cut
    seams = np.flatnonzero(~members["first"] & (members["trim"] > 0))
    moved = np.isin(members["x0"][seams], blocks["x0"], invert=True)
    assert seams.size > 10 and moved.sum() > 3
    assert (table["aligned"] < chains["aligned"]).any()


def test_alignment_chains_hold_each_reference_base_once_against_a_plain_walk():
    """Drawn one-to-one alignments on one reference record, overlapping, some inside others, both
    strands: each chain holds its alignment's columns but those on reference bases an alignment
    starting before it (the longer of two starting together) spans, its header spans adding up; a
    chain left with no column is gone. The walk: every CIGAR column by column, in that order."""
    import re

    from gpu_kernels.formats.chains import alignment_chains

    qlen, dropped, cut_reverse = 10_000, 0, 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        texts, al = [], {k: [] for k in ("qrec", "rrec", "qstart", "qend", "rstart", "rend", "strand", "score")}
        for _ in range(int(rng.integers(2, 9))):
            runs = [(int(rng.integers(1, 30)), "=")]
            for _ in range(int(rng.integers(0, 12))):
                runs += [(int(rng.integers(1, 6)), str(rng.choice(list("XID")))), (int(rng.integers(1, 30)), "=")]
            rspan = sum(n for n, op in runs if op != "I")
            qspan = sum(n for n, op in runs if op != "D")
            rstart = int(rng.integers(0, 600)) if rng.random() < 0.8 else 100
            qstart = int(rng.integers(0, qlen - qspan))
            texts.append("".join(f"{n}{op}" for n, op in runs).encode())
            for name, value in zip(al, (0, 0, qstart, qstart + qspan, rstart, rstart + rspan,
                                        int(rng.integers(2)), int(rng.integers(1, 99)))):
                al[name].append(value)
        al = {k: np.array(v, dtype=np.int64) for k, v in al.items()}
        al["backbone"] = np.ones(len(texts), dtype=np.int8)
        offsets = np.cumsum([0] + [len(t) for t in texts]).astype(np.int64)
        table, order = alignment_chains(al, (b"".join(texts), offsets))

        def head(start, end, strand):  # where the query's columns start on the query's strand
            return qlen - end if strand else start

        expected, reach = {}, -1
        for a in sorted(range(len(texts)), key=lambda a: (al["rstart"][a], -al["rend"][a])):
            r, q, cols = int(al["rstart"][a]), head(al["qstart"][a], al["qend"][a], al["strand"][a]), []
            for n, op in re.findall(r"(\d+)([=XID])", texts[a].decode()):
                for _ in range(int(n)):
                    if op in "=X" and r >= reach:
                        cols.append((r, q))
                    r, q = r + (op != "I"), q + (op != "D")
            if cols:
                expected[(int(al["score"][a]), int(al["rend"][a]), int(al["strand"][a]))] = cols
            reach = max(reach, int(al["rend"][a]))
        got, blocks = {}, 0
        for c in range(table["chain"].size):
            r, q = int(table["rstart"][c]), head(table["qstart"][c], table["qend"][c], table["strand"][c])
            cols = []
            while blocks < order["size"].size and order["chain"][blocks] == c:
                cols += [(r + k, q + k) for k in range(int(order["size"][blocks]))]
                last = bool(order["last"][blocks])
                r += int(order["size"][blocks] + (0 if last else order["dt"][blocks]))
                q += int(order["size"][blocks] + (0 if last else order["dq"][blocks]))
                blocks += 1
            assert (r, q) == (table["rend"][c], head(table["qstart"][c], table["qend"][c], table["strand"][c])
                              + table["qend"][c] - table["qstart"][c]), seed
            got[(int(table["score"][c]), int(table["rend"][c]), int(table["strand"][c]))] = cols
        assert got == expected, seed
        dropped += len(texts) - table["chain"].size
        cut_reverse += int(((table["strand"] == 1) & ~np.isin(table["rstart"], al["rstart"])).sum())
        assert blocks == order["size"].size and order["first"].sum() == order["last"].sum() == table["chain"].size
    assert dropped > 0 and cut_reverse > 0
