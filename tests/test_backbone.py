"""The backbone's two rounds (gpu_kernels/backbone.py, backbone.c) against a plainly correct oracle: a
boolean array a genome, chains taken in order. The chains here are long and overlap much, so that
whole 4,096-base superblocks of the compiled covers fill, empty again between record pairs, and are
counted from their summary."""
import numpy as np
import pytest

from gpu_kernels.backbone import backbone


def drawn_chains(seed: int, records: int, chains: int) -> tuple[dict, dict, list, list]:
    """(table, blocks, qlens, rlens): chains of 1 to 6 blocks of up to 30 kbp, on both strands, in
    chain order (their numbers), many of them over the same stretches (repeats, duplicates)."""
    rng = np.random.default_rng(seed)
    qlens = [int(rng.integers(20_000, 120_000)) for _ in range(records)]
    rlens = [int(rng.integers(20_000, 120_000)) for _ in range(records)]
    table = {"chain": np.arange(chains), "qrec": [], "rrec": [], "strand": []}
    blocks = {"chain": [], "x0": [], "xe": [], "y0": [], "ye": []}
    for c in range(chains):
        qrec, rrec = int(rng.integers(records)), int(rng.integers(records))
        table["qrec"].append(qrec)
        table["rrec"].append(rrec)
        table["strand"].append(int(rng.integers(2)))
        x, y = int(rng.integers(0, qlens[qrec] // 2)), int(rng.integers(0, rlens[rrec] // 2))
        for _ in range(int(rng.integers(1, 7))):
            length = int(rng.choice([50, 900, 4_096, 9_000, 30_000]))
            if x + length > qlens[qrec] or y + length > rlens[rrec]:
                break
            for name, value in zip(("chain", "x0", "xe", "y0", "ye"), (c, x, x + length, y, y + length)):
                blocks[name].append(value)
            x, y = x + length + int(rng.integers(0, 300)), y + length + int(rng.integers(0, 300))
    table = {name: np.asarray(values, dtype=np.int8 if name == "strand" else np.int64)
             for name, values in table.items()}
    blocks = {name: np.asarray(values, dtype=np.int64) for name, values in blocks.items()}
    return table, blocks, qlens, rlens


def oracle(table: dict, blocks: dict, qlens: list, rlens: list, min_new: int = 0) -> np.ndarray:
    """The two rounds, base by base: within each record pair, then among the first round's chains; a
    chain kept where more than half of its bases on each genome are new, or (min_new) that many."""
    qoff, roff = np.concatenate(([0], np.cumsum(qlens))), np.concatenate(([0], np.cumsum(rlens)))
    spans = {c: ([], []) for c in range(table["chain"].size)}
    for c, x0, xe, y0, ye in zip(*(blocks[name].tolist() for name in ("chain", "x0", "xe", "y0", "ye"))):
        qrec, rrec = int(table["qrec"][c]), int(table["rrec"][c])
        rlen = rlens[rrec]
        r0, r1 = (rlen - ye, rlen - y0) if table["strand"][c] == 1 else (y0, ye)
        spans[c][0].append((qoff[qrec] + x0, qoff[qrec] + xe))
        spans[c][1].append((roff[rrec] + r0, roff[rrec] + r1))

    def greedy(chosen) -> set:
        covered = (np.zeros(qoff[-1], dtype=bool), np.zeros(roff[-1], dtype=bool))
        kept = set()
        for c in chosen:
            if not spans[c][0]:
                continue
            new = []
            for side in (0, 1):
                mask = np.zeros(covered[side].size, dtype=bool)
                for lo, hi in spans[c][side]:
                    mask[lo:hi] = True
                new.append(mask)
            fresh = [int((new[s] & ~covered[s]).sum()) for s in (0, 1)]
            if all(2 * fresh[s] > int(new[s].sum()) for s in (0, 1)) or (min_new and min(fresh) >= min_new):
                covered[0][new[0]] = covered[1][new[1]] = True
                kept.add(c)
        return kept

    pairs = {}
    for c in range(table["chain"].size):
        pairs.setdefault((int(table["qrec"][c]), int(table["rrec"][c])), []).append(c)
    first = set().union(*(greedy(members) for members in pairs.values()))
    kept = greedy(sorted(first))
    return np.array([int(c in kept) for c in range(table["chain"].size)], dtype=np.int8)


@pytest.mark.parametrize("seed", range(4))
def test_backbone_equals_its_oracle_on_long_overlapping_chains(seed):
    table, blocks, qlens, rlens = drawn_chains(seed, records=3, chains=120)
    got = backbone(table, blocks, qlens, rlens)
    want = oracle(table, blocks, qlens, rlens)
    assert 0 < int(want.sum()) < want.size  # some chains kept, some not
    assert np.array_equal(got, want)


@pytest.mark.parametrize("seed", range(3))
def test_enough_new_bases_keep_a_chain_mostly_covered(seed):
    """min_new (one_to_one's alignments): a chain over half covered is kept where that many of its bases
    on each genome are not, as the oracle keeps it, on one thread and on several; more chains than the
    half alone keeps."""
    table, blocks, qlens, rlens = drawn_chains(20 + seed, records=2, chains=150)
    half = backbone(table, blocks, qlens, rlens, pairs=False)
    assert np.array_equal(half, oracle_one_round(table, blocks, qlens, rlens))
    kept = []
    for min_new in (500, 4_000):
        want = oracle_one_round(table, blocks, qlens, rlens, min_new)
        for threads, batch, big in ((1, 2048, 1 << 18), (4, 2, 2)):
            got = backbone(table, blocks, qlens, rlens, pairs=False, threads=threads, batch=batch, big=big,
                           min_new=min_new)
            assert np.array_equal(got, want), (min_new, threads)
        kept.append(int(want.sum()))
    assert kept[0] > int(half.sum()) and kept[0] >= kept[1] >= int(half.sum())


def oracle_one_round(table: dict, blocks: dict, qlens: list, rlens: list, min_new: int = 0) -> np.ndarray:
    """The oracle's rounds over every chain at once (backbone's pairs=False): one record pair of all."""
    one = {name: (np.zeros_like(values) if name in ("qrec", "rrec") else values) for name, values in table.items()}
    laid = {name: values.copy() for name, values in blocks.items()}
    qoff, roff = np.concatenate(([0], np.cumsum(qlens))), np.concatenate(([0], np.cumsum(rlens)))
    chain = blocks["chain"]
    reverse = table["strand"][chain] == 1
    rlen = np.asarray(rlens)[table["rrec"][chain]]
    laid["x0"], laid["xe"] = blocks["x0"] + qoff[table["qrec"][chain]], blocks["xe"] + qoff[table["qrec"][chain]]
    # the reference's forward spans laid end to end, then read on the strand of one record of all
    r0 = np.where(reverse, rlen - blocks["ye"], blocks["y0"]) + roff[table["rrec"][chain]]
    r1 = np.where(reverse, rlen - blocks["y0"], blocks["ye"]) + roff[table["rrec"][chain]]
    total = int(roff[-1])
    laid["y0"], laid["ye"] = np.where(reverse, total - r1, r0), np.where(reverse, total - r0, r1)
    return oracle(one, laid, [int(qoff[-1])], [total], min_new)


@pytest.mark.parametrize("seed", range(3))
def test_helper_threads_change_no_choice(seed):
    """Each round's chains taken by one thread with others testing those ahead of it (backbone.c
    take_list): small batches and record pairs counted big at a few chains, so that helpers run in
    every round, give the oracle's choice on any number of threads, run after run."""
    table, blocks, qlens, rlens = drawn_chains(10 + seed, records=2, chains=300)
    # most chains in one record pair, so that it is over twice a thread's share (taken by every thread)
    qlens = rlens = [max(qlens + rlens)] * 2
    table["qrec"][np.arange(300) % 5 > 0] = table["rrec"][np.arange(300) % 5 > 0] = 0
    want = oracle(table, blocks, qlens, rlens)
    assert 0 < int(want.sum()) < want.size
    for threads in (1, 2, 3, 5):
        for batch, big in ((1, 2), (3, 10), (16, 50), (4096, 10)):
            for _ in range(3):
                got = backbone(table, blocks, qlens, rlens, threads=threads, batch=batch, big=big)
                assert np.array_equal(got, want), (threads, batch, big)
    # one round (align.one_to_one's) the same way
    one = backbone(table, blocks, qlens, rlens, pairs=False, threads=1)
    assert np.array_equal(backbone(table, blocks, qlens, rlens, pairs=False, threads=4, batch=2, big=2), one)


def test_a_superblock_partly_covered_again_after_whole_ones_counts_only_its_own_bits():
    """A thread's covers are uncovered between record pairs (its record-local coordinates serve the next
    pair): a superblock whose bits were set (a short chain) then covered whole by a long chain and
    uncovered whole holds stale bits; the next record pair's chains there must count only their own (chain
    3 lies where chain 0's stale bits were: kept), as the oracle says, on one thread and on several."""
    rows = [  # chain, qrec, rrec, x0, xe, y0, ye
        (0, 0, 0, 0, 1_000, 0, 1_000),  # part of the query cover's first superblock
        (1, 0, 0, 0, 8_192, 10_000, 18_192),  # the first two superblocks whole
        (2, 1, 1, 0, 500, 0, 500),  # the next record pair: that superblock partly covered again
        (3, 1, 1, 1_000, 3_000, 5_000, 7_000),  # where chain 0's bits were: nothing of this pair covers it
    ]
    table = {"chain": np.arange(4), "qrec": np.array([r[1] for r in rows]), "rrec": np.array([r[2] for r in rows]),
             "strand": np.zeros(4, dtype=np.int8)}
    blocks = {name: np.array([r[k] for r in rows], dtype=np.int64)
              for k, name in ((0, "chain"), (3, "x0"), (4, "xe"), (5, "y0"), (6, "ye"))}
    lens = [20_000, 20_000]
    want = oracle(table, blocks, lens, lens)
    assert want.tolist() == [1, 1, 1, 1]
    for threads in (1, 2):
        assert backbone(table, blocks, lens, lens, threads=threads).tolist() == want.tolist()


def test_the_covers_bits_need_no_zeroing():
    """The covers' bits are allocated unzeroed (cover.h: a superblock's words are written as its count says
    before they are read), so the jobs' malloc setting, which reuses a heap's dirty memory, touches no page
    of them: the oracle's tests above pass in a process whose malloc fills what it gives with garbage."""
    import os
    import platform
    import subprocess
    import sys

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("GLIBC_TUNABLES is glibc's")
    env = {**os.environ, "GLIBC_TUNABLES": "glibc.malloc.perturb=90"}  # malloc's memory filled with ~90
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-k",
                           "not need_no_zeroing"], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and " passed" in done.stdout, done.stdout[-2000:]
