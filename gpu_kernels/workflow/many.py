"""Many genomes in one run: the set's genome pairs in rows, a row a job (its outputs in one folder).
A genome's row holds its pairs with the genomes listed before it, so adding a genome at the end of
the list makes one new row (its pairs with every genome before it) and leaves the finished rows as
they were. A row's job screens its pairs (screen.py: pairs whose genomes share next to nothing are not
aligned), reads each genome's index once and aligns the others one after another in one
process (as pairs.align_loaded does: compared whole, chained, the one-to-one alignments chosen), writing
each pair's outputs and the row's ANI rows (ani.py). The HSPs of a run of pairs with one reference
are found in one pass (batch.py), then each pair is chained, placed, aligned and written on the host
(Result.hand_to_host, pairs.finish_whole); on a GPU the pass is the job's turn (turns.py), and the
host's part runs on a thread while the job's next run takes its turn."""
from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor

from ..ani import pair_ani, write_rows
from ..backend import get_backend
from ..engine import Loaded
from ..params import Params
from ..turns import end_turn, take_turn
from .genome import WHOLE, load_bin
from .screen import ALIGNED, screen_pairs

log = logging.getLogger(__name__)

ROW_ANI = "ani.tsv"  # a row's ANI rows, in its folder
BATCH_BASES = 32_000_000  # a run's queries compared in one turn on a device (a turn's launches shared)


def pair_paths(folder: str, kinds: dict):
    """paths_of for align_row: a pair's outputs (kinds: write kind -> file name) in QUERY_vs_REFERENCE/
    of a row's folder, the folder made."""

    def paths(query: str, reference: str) -> dict:
        pair = os.path.join(folder, f"{query}_vs_{reference}")
        os.makedirs(pair, exist_ok=True)
        return {kind: os.path.join(pair, name) for kind, name in kinds.items()}

    return paths


def rows_of(genomes: list[str], pairs: list[tuple]) -> dict[str, list[tuple]]:
    """Each (query, reference) pair in the row of whichever of its genomes comes later in `genomes`;
    every genome has a row (empty for the first one, without self pairs); pairs keep their order."""
    at = {g: i for i, g in enumerate(genomes)}
    rows = {g: [] for g in genomes}
    for q, r in pairs:
        rows[genomes[max(at[q], at[r])]].append((q, r))
    return rows


def members_digest(pairs: list[tuple], genomes: list[str], digests: dict) -> str:
    """A digest of what a row (or a set) holds: its genomes' names and contents (the scan's digests) in
    order, and its pairs. A rule writes it where it changes, so that the rows and the ANI table that read
    it rerun exactly where a genome was replaced, inserted, removed or renamed."""
    import hashlib

    text = "".join(f"genome\t{g}\t{digests[g]}\n" for g in genomes) + "".join(f"pair\t{q}\t{r}\n" for q, r in pairs)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def align_row(pairs: list[tuple], genomes: dict, fasta: dict, params: Params, backend: str, paths_of,
              rows_path: str, sam_seq: bool = True, snps_min_ani: float = 0.0,
              overlap: bool | None = None, screen: float = 0.0) -> list[dict]:
    """A row's pairs aligned in turn and written: genomes, name -> workflow.genome.Genome (its index);
    fasta, name -> its FASTA (the delta's header names it); paths_of(query, reference): the pair's
    output paths by align.write_aligned's kinds (and pairs.CHAIN_PATHS); rows_path: the row's ANI rows
    (ani.tsv's layout); snps_min_ani: the SNP and VCF files of pairs of this ANI or more only (a
    distant pair's SNP table is most of its outputs and seldom read); overlap: a run's host half beside
    the next run's compare (default: on a device, where the device's turn is the job's wait; on the CPU
    the compare takes every core the job has); screen: pairs of a lower containment ANI (percent) are
    not aligned (screen.py; 0: every pair is). Returns the rows."""
    from ..batch import batches, compare_queries, fits_together
    from ..pairs import align_loaded, finish_whole

    start = time.perf_counter()
    every = {pair: at for at, pair in enumerate(pairs)}
    pairs, rows, estimates = screen_pairs(pairs, genomes, screen)
    log.info("screen: %d of %d pairs share too little to align (containment ANI under %g %%; %.2f s)",
             len(rows), len(every), screen, time.perf_counter() - start)
    device = get_backend(backend)
    ready = device.warm_up(params) if pairs else None
    overlap = not device.on_host if overlap is None else overlap
    sets = {}
    last = {g: number for number, pair in enumerate(pairs, 1) for g in pair}  # the last pair holding each genome

    def seqset(name: str):
        if name not in sets:
            genome = genomes[name]
            sets[name] = load_bin(genome.codes, genome.rows, WHOLE)[0]
        return sets[name]

    def done(number: int, row: dict, al_line: tuple) -> None:
        rows.append(row)
        log.info("pair %d of %d, %s vs %s: ANI %.3f %%, aligned fractions %.4f and %.4f; %s", number, len(pairs),
                 row["query"], row["reference"], row["ani"], row["aligned_fraction_query"],
                 row["aligned_fraction_reference"], al_line[1])

    def row_of(q: str, r: str) -> tuple:
        """The pair's ANI row (filled once aligned) and its variants_if for align_loaded."""
        qset, rset = seqset(q), seqset(r)
        row = {"query": q, "reference": r, "screen_ani": estimates[(q, r)], "status": ALIGNED}

        def close(al) -> bool:  # asked once a pair, before its files
            row.update(pair_ani(al, qset.lengths, rset.lengths))  # the pair's ANI row, made here once
            return snps_min_ani <= 0 or row["ani"] >= snps_min_ani  # NaN (nothing aligned): close only for 0

        return row, close

    def finish(run: list[int], results: list, made: list, clock: float) -> None:  # a run's host half
        for at, result, (row, close) in zip(run, results, made):
            q, r = pairs[at]
            result.sources = {"query_fasta": fasta[q], "reference_fasta": fasta[r]}
            done(at + 1, row, finish_whole(result, paths_of(q, r), None, sam_seq, None, close, clock))

    def let_go(run: list[int]) -> None:
        for at in run:
            for name in set(pairs[at]):
                if last[name] == at + 1:
                    del sets[name]  # no later pair of the row holds it

    # The pairs of a reference go in runs of BATCH_BASES of queries, a run's HSPs found in one compare
    # (batch.compare_queries: on a device, one turn); where overlap, its host half (chains, alignments,
    # files: finish_whole) runs on a thread while the next run takes its turn, and a job's runs cost the
    # longer of their two halves, not their sum.
    size = {name: int(genome.lengths.sum()) for name, genome in genomes.items()}
    with ThreadPoolExecutor(1, thread_name_prefix="host") as host:
        behind = None  # the host half in progress
        for run in batches(pairs, size.get, BATCH_BASES):
            clock = time.perf_counter()
            queries, reference = [seqset(pairs[at][0]) for at in run], seqset(pairs[run[0]][1])
            together = fits_together(queries, reference, params)
            if together:
                take_turn()
                results = compare_queries(queries, reference, device, ready, params, clock)
                ready = None
                end_turn(False)
            if behind is not None:
                behind.result()
                behind = None
            if together:
                made = [row_of(*pairs[at]) for at in run]
                if overlap:
                    behind = host.submit(finish, run, results, made, clock)
                else:
                    finish(run, results, made, clock)
            else:  # too large to compare together: a pair at a time, whole or in parts (align_loaded)
                for at in run:
                    q, r = pairs[at]
                    row, close = row_of(q, r)
                    loaded = Loaded(seqset(q), seqset(r), device, ready, {"query_fasta": fasta[q],
                                    "reference_fasta": fasta[r]}, time.perf_counter())
                    ready = None
                    take_turn()
                    done(at + 1, row, align_loaded(loaded, params, paths_of(q, r), sam_seq=sam_seq,
                                                   device_done=lambda: end_turn(False), host_after_hsps=True,
                                                   variants_if=close))
            let_go(run)  # what the host half reads it holds itself
        if behind is not None:
            behind.result()
    end_turn()
    rows.sort(key=lambda row: every[(row["query"], row["reference"])])  # the row's pairs in their order
    write_rows(rows_path, rows)
    log.info("%d pairs in %.1f s", len(every), time.perf_counter() - start)
    return rows
