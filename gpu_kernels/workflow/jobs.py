"""The compare jobs: a query bin against a group of reference bins, one bin pair at a time in one
process, into a Parquet HSP table and a stats table per bin pair; and the jobs' logging."""
from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor

from ..backend import NumpyBackend, get_backend
from ..engine import compare
from ..result import write_table
from ..formats import write_tsv
from ..hsps import sort_rows
from ..matches import find_matches, matches_to_hsps
from ..params import Params
from ..turns import end_turn, take_turn
from .genome import Genome, load_bin

log = logging.getLogger(__name__)

STAT_KEYS = ("backend", "tiles", "retries", "words", "seeds", "kept_seeds", "extended_seeds", "hsps_forward",
             "hsps_reverse", "hsps")
TIME_KEYS = ("load_s", "words_s", "seeds_s", "diagonals_s", "extend_s", "hsps_s", "total_s")


def compare_group(query: Genome, reference: Genome, qbin: str, rbins: list[str], params: Params, backend: str,
                  hsps_path: str, stats_path: str, labels: dict, pieces: bool = True, all_hsps: bool = True,
                  text_parts_path: str | None = None, write_hsps: bool = True, share: dict | None = None) -> None:
    """One query bin against a group of reference bins through the homology pipeline, in one
    comparison (the engine takes any number of records a side). It leaves its part (workflow.parts:
    chains and alignments, what their texts are made of, every chain's blocks as written where `pieces`)
    beside, where write_hsps, a Parquet HSP table with genome-wide record indices in the canonical
    order (every HSP where all_hsps, else those in chains), where `share` (shares.make_share's
    whole, html and max_pair_plots) its share of the pair's coverage tables and pictures (of the
    same HSPs), and a stats table. text_parts_path: where what the texts are made of goes (a file of
    its own, so that it is removed once the texts' job has read it; default: beside the part)."""
    start = time.perf_counter()
    log.info("the job's process began %.2f s ago (GLIBC_TUNABLES %s)", process_age(),
             os.environ.get("GLIBC_TUNABLES", "unset"))
    engine = get_backend(backend)
    with ThreadPoolExecutor(1, thread_name_prefix="warm") as pool:
        # the share's kernels loaded while the job reads its bins and waits for its turn, not in its turn
        warming = None
        if share is not None and engine.name == "cupy":
            warming = pool.submit(_warm_share, engine, engine.xp.cuda.runtime.getDevice())
        qset, qindex = load_bin(query.codes, query.rows, qbin)
        compare_bins(query, reference, qbin, rbins, qset, qindex, params, engine, hsps_path, stats_path,
                     labels, pieces, all_hsps, text_parts_path, write_hsps, share, warming)
    log.info("job done in %.1f s", time.perf_counter() - start)


def _save_share(path: str, made) -> None:
    """A job's share ended (start_share's function) and written, its time logged."""
    from .shares import save_share

    clock = time.perf_counter()
    save_share(path, made())
    log.info("share written (%.2f s)", time.perf_counter() - clock)


def process_age() -> float:
    """Seconds since this process began (Linux's /proc; 0 elsewhere): a job's start (the interpreter,
    Snakemake's script preamble, the imports) is time its slot does no work."""
    try:
        with open("/proc/self/stat") as handle:
            ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as handle:
            return max(0.0, float(handle.read().split()[0]) - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def _warm_share(engine, device: int) -> None:
    """shares.rehearse_share, a warm-up only: where it fails the share loads its kernels in the turn."""
    from .shares import rehearse_share

    try:
        rehearse_share(engine, device)
    except Exception as error:  # noqa: BLE001 (any failure: the job goes on without the warm-up)
        log.warning("the share's kernels not rehearsed (%s): they load in the device's turn", error)


def part_prefix(hsps_path: str) -> str:
    """Where a compare job's part is written (workflow.parts.part_files): `part` beside its HSP table."""
    return os.path.join(os.path.dirname(hsps_path), "part")


def share_path(hsps_path: str) -> str:
    """Where a compare job's share (shares.py) is written: beside its HSP table."""
    return os.path.join(os.path.dirname(hsps_path), "shares.npz")


# bytes an HSP takes in a Parquet table (its columns delta-packed and compressed), for the log's estimate
HSP_TABLE_BYTES = 12


def compare_bins(query: Genome, reference: Genome, qbin: str, rbin: str | list[str], qset, qindex, params: Params,
                 backend,
                 hsps_path: str, stats_path: str, labels: dict, pieces: bool = True, all_hsps: bool = True,
                 text_parts_path: str | None = None, write_hsps: bool = True, share: dict | None = None,
                 warming=None) -> None:
    """A query bin (already loaded) against a reference bin or a list of them through the homology
    pipeline: its part, and of its HSPs (every HSP, or the chained ones; genome-wide record indices,
    the canonical order) the table (write_hsps) and the share (compare_group's; warming: the future
    of its kernels' rehearsal, waited for first)."""
    from ..result import Result
    from ..pipeline import homology
    from ..schema import HSP
    from .parts import write_part
    from .shares import start_share

    rset, rindex = load_bin(reference.codes, reference.rows, rbin)
    log.info("comparing %s:%s (%d records, %d bp) with %s:%s (%d records, %d bp), %s",
             query.name, qbin, len(qset.names), qset.lengths.sum(), reference.name,
             rbin if isinstance(rbin, str) else ",".join(rbin),
             len(rset.names), rset.lengths.sum(), params)
    if params.matching.mode == "hsp":
        # on a shared device, the other jobs' kernels done first; the bins' codes copied there meanwhile
        result = compare(qset, rset, params, backend=backend, loaded=take_turn)
        home = backend
    else:  # exact matches come back on the host: they stay there
        take_turn()
        table, stats = exact_matches(qset, rset, params, backend)
        home = NumpyBackend()
        result = Result(table, qset, rset, params, stats, home)
    names = rbin if isinstance(rbin, str) else ",".join(rbin)
    stats = {**labels, "qbin": qbin, "rbin": names, **{key: result.stats.get(key, 0) for key in STAT_KEYS + TIME_KEYS}}
    extra = {"qbin": qbin, "rbin": names, "query_records": [int(i) for i in qindex], "stats": stats}

    def device_done(result) -> None:
        """The HSP table written while its columns are on the device; the device handed to the next
        job (turns.py) before the part's host stages."""
        table = result.table
        rows = int(table["qstart"].size)
        if not all_hsps:  # the chained HSPs only: the exhaustive table is the seed's output, asked for
            chained = result.chain_of >= 0
            table = {name: column[chained] for name, column in table.items()}
        # bin-local record indices to genome-wide ones: an increasing map, so the row order holds
        table = dict(table)
        table["qrec"] = home.to_device(qindex)[table["qrec"]]
        table["rrec"] = home.to_device(rindex)[table["rrec"]]
        os.makedirs(os.path.dirname(hsps_path) or ".", exist_ok=True)
        made = None
        if share is not None:
            if warming is not None:
                warming.result()
            clock, steps = time.perf_counter(), []
            made = start_share({name: table[name] for name in HSP.view("dots")}, query.lengths, reference.lengths,
                               **share, steps=steps)
            log.info("share of the coverage tables and pictures: %d HSPs (%s; %.2f s: %s)", int(table["qstart"].size),
                     "every HSP" if all_hsps else "those in chains", time.perf_counter() - clock,
                     ", ".join(f"{name} {seconds:.2f} s" for name, seconds in steps))
        if write_hsps:
            log.info("HSP table: %d of %d HSPs (%s), about %.1f MB", int(table["qstart"].size), rows,
                     "every HSP" if all_hsps else "those in chains", int(table["qstart"].size) * HSP_TABLE_BYTES / 1e6)
            write_table(hsps_path, table, home, query.names, query.lengths, reference.names, reference.lengths,
                        params, extra)
        del table
        result.drop_device()
        end_turn()
        if made is not None:  # ended (the pair dotplots' host work) and written once the next job has the device,
            # beside the part's host stages
            saving.append(sharing.submit(_save_share, share_path(hsps_path), made))

    clock, saving = time.perf_counter(), []
    with ThreadPoolExecutor(1, thread_name_prefix="share") as sharing:
        part = homology(qset, rset, params, home, (), qindex, rindex, pieces, result=result, text_parts=True,
                        device_done=device_done)
        log.info("homology pipeline after the comparison: %.2f s", time.perf_counter() - clock)
        clock = time.perf_counter()
        write_part(part, part_prefix(hsps_path), text_parts_path)
        log.info("part written: %d chains, %d blocks (%.2f s)", part.chains["chain"].size, part.blocks["chain"].size,
                 time.perf_counter() - clock)
        for saved in saving:
            saved.result()
    write_tsv(stats_path, [stats])
    log.info("%d HSPs (%d forward, %d reverse), %d chains, %d candidate alignments in %.2f s", stats["hsps"],
             stats["hsps_forward"], stats["hsps_reverse"], part.chains["chain"].size, part.alignments["chain"].size,
             stats["total_s"])


def exact_matches(qset, rset, params: Params, backend) -> tuple[dict, dict]:
    """MEMs or MUMs of a bin pair as an HSP table in the canonical order, with the stats a compare job reports."""
    start = time.perf_counter()
    matching = params.matching
    matches = find_matches(qset, rset, matching.min_match, matching.mode == "mum", backend)
    hsps = sort_rows(matches_to_hsps(matches, qset), len(qset.names), len(rset.names))
    strand = hsps["strand"]
    stats = {"backend": backend.name, "hsps": int(strand.size), "hsps_forward": int((strand == 0).sum()),
             "hsps_reverse": int((strand == 1).sum()), "total_s": round(time.perf_counter() - start, 6)}
    return hsps, stats


def setup_logging(log_path: str | None) -> None:
    """Log to the job's log file (and stderr when there is none). A line the file cannot take (a full
    disk) is dropped, not printed as logging's "--- Logging error ---" stack beside the job's one-line
    error."""
    logging.raiseExceptions = False
    handlers = [logging.FileHandler(log_path)] if log_path else [logging.StreamHandler()]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        handlers=handlers, force=True)
