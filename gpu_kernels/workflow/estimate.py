"""What a genome pair's outputs will weigh, estimated before any job runs from the two genomes'
sketches (sketch.py) and the engine's settings: the table a run and a dry run print as they build the
job graph, and what `outputs.hsps: auto` decides by (sizes.smk).

From the sites and periodic runs the genomes share:
- divergence: a 32-mer holds 12 more bases than a 20-mer, so the share of single-copy 20-mers whose
  32-mer is shared too is (1 - d)^12, d the chance that a base breaks a word (a substitution, or
  the start of an indel: a tenth of the substitutions, as in most genomes and our simulator);
- the bases aligned one to one: the share of the smaller genome's single-copy 20-mers found in the
  other, divided by the 20-mers' own survival (1 - d)^20;
- the alignments: runs of single-copy sites shared by both genomes, collinear on one strand;
- the HSPs: the stretches between indels that hold an exact 32-mer (along the alignments, and between
  repeat copies: each 32-mer's pairs of copies beyond one a copy, over the 32-mers such a stretch
  holds where the copies of its 20-mer family are as far apart as their 32-mers say), and the
  diagonals on which two periodic runs of one family meet (closed form);
- the chains: the alignments, the periodic runs' diagonals long enough to score a chain, and the
  repeat copies' HSPs a few dozen a chain.
Each output's bytes follow from those counts and its rows' widths (the names and coordinates of the
pair's records), a row's fixed characters read off the outputs of the bundled pair and a repeat-rich
2 x 20 Mbp pair; docs/WORKFLOW.md gives the estimates beside the outputs on those and on others.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .sketch import FORWARD, PERIODIC, SITE_K, WORD_K, Sketch, coarsened

INDEL_SHARE = 1 / 11  # of the word-breaking events d, those that open an indel
INDEL_LENGTH = 1.5  # bases an indel
COPY_HSPS = 60  # other repeat copies' HSPs a chain of them (the bundled pair: a few dozen, one chain)
RUN_ALIGNMENTS = 1.5  # alignments (one-to-one and others) a collinear run of sites
UNRELATED = 0.35  # d past which two genomes' shared 20-mers are chance (under 1 in 5,000 survives)
MIN_RUN_SITES = 3  # shared single-copy sites that make an alignment
JUMP = 2000  # bases off the run's diagonal (beyond a 20th of the distance) that start another alignment


@dataclass(frozen=True)
class PairCounts:
    """What a pair's outputs are made of, estimated (estimate_pair)."""

    aligned: int  # query bases in one-to-one alignments
    divergence: float  # d: the chance that a base breaks a word
    alignments: int
    hsps: int
    repeat_hsps: int
    chains: int
    collinear_hsps: int = 0  # the HSPs along the alignments: the backbone chains' blocks
    record_pairs: int = 1  # record pairs with hits: the coverage table's rows, the grid's cells

    @property
    def mismatches(self) -> int:
        return int(self.aligned * self.divergence * (1 - INDEL_SHARE))

    @property
    def indels(self) -> int:
        return int(self.aligned * self.divergence * INDEL_SHARE)

    @property
    def indel_bases(self) -> int:
        return int(self.indels * INDEL_LENGTH)


def _sorted(values: np.ndarray) -> bool:
    return values.size < 2 or bool(np.all(values[1:] >= values[:-1]))


def _counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys, sorted, and how often each occurs (keys already sorted, as the sites' 20-mers
    are in estimate_pair, are not sorted again)."""
    if not _sorted(keys):
        keys = np.sort(keys)
    heads = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]])) if keys.size else np.zeros(0, np.int64)
    return keys[heads], np.diff(np.append(heads, keys.size))


def _search(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """np.searchsorted(keys, values), the values searched in their sorted order: NumPy starts each
    search where the one before ended, ten times faster than random ones through a large table (the
    sites come sorted by their 20-mer: estimate_pair)."""
    if _sorted(values):
        return np.searchsorted(keys, values)
    order = np.argsort(values)
    at = np.empty(values.size, dtype=np.intp)
    at[order] = np.searchsorted(keys, values[order])
    return at


def _in(values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each value is among the keys (sorted, distinct): a search, where np.isin hashes both."""
    at = _search(keys, values)
    found = at < keys.size
    found[found] = keys[at[found]] == values[found]
    return found


def _count_of(keys: np.ndarray, counts: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The count of each wanted key among (keys, counts) (0 where absent)."""
    if keys.size == 0:
        return np.zeros(wanted.size, dtype=np.int64)
    at = np.minimum(_search(keys, wanted), keys.size - 1)
    return np.where(keys[at] == wanted, counts[at], 0)


def divergence_and_share(small: np.ndarray, large: np.ndarray) -> tuple[float, float]:
    """(d, the share of the smaller genome's single-copy bases found in the larger): from its single-copy
    sites with a 32-mer (see the module's text)."""
    keys, counts = _counts(small["h20"])
    single = small[(_count_of(keys, counts, small["h20"]) == 1) & (small["h32"] != 0)]
    if single.size == 0:
        return 1.0, 0.0
    in20 = _in(single["h20"], _counts(large["h20"])[0])
    in32 = _in(single["h32"], _counts(large["h32"][large["h32"] != 0])[0])
    c20, c32 = float(in20.mean()), float((in20 & in32).mean())
    if c20 == 0:  # nothing shared: as far apart as words can tell
        return 1.0, 0.0
    survive = max(c32 / c20, 1e-9) ** (1 / (WORD_K - SITE_K))  # (1 - d)
    d = max(0.0, 1 - survive)
    if d > UNRELATED:  # the 20-mers shared are chance and low complexity: nothing exact seeds can align
        return d, 0.0
    return d, min(1.0, c20 / (1 - d) ** SITE_K)


def collinear_runs(query: np.ndarray, reference: np.ndarray) -> int:
    """Alignments: runs of the sites single-copy in both genomes and shared, in query order, each on one
    record pair and strand and near one diagonal, of at least MIN_RUN_SITES sites."""
    def single(sites):
        keys, counts = _counts(sites["h20"])
        return sites[_count_of(keys, counts, sites["h20"]) == 1]

    q, r = single(query), single(reference)  # sorted by 20-mer (estimate_pair), as single keeps them
    q = q[_in(q["h20"], r["h20"])]
    if q.size == 0:
        return 0
    hit = r[_search(r["h20"], q["h20"])]
    order = np.lexsort((q["pos"], q["rec"]))
    # the columns the runs read, apart (indexing them is several times faster than the sites' records)
    qpos, qrec, hpos, hrec = q["pos"][order], q["rec"][order], hit["pos"][order], hit["rec"][order]
    same = (q["flags"][order] & FORWARD) == (hit["flags"][order] & FORWARD)
    # twice: the sites of runs too short to count (a paralog's word) are set aside, and the runs they
    # cut are counted whole
    for _ in range(2):
        diagonal = np.where(same, hpos - qpos, hpos + qpos)
        new = np.ones(qpos.size, dtype=bool)
        new[1:] = (qrec[1:] != qrec[:-1]) | (hrec[1:] != hrec[:-1]) | (same[1:] != same[:-1]) | \
            (np.abs(np.diff(diagonal)) > JUMP + np.abs(np.diff(qpos)) // 20)
        starts = np.flatnonzero(new)
        sizes = np.diff(np.concatenate([starts, [qpos.size]]))
        kept = np.repeat(sizes >= MIN_RUN_SITES, sizes)
        qpos, qrec, hpos, hrec, same = qpos[kept], qrec[kept], hpos[kept], hrec[kept], same[kept]
    return int(np.count_nonzero(sizes >= MIN_RUN_SITES))


def _words(sites: np.ndarray) -> np.ndarray:
    """The sites holding a non-periodic 32-mer (the engine's words that the copies' seeds come from)."""
    return sites[(sites["h32"] != 0) & (sites["flags"] & PERIODIC == 0)]


def _kept_words(words: np.ndarray, max_freq: int, by32: np.ndarray | None = None,
                every: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each 32-mer of the words (_words), sorted, and its copies that seed in fast mode (max_freq): those
    in records that hold it at most max_freq times in their orientation (the engine counts a word in its
    own record, on the strand it reads: words.drop_frequent). by32, every: the words' stable order by
    32-mer and _counts of the 32-mers in it, where the caller has them. Only a 32-mer of more than
    max_freq copies in all can lose some, so only its copies are counted by record and orientation."""
    by32 = np.argsort(words["h32"], kind="stable") if by32 is None else by32
    keys, sizes = _counts(words["h32"][by32]) if every is None else every
    kept = sizes.copy()
    big = sizes > max_freq
    if big.any():
        mine = by32[np.repeat(big, sizes)]
        run = np.repeat(np.flatnonzero(big), sizes[big])
        forward, rec = words["flags"][mine] & FORWARD, words["rec"][mine]
        order = np.lexsort((forward, rec, run))
        run, rec, forward = run[order], rec[order], forward[order]
        starts = np.flatnonzero(np.concatenate([[True], (run[1:] != run[:-1]) | (rec[1:] != rec[:-1]) |
                                                (forward[1:] != forward[:-1])]))
        counts = np.diff(np.append(starts, run.size))
        kept[big] = np.bincount(run[starts], np.where(counts <= max_freq, counts, 0), keys.size).astype(np.int64)[big]
    keep = kept > 0
    return keys[keep], kept[keep]


DIVERGENCES = np.linspace(1e-3, UNRELATED, 256)


@lru_cache(maxsize=None)
def _hsps_a_seed_table(min_len: int) -> np.ndarray:
    """_hsps_a_seed at each of DIVERGENCES (made once a process: a many-genomes run estimates every pair)."""
    seeds = np.array([np.prod(segments(x, WORD_K)) for x in DIVERGENCES])
    return np.array([segments(x, min_len)[0] for x in DIVERGENCES]) / np.maximum(seeds, 1e-12)


def _hsps_a_seed(d: np.ndarray, min_len: int) -> np.ndarray:
    """HSPs (stretches of at least min_len that hold an exact 32-mer) a seed, between copies a base of
    which breaks a word with chance d."""
    return np.interp(d, DIVERGENCES, _hsps_a_seed_table(min_len))


def copy_hsps(query: np.ndarray, reference: np.ndarray, max_freq: int, min_len: int) -> float:
    """HSPs between repeat copies, in sites: each non-periodic 32-mer on both sides seeds the pairs of
    its copies that seed (_kept_words) beyond one a copy, and a seed makes as many HSPs as its family's
    divergence gives (_hsps_a_seed). A family is the 32-mers around one 20-mer: of its pairs of 20-mer
    copies, the share whose 32-mers match too is (1 - d)^12. Families apart, since the seeds come mostly
    from a genome's young copies, many to an HSP, and the HSPs from its old ones, a few seeds each (a
    real genome's Alus: a single d over all seeds gave a twentieth of the HSPs)."""
    q, r = _words(query), _words(reference)
    by32, rby32 = (np.argsort(words["h32"], kind="stable") for words in (q, r))
    q32 = q["h32"][by32]
    every_q, every_r = _counts(q32), _counts(r["h32"][rby32])  # every copy: the families' divergence
    qk, qc = _kept_words(q, max_freq, by32, every_q) if max_freq else every_q
    rk, rc = _kept_words(r, max_freq, rby32, every_r) if max_freq else every_r
    both = qk[_in(qk, rk)]
    if both.size == 0:
        return 0.0
    a = _count_of(qk, qc, both).astype(np.float64)
    b = _count_of(rk, rc, both).astype(np.float64)
    families, of = np.unique(q["h20"][by32][np.searchsorted(q32, both)], return_inverse=True)
    pairs20 = _count_of(*_counts(q["h20"]), families).astype(np.float64) * _count_of(*_counts(r["h20"]), families)
    every = _count_of(*every_q, both).astype(np.float64) * _count_of(*every_r, both)
    share = np.clip(np.bincount(of, every, families.size) / np.maximum(pairs20, 1), 1e-9, 1.0)
    # identical copies (d 0) still make an HSP a copy pair: as many as copies 0.1 % apart
    d = np.clip(1 - share ** (1 / (WORD_K - SITE_K)), 1e-3, UNRELATED)
    return float(np.sum((a * b - np.minimum(a, b)) * _hsps_a_seed(d, min_len)[of]))


def _family_sums(runs: np.ndarray, shortest: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(families, runs, their words) of a genome's periodic runs of at least `shortest` bases, families
    sorted (those with none counted 0)."""
    families, at = np.unique(runs["family"], return_inverse=True)
    long = runs["length"] >= shortest
    count = np.bincount(at, weights=long, minlength=families.size)
    words = np.bincount(at, weights=np.where(long, runs["length"].astype(np.float64) - WORD_K + 1, 0),
                        minlength=families.size)
    return families, count, words


def tandem_pairs(query: np.ndarray, reference: np.ndarray, max_freq: int, shortest: int = 0) -> float:
    """The diagonals on which two genomes' periodic runs (RUN) of one family, of at least `shortest`
    bases, meet by `shortest` bases or more: for runs of a and b words (a 32-mer a word), in phase with
    the period p, (a + b - 1 - 2 (shortest - 32)) / p, summed over every pair of runs in closed form.
    shortest 0: every run and diagonal holding a seed (each extended through the runs' mismatches: an
    HSP); a chain's least score: the diagonals that make a chain. Families whose words are more
    frequent than max_freq are left out where it is set (fast mode)."""
    qf, qn, qw = _family_sums(query)
    rf, rn, rw = _family_sums(reference)
    both = qf[_in(qf, rf)]
    i, j = np.searchsorted(qf, both), np.searchsorted(rf, both)
    period = (both >> 16).astype(np.float64)
    keep = (qw[i] / period <= max_freq) & (rw[j] / period <= max_freq) if max_freq else np.ones(both.size, dtype=bool)
    if shortest:
        qf, qn, qw = _family_sums(query, shortest)
        rf, rn, rw = _family_sums(reference, shortest)
    i, j, period = i[keep], j[keep], period[keep]
    less = 1 + 2 * max(0, shortest - WORD_K)
    return float(np.sum(np.maximum(rn[j] * qw[i] + qn[i] * rw[j] - qn[i] * rn[j] * less, 0) / period))


def segments(d: float, min_len: int) -> tuple[float, float]:
    """(HSPs an aligned base, seeds an HSP) where a base breaks a word with chance d: the stretches
    between indels (of mean length 1 / (d * INDEL_SHARE)) at least min_len long that hold an exact
    32-mer, and the 32-mers they hold."""
    if d <= 0:
        return 0.0, float("inf")
    gap, sub = d * INDEL_SHARE, d * (1 - INDEL_SHARE)
    lengths = np.arange(min_len, int(min(20 / gap, 1e7)) + min_len, dtype=np.float64)
    weight = gap * (1 - gap) ** (lengths - 1)  # a stretch's length, geometric
    words = np.maximum(lengths - WORD_K + 1, 0) * (1 - sub) ** WORD_K
    # an exact 32-mer starts at the stretch's first base or just after a mismatch
    starts = (1 - sub) ** WORD_K * (1 + np.maximum(lengths - WORD_K, 0) * sub)
    hsps = float(gap * np.sum(weight * (1 - np.exp(-starts))))
    return hsps, float(gap * np.sum(weight * words)) / max(hsps, 1e-12)


def estimate_pair(query: Sketch, reference: Sketch, bases: tuple[int, int], max_freq: int,
                  min_len: int, min_chain_score: int = 300) -> PairCounts:
    """A pair's counts from the two genomes' sketches and bases (query, reference)."""
    shift = max(query.shift, reference.shift)
    # sorted by 20-mer once (make_sketch keeps them so): every count and search below reads them in that order
    q, r = (sites if _sorted(sites["h20"]) else sites[np.argsort(sites["h20"], kind="stable")]
            for sites in (coarsened(query.sites, shift), coarsened(reference.sites, shift)))
    small, large = (q, r) if bases[0] <= bases[1] else (r, q)
    # the four counts apart side by side (their sorts and searches release the interpreter's lock):
    # the estimate is part of every run's start
    with ThreadPoolExecutor(4) as pool:
        shared = pool.submit(divergence_and_share, small, large)
        runs = pool.submit(collinear_runs, q, r)
        tandems = pool.submit(lambda: (tandem_pairs(query.runs, reference.runs, max_freq),
                                       tandem_pairs(query.runs, reference.runs, max_freq, min_chain_score // 2)))
        copies = copy_hsps(q, r, max_freq, min_len) * float(1 << shift)
        (d, share), (tandem, tandem_chains) = shared.result(), tandems.result()
        aligned = share * min(bases)
        alignments = int(RUN_ALIGNMENTS * runs.result()) if aligned else 0
    collinear = aligned * segments(d, min_len)[0] + alignments
    # the periodic runs' diagonals that can make a chain: those they meet on by half its least score
    # (an upper bound, so that every chain is written only where they surely weigh little)
    chains = alignments + tandem_chains + copies / COPY_HSPS
    return PairCounts(int(aligned), d, alignments, int(collinear + tandem + copies), int(tandem + copies), int(chains),
                      int(collinear), record_pairs(q, r))


def estimate_params(query: Sketch, reference: Sketch, bases: tuple[int, int], params) -> PairCounts:
    """estimate_pair under a pair's parameters (params.Params: its word-frequency cap, least HSP length
    and least chain score)."""
    return estimate_pair(query, reference, bases, params.seeding.max_freq, params.reporting.min_len,
                         params.chaining.min_chain_score)


def record_pairs(query: np.ndarray, reference: np.ndarray) -> int:
    """Record pairs that share a site (of at most as many as both genomes' records make): those with
    HSPs, which get a pair dotplot each. Both sorted by 20-mer (estimate_pair)."""
    q = query[_in(query["h20"], _counts(reference["h20"])[0])]
    at = _search(reference["h20"], q["h20"])
    return int(np.unique(q["rec"].astype(np.int64) << 32 | reference["rec"][at].astype(np.int64)).size)


@dataclass(frozen=True)
class Widths:
    """What a row of a pair's texts is made of beside its counts: its records' names and coordinates'
    digits (means weighted by the records' lengths, where rows fall), and the bases of the plain FASTA
    copies a delta file writes beside itself for a gzipped genome (formats/delta.py)."""

    qname: float
    rname: float
    qdigits: float
    rdigits: float
    copies: int
    query_records: int
    reference_records: int

    @property
    def records(self) -> int:
        return self.query_records + self.reference_records

    @classmethod
    def of(cls, query, reference, copies: int = 0) -> "Widths":
        """From the two genomes' chromosomes (name, length)."""
        def mean(chromosomes, value):
            lengths = np.array([c.length for c in chromosomes], dtype=np.float64)
            return float(np.sum(lengths * np.array([value(c) for c in chromosomes])) / max(lengths.sum(), 1))

        return cls(mean(query, lambda c: len(c.name)), mean(reference, lambda c: len(c.name)),
                   mean(query, lambda c: len(str(c.length))), mean(reference, lambda c: len(str(c.length))),
                   int(copies), len(query), len(reference))


# The bytes each output's rows take, beside its counts' (a line's fixed characters, a CIGAR's or a
# variant's): read off the bundled and the 2 x 20 Mbp heavy pair's outputs.
def output_bytes(counts: PairCounts, widths: Widths, kinds, all_chains: bool = True, pair_plots: int = 1,
                 plot_formats: int = 1) -> dict[str, int]:
    """Each output kind's estimated bytes (kinds: the outputs asked for, by their config keys; the HSP
    kinds among them as written). all_chains: the chains' outputs hold every chain, else the
    backbone's; pair_plots: the pair dotplots drawn; plot_formats: each figure's formats."""
    w, c = widths, counts
    names, digits = w.qname + w.rname, w.qdigits + w.rdigits
    n, hsps = c.alignments, c.hsps
    chains = c.chains if all_chains else c.alignments
    differences = c.mismatches + c.indels
    blocks = c.indels + n
    size = {
        "hsps": 7 * hsps + 10_000,
        "paf": hsps * (names + 3 * digits + 77),
        "gecko_csv": hsps * (2 * digits + 42),
        "delta": hsps * (2 * digits + 12) + w.copies,
        "chains_paf": chains * (names + 3 * digits + 85) + 8 * c.collinear_hsps,
        "chain_file": chains * (names + 2 * digits + 64) + 8 * c.collinear_hsps,
        "chains_table": 15 * chains + 5_000,
        "alignments_paf": n * (names + 3 * digits + 90) + 9 * differences,
        "alignments_table": differences + 30 * n + 10_000,
        "alignments_delta": n * (names + 2 * digits + 30) + 4.5 * c.indels + w.copies,
        "alignments_sam": c.aligned + n * (names + 60) + 9 * differences,
        "alignments_maf": 2 * (c.aligned + c.indel_bases) + n * (2 * names + 4 * digits + 40),
        "alignments_psl": n * (names + 4 * digits + 60) + blocks * (digits + 4),
        "alignments_chain": n * (names + 2 * digits + 30) + 7 * blocks,
        "snps": (c.mismatches + c.indel_bases) * (names + digits + 10),
        "vcf": (c.mismatches + c.indels) * (names + digits + 29) + 40 * w.records,
        "coverage_pairs": 300 + 210 * c.record_pairs,
        "coverage_query": 250 + 50 * w.records,
        "coverage_reference": 250 + 50 * w.records,
        "coverage_genomes": 500,
        "grid_dotplot": plot_formats * (80_000 + 60_000 * c.record_pairs ** 0.5),
        "html_dotplot": 1_500_000 + 10 * min(hsps, 200_000),
        "coverage_heatmap": plot_formats * 60_000,
        # the most covered pairs are drawn: a record's share of the bases aligned each
        "pair_dotplots": plot_formats * pair_plots * (40_000 + 0.0025 * c.aligned /
                                                      max(1, min(w.query_records, w.reference_records))),
    }
    return {kind: int(size[kind]) for kind in kinds if kind in size}


FAMILIES = {
    "HSPs": ("hsps", "paf", "gecko_csv", "delta"),
    "chains": ("chains_paf", "chain_file", "chains_table"),
    "alignments": ("alignments_paf", "alignments_table", "alignments_delta", "alignments_sam", "alignments_maf",
                   "alignments_psl", "alignments_chain"),
    "variants": ("snps", "vcf"),
    "tables, figures": ("coverage_pairs", "coverage_query", "coverage_reference", "coverage_genomes", "grid_dotplot",
                        "html_dotplot", "coverage_heatmap", "pair_dotplots"),
}


def by_family(sizes: dict[str, int]) -> dict[str, int]:
    """The kinds' bytes summed a family (FAMILIES), the families with none left out."""
    out = {family: sum(sizes[k] for k in kinds if k in sizes) for family, kinds in FAMILIES.items()}
    return {family: total for family, total in out.items() if any(k in sizes for k in FAMILIES[family])}


def size_text(size: float) -> str:
    """Bytes as a reader reads them: 840 B, 12.5 kB, 3.4 MB, 1.73 GB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{int(size)} B"


def size_table(rows: list[tuple[str, dict[str, int], int]]) -> list[str]:
    """The lines of the estimates' table: a row a pair (its name, its kinds' bytes, its bases), the
    families' columns ('-' where it writes none), the pair's total and its share of the bases, and the
    run's total."""
    if not rows:
        return []
    width = max(len("pair"), *(len(name) for name, _, _ in rows)) + 2
    lines = ["  " + "pair".ljust(width) + "".join(f"{f:>17s}" for f in FAMILIES) + f"{'all':>12s}"]
    total = 0
    for name, sizes, bases in rows:
        families = by_family(sizes)
        pair_total = sum(families.values())
        total += pair_total
        cells = "".join(f"{size_text(families[f]) if f in families else '-':>17s}" for f in FAMILIES)
        lines.append(f"  {name.ljust(width)}{cells}{size_text(pair_total):>12s}  ({pair_total / max(bases, 1):.1f} "
                     "bytes a base)")
    return lines + [f"  total {size_text(total)}"]
