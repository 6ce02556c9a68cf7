"""What the workflow chooses from the genomes' sizes where the config leaves it to `auto`: a genome's
bin size, a pair's word-frequency cap (fast mode), which of a pair's large outputs are written (the HSP
texts, every chain), and the disk a run will need, checked before the first job. One place, so that the
README's plain command is the fast one and the docs can say why.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from ..params import Params

# Fast mode above this many bases (query and reference together): words seen more than max_freq times
# in their record are skipped. Exhaustive seeding of two repeat-rich 3 Gbp genomes keeps every pair of
# repeat copies (about 45 minutes and more temporary disk than a 64 GB machine has, where fast mode
# takes minutes); up to here the exhaustive table is written (outputs.hsps_auto_bases is smaller) and
# its cost is seconds to a minute on a GPU.
FAST_AUTO_BASES = 1_000_000_000
# Fast mode below that too, for pairs whose exhaustive HSPs are mostly between repeat copies
# (repeat_bound): the copies' HSPs estimated at more than REPEAT_RATIO times those along the alignments
# and more than REPEAT_HSPS (a bacterial pair's few transposon copies stay exhaustive). Repeat-rich
# pairs are hundreds of times over, bacteria and repeat-poor pairs under one (docs/WORKFLOW.md).
REPEAT_RATIO = 10
REPEAT_HSPS = 1_000_000

# Bins under `bins.size: auto`: a sixth of the genome, within these bounds. Small genomes keep one bin
# (or bins of 50 Mbp of contigs); a human-sized one gets about seven, so that its 28 compare jobs fill a
# GPU's turns without a job's start and files repeated for every chromosome.
AUTO_BINS = 6
MIN_BIN = 50_000_000
MAX_BIN = 500_000_000


def compare_threads(backend: str, jobs_per_gpu: int) -> int:
    """A compare job's threads: 2 on the CPU (the jobs share the cores); on a GPU 8 alone, and fewer where
    jobs share it (4 of 2, 3 of 3, 2 of 4 or more: a job sharing its GPU keeps about 1.3 cores busy), so
    that they and two texts' jobs (PART_TEXTS_THREADS each) fit on 16 cores beside each other: the texts'
    jobs keep up with the compare jobs, and leave `assemble` its cores as the last compare job ends."""
    if backend != "cupy":
        return 2
    return 8 if jobs_per_gpu == 1 else max(2, 9 // jobs_per_gpu)


PART_TEXTS_THREADS = 3  # a compare job's texts' job (the part_texts rule): it keeps about 2.9 cores busy

# glibc's malloc in every job (the Snakefile sets GLIBC_TUNABLES where the user has not): an array under
# 1 GB taken from the process's heap and its memory kept for the next (up to 1 GB of it free at the heap's
# top), where by default one over 32 MB is mapped afresh, each of its pages faulted in and zeroed by the
# kernel, and unmapped when freed. A whole genome's jobs allocate and free arrays of millions of rows
# step after step: the faults were a third of a compare job's host stages and of `assemble` on the CPU
# (docs/WORKFLOW.md). Larger ones are still mapped: a zeroed array that is mostly left untouched costs
# nothing then, where the heap's used memory would have to be cleared.
MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=1073741824"


def bin_size(configured, genome_bases: int) -> int:
    """The bin size of a genome: the configured one, or under `auto` a sixth of the genome's bases
    within [MIN_BIN, MAX_BIN]."""
    if configured != "auto":
        return int(configured)
    return int(min(MAX_BIN, max(MIN_BIN, genome_bases // AUTO_BINS)))


def repeat_bound(counts) -> bool:
    """Whether a pair's exhaustive HSPs, as its genomes' sketches estimate them (estimate.PairCounts at
    max_freq 0), are mostly between repeat copies: more than REPEAT_HSPS and REPEAT_RATIO times the
    HSPs along its alignments. There fast mode keeps the alignments and their HSPs and leaves out the
    copies' pairs, which would cost most of the run's time and memory."""
    return counts is not None and counts.repeat_hsps > max(REPEAT_HSPS, REPEAT_RATIO * counts.collinear_hsps)


def fast_for(engine: dict, query_bases: int, reference_bases: int, counts=None) -> bool:
    """Whether a pair is seeded in fast mode: `engine.fast` as given, or under `auto` for pairs of more
    than FAST_AUTO_BASES bases together and for pairs whose exhaustive HSPs (counts, the estimate at
    max_freq 0, where the genomes have sketches) are mostly between repeat copies (repeat_bound)."""
    fast = engine.get("fast", "auto")
    if fast == "auto":
        return query_bases + reference_bases > FAST_AUTO_BASES or repeat_bound(counts)
    return bool(fast)


def by_estimate(params: Params, engine: dict, query_bases: int, reference_bases: int) -> bool:
    """Whether pair_params' choice for a pair depends on its estimate (counts): `engine.fast: auto`, the
    close preset, HSPs (exact matches take no word-frequency cap), and a pair its size alone leaves
    exhaustive."""
    return engine.get("fast", "auto") == "auto" and params.preset.preset == "close" and \
        params.matching.mode == "hsp" and not fast_for(engine, query_bases, reference_bases)


def pair_params(params: Params, engine: dict, query_bases: int, reference_bases: int, counts=None) -> Params:
    """A pair's parameters: its set's, with fast mode's word-frequency cap where `engine.fast: auto`
    turns it on for this pair (fast_for; counts: its exhaustive estimate). A preset's own cap (the
    distant preset's) and a cap the config sets with `fast: true` are left as they are."""
    if engine.get("fast", "auto") != "auto" or params.preset.preset != "close" or \
            not fast_for(engine, query_bases, reference_bases, counts):
        return params
    return params.replace(max_freq=int(engine["max_freq"]))  # the schema's default (20) where not given


def fast_choice(params: Params, engine: dict, bases: tuple[int, int], exhaustive) -> tuple[Params, object]:
    """pair_params for a pair of these bases, and the estimate it went by: exhaustive() (the pair's
    estimate.PairCounts at the set's own cap) is asked for only where the choice depends on it
    (by_estimate), else None."""
    counts = exhaustive() if by_estimate(params, engine, *bases) else None
    return pair_params(params, engine, *bases, counts), counts


def fast_line(chosen: Params, counts, option: str, keep: str) -> str:
    """The line that says fast mode was chosen (option: how the cap is named; keep: how to keep every HSP)."""
    why = (f"the genomes' sketches put {counts.repeat_hsps:,} of the pair's {counts.hsps:,} exhaustive HSPs between "
           "repeat copies" if repeat_bound(counts) else f"a pair of more than {FAST_AUTO_BASES / 1e9:g} Gbp")
    return f"fast mode ({option} {chosen.seeding.max_freq}): {why} ({keep} keeps every HSP)"


def command_line_params(params: Params, given: set, query, reference, max_freq: int = 20) -> tuple[Params, str | None]:
    """align's and compare's parameters where the command line gives no --max-freq: fast mode where the
    workflow's `engine.fast: auto` turns it on for the pair (fast_choice: by its size, or by its repeat
    content from the two SeqSets' sketches, made as the genome scan makes them), so that a command and
    the workflow give the same answers; and a line saying so (else None)."""
    from ..arrays import to_host
    from .estimate import estimate_params
    from .sketch import sketch_of_codes

    if "max_freq" in given or params.matching.mode != "hsp":
        return params, None
    bases = int(query.lengths.sum()), int(reference.lengths.sum())

    def exhaustive():
        sketches = [sketch_of_codes(to_host(side.codes), side.starts, side.lengths) for side in (query, reference)]
        return estimate_params(*sketches, bases, params)

    chosen, counts = fast_choice(params, {"fast": "auto", "max_freq": max_freq}, bases, exhaustive)
    return (params, None) if chosen == params else (chosen, fast_line(chosen, counts, "--max-freq", "--max-freq 0"))


@dataclass(frozen=True)
class DiskNeed:
    """A run's disk need, estimated from its genomes' and pairs' bases (bytes)."""

    index: int  # the encoded genomes (a byte a base)
    temporary: int  # the compare jobs' parts and their texts' inputs at their peak
    results: int  # the pairs' outputs

    @property
    def total(self) -> int:
        return self.index + self.temporary + self.results


# Bytes a base of a pair (query and reference together), from the close human-sized pair with the
# defaults on one H200 (docs/WORKFLOW.md, "Defaults for whole genomes"): outputs 0.9 (the distant
# preset's about 1.5), and the compare jobs' parts and their texts (packed: formats.packed), which
# wait for the pair's assemble and alignments rules, 1.0 over the outputs at the disk's peak.
RESULTS_PER_BASE = 2.0
TEMPORARY_PER_BASE = 1.5
INDEX_PER_BASE = 0.25  # the encoded index: two bits a base (twobit.py)


def disk_need(index_bases: int, pair_bases: list[int]) -> DiskNeed:
    """The estimate from the bases of the genomes still to encode and of each pair still to compare
    (query and reference together): the index, each pair's outputs, and the temporary parts of the
    largest pair (a pair's parts are removed once its own rules have read them)."""
    return DiskNeed(int(index_bases * INDEX_PER_BASE), int(max(pair_bases, default=0) * TEMPORARY_PER_BASE),
                    int(sum(pair_bases) * RESULTS_PER_BASE))


def free_bytes(path: str) -> int:
    """Free bytes on the file system that holds path (or would: its nearest existing parent)."""
    path = os.path.abspath(path)
    while not os.path.exists(path):
        path = os.path.dirname(path)
    return shutil.disk_usage(path).free


def disk_problem(need: DiskNeed, free: int, results: str) -> str | None:
    """One line where the estimate does not fit in the free space, else None."""
    if need.total <= free:
        return None
    gb = 1e9
    return (f"results: {results}: this run needs about {need.total / gb:.1f} GB of disk (genome index "
            f"{need.index / gb:.1f} GB, temporary parts {need.temporary / gb:.1f} GB, outputs {need.results / gb:.1f} "
            f"GB) and {free / gb:.1f} GB are free there; free some, point results elsewhere, or set "
            "check_disk: false to run anyway")


# A chain's row in chains.paf and chains.chain (its header lines), and each of its blocks' share there:
# what the assemble job weighs its chains by once it has them
CHAIN_BYTES, CHAIN_BLOCK_BYTES = 300, 25


def chains_bytes(chains: int, blocks: int) -> int:
    """The size of a pair's chain outputs holding every chain, from its chain and block counts."""
    return int(chains) * CHAIN_BYTES + int(blocks) * CHAIN_BLOCK_BYTES


def fits(estimate: int, pair_bases: int, share: float) -> bool:
    """Whether an output of this estimated size is written under `auto`: at most `share` (the config's
    outputs.auto_share) times the pair's bases. Past it a repeat-rich pair's HSP texts and chains are
    repeat hits, tens of times the genomes' size."""
    return estimate <= share * pair_bases
