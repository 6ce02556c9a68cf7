"""Command line: `python -m gpu_kernels compare Q.fa R.fa -o out.paf [options]`."""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import shlex
import signal
import stat
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .backend import get_backend
from .device import early_context
from .engine import compare_loaded, load
from .errors import InputError, os_error_line
from .fasta import load_pair
from .formats import alignments, mummer_parts, paf_from_table, paf_on_thread, text_from_table, write_parts
from . import native, progress
from .formats.files import STDIN_COPIES, is_special
from .formats.tables import require_kind
from .matches import iter_matches, matches_to_hsps
from .params import Params, given_params
from .options import given_engine, parser
from .pairs import align_loaded

log = logging.getLogger("gpu_kernels")


def refuse_outputs(outputs: dict, inputs) -> None:
    """A command's outputs (option -> path; None: not asked for; "-": standard output) checked before
    anything is read: none names one of its inputs (`compare Q R -o Q`: writing it would replace the
    input), no two name one file but a device (`--sam X --delta X`: one would be lost), at most one
    goes to standard output, and none to a closed one."""
    named = [output for output in outputs.values() if output]
    streams = [option for option, output in outputs.items() if output == "-"]
    if streams and STDOUT_CLOSED:
        raise InputError("standard output is closed: name an output file with -o" if streams[0] == "-o" else
                         f"standard output is closed: name a file for {streams[0]}, not -")
    if len(streams) > 1:
        raise InputError(f"{' and '.join(streams)} both go to standard output (-): name a file for one"
                         if len(streams) == 2 else f"{', '.join(streams)} all go to standard output (-): name a "
                         "file for all but one")
    seen = {}
    for option, output in outputs.items():
        if not output or output == "-" or (os.path.exists(output) and stat.S_ISCHR(os.stat(output).st_mode)):
            continue  # a device (/dev/null) takes every output written into it
        where = os.path.realpath(output)
        if where in seen:
            raise InputError(f"is named by two outputs of this command ({seen[where]} and {option}): name another "
                             "file for one", output)
        seen[where] = option
    for output in named:
        if output == "-" or not os.path.exists(output):
            continue
        for given in inputs:
            try:
                same = os.path.samefile(output, given)
            except OSError:  # an input that is not there: the command stops on it
                same = False
            if same:
                raise InputError("is an input of this command: name another output", output)


def run_filter(args: argparse.Namespace) -> int:
    """The filter command."""
    from .workflow.filter import filter_table

    if not os.path.isfile(args.table):
        raise InputError("no such file", args.table)
    require_kind(args.table, "filter")
    # real paths: a symlinked folder (or table) must not lead the outputs over the table
    if os.path.realpath(args.outdir) == os.path.dirname(os.path.realpath(args.table)):
        raise InputError("the output directory holds the table being filtered: name another", args.outdir)
    if not 0 <= args.min_identity <= 100 or 0 < args.min_identity < 1 or args.min_len < 0:
        raise InputError(f"--min-identity {args.min_identity:g}, --min-len {args.min_len}: identity is a percent "
                         "(0-100, not a fraction: 90 for 90 %), the length at least 0")
    leave_out = ({"paf", "gecko_csv", "chains_paf", "chain_file", "chains_table"} if args.no_text else set()) | (set() if args.delta else {"delta"}) | \
        ({"grid_dotplot", "html_dotplot", "coverage_heatmap", "pair_dotplots"} if args.no_plots else set())
    start = time.perf_counter()
    rows = filter_table(args.table, args.outdir, args.min_len, args.min_identity, leave_out, args.max_pair_dotplots,
                        args.dotplot_order, sequences=(args.query, args.reference))
    print(f"{rows} HSPs kept in {args.outdir} ({time.perf_counter() - start:.2f} s)", file=sys.stderr)
    return 0


def run_plot(args: argparse.Namespace) -> int:
    """The plot command."""
    from .workflow.pictures import table_dotplot

    kinds = set()
    for table in args.tables:
        if not os.path.isfile(table):
            raise InputError("no such file", table)
        kinds.add(require_kind(table, "plot", ("hsps", "chains")))
    suffix = args.output.rsplit(".", 1)[-1].lower() if "." in os.path.basename(args.output) else ""
    if suffix not in ("png", "svg", "pdf"):
        raise InputError("name a .png, .svg or .pdf picture", args.output)
    refuse_outputs({"-o": args.output}, args.tables)
    start = time.perf_counter()
    drawn = table_dotplot(args.tables, args.output, args.query_record, args.reference_record, args.order, args.frame)
    rows = "chains" if kinds == {"chains"} else "HSPs"
    print(f"{drawn:,} {rows} drawn into {args.output} in {time.perf_counter() - start:.2f} s", file=sys.stderr)
    return 0


def run_paf(args: argparse.Namespace) -> int:
    """The paf command."""
    if not os.path.isfile(args.table):
        raise InputError("no such file", args.table)
    require_kind(args.table, "paf")
    refuse_outputs({"-o": args.output or "-"}, [args.table])
    start = time.perf_counter()
    rows = paf_from_table(args.table, args.output, args.threads)
    print(f"{rows} PAF lines in {time.perf_counter() - start:.2f} s", file=sys.stderr)
    return 0


def params_of(args: argparse.Namespace) -> Params:
    """The engine parameters of compare's or align's options (engine_options made them from Params):
    those given (main's args.given), so that a preset's values take the place of the others."""
    return given_params({name: getattr(args, name) for name in args.given})


def load_choosing(args: argparse.Namespace, params: Params):
    """The pair loaded (engine.load) and its parameters: fast mode where the command line gives no
    --max-freq and the workflow would choose it for the pair (sizing.command_line_params: the
    sequences' sketches made as soon as they are read, beside the backend's start), said in one line on
    standard error."""
    from .workflow.sizing import command_line_params

    loaded = load(args.query, args.reference, params, backend=args.backend,
                  then=lambda query, reference: command_line_params(params, args.given, query, reference))
    params, line = loaded.then
    if line:
        print(line, file=sys.stderr)
    return loaded, params


def run_align(args: argparse.Namespace) -> int:
    """The align command: the pair compared whole where it fits (engine.compare), else part by part
    through the homology pipeline (pipeline.py) and assembled; the same outputs either way."""
    params = params_of(args)
    chain_paths = {"chains_paf": args.chains, "chain_file": args.chain_file, "chains_table": args.chains_table}
    maf, psl = getattr(args, "maf", None), getattr(args, "psl", None)  # report's namespace has neither
    named = [args.table, args.delta, args.sam, args.snps, args.vcf, args.liftover, args.hsps, maf, psl,
             *chain_paths.values()]
    output = args.output or (None if any(named) else "-")
    check_fill_memory(params)
    refuse_outputs({"-o": output, "--table": args.table, "--delta": args.delta, "--sam": args.sam,
                    "--snps": args.snps, "--vcf": args.vcf, "--liftover": args.liftover, "--hsps": args.hsps,
                    "--maf": maf, "--psl": psl,
                    "--chains": args.chains, "--chain-file": args.chain_file, "--chains-table": args.chains_table},
                   [args.query, args.reference])
    loaded, params = load_choosing(args, params)
    from .formats.alignments import sam_name_problem
    from .formats.vcf import vcf_name_problem

    for option, wanted, check in (("--sam", args.sam, sam_name_problem), ("--vcf", args.vcf, vcf_name_problem)):
        problem = check(loaded.query.names, loaded.reference.names) if wanted else None
        if problem:  # before any output is written
            raise InputError(f"{option}: {problem}")
    paths = {"paf": output, "delta": args.delta, "sam": args.sam, "snps": args.snps, "table": args.table,
             "vcf": args.vcf, "liftover": args.liftover, "maf": maf, "psl": psl, **chain_paths}
    _, line = align_loaded(loaded, params, paths, args.hsps, not getattr(args, "sam_no_seq", False))
    print(line, file=sys.stderr)
    return 0


def check_fill_memory(params: Params) -> None:
    """A gap's fill larger than half of this machine's memory is refused before anything is read, naming
    the options that bound it (lowering --tile-bytes, the out-of-memory advice, would not)."""
    from .align import fill_bytes

    need = fill_bytes(params)
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return
    if need > memory // 2:
        gamma = params.aligning.gamma > 0
        raise InputError(f"--max-gap {params.chaining.max_gap}, --max-shift {params.chaining.max_shift} and --band "
                         f"{params.aligning.band}{f' with --gamma {params.aligning.gamma:g}' if gamma else ''}: a "
                         f"gap's fill may hold {need / 1e9:.1f} GB, over half of this machine's memory: lower --band, "
                         f"--max-gap or --max-shift{' (or --gamma 0: 17 times fewer bytes a cell)' if gamma else ''}")


def chained_outputs(result, chaining, paths: dict) -> None:
    """The chains' own outputs, once chaining is done (on the host, beside the HSP table's write)."""
    chains = chaining.result()
    log.info("%d chains, %d in the backbone", chains["chain"].size, int(chains["backbone"].sum()))
    result.write_chains(paths)


def run_compare(args: argparse.Namespace) -> int:
    """The compare command."""
    params = params_of(args)
    start = time.perf_counter()
    if args.hsps:
        # pyarrow (0.1 s to import) loaded while the genomes are compared, not after (PAF alone needs none)
        threading.Thread(target=importlib.import_module, args=("pyarrow.parquet",), daemon=True).start()
    chain_paths = {"chains_paf": args.chains, "chain_file": args.chain_file, "chains_table": args.chains_table}
    output = args.output or (None if args.hsps or args.delta or any(chain_paths.values()) else "-")  # as minimap2: PAF to standard output by default
    refuse_outputs({"-o": output, "--hsps": args.hsps, "--delta": args.delta, "--chains": args.chains,
                    "--chain-file": args.chain_file, "--chains-table": args.chains_table}, [args.query, args.reference])
    # an earlier run's outputs stay until this one's are complete (atomic_path): a run that fails
    # (a bad input, Ctrl-C) leaves them as they were
    loaded, params = load_choosing(args, params)
    result = compare_loaded(loaded, params)
    q, r = result.query, result.reference
    with ThreadPoolExecutor(1) as side:
        writing = []

        def chained(chaining) -> None:  # the chains' outputs on the host, beside the HSP table's write
            writing.append(side.submit(chained_outputs, result, chaining, chain_paths))

        chained = chained if any(chain_paths.values()) else None
        if args.hsps:
            result.write_parquet(args.hsps, last=True, chained=chained)  # the HSPs chained as it is written
            log.info("%s: HSP table written", args.hsps)
        elif chained is not None:
            chained(result.chain_soon())
        for future in writing:
            future.result()
    for kind, path in (("paf", output), ("delta", args.delta)):
        if not path:
            continue
        if args.hsps and path != "-" and not is_special(args.hsps):  # from the table just written: no second trip through the device
            text_from_table(kind, args.hsps, path)
        else:
            result.write_text(kind, path)
    s = result.stats
    print(f"{s['hsps']} HSPs ({s.get('hsps_forward', 0)} forward, {s.get('hsps_reverse', 0)} reverse), "
          f"query coverage {100 * result.coverage():.2f} %, {len(q.names)} x {len(r.names)} records, "
          f"{s.get('seeds', 0)} seeds, {s.get('kept_seeds', 0)} kept, backend {s['backend']}, "
          f"{time.perf_counter() - start:.2f} s", file=sys.stderr)
    return 0


def run_matches(args: argparse.Namespace) -> int:
    """The mems and mums commands."""
    if args.min_match < 1:
        raise InputError(f"-l {args.min_match}: the shortest match must be at least 1")
    if args.reference_tile < 0:
        raise InputError(f"--reference-tile {args.reference_tile}: must be at least 1 (0: what fits)")
    refuse_outputs({"-o": args.output or "-", "--paf": args.paf}, [args.query, args.reference])
    # a read or probe set (all-N records skipped) encoded where the backend computes (a FASTQ one on the
    # host); iter_matches moves the reference's codes there. The backend is made (CuPy imported, 0.2 s)
    # on a thread while the files are read.
    start = time.perf_counter()
    with ThreadPoolExecutor(1, thread_name_prefix="backend") as pool:
        chosen = pool.submit(get_backend, args.backend)
        try:
            query, reference = load_pair(args.query, args.reference, reads=True, backend=chosen)
        finally:
            backend = chosen.result()  # its error (no device) first, as before the files were read
    log.info("query and reference read in %.2f s", time.perf_counter() - start)
    start = time.perf_counter()
    batches = iter_matches(query, reference, args.min_match, args.command == "mums", backend,
                           tile_bases=args.reference_tile)
    count = [0]
    paf = paf_on_thread(args.paf, query.names, query.lengths, reference.names, reference.lengths) if args.paf else None

    def parts():
        """Each batch's text as soon as it is found, and its --paf rows handed to their writer: the
        matches held are a batch's."""
        for found, first, end in batches:
            count[0] += int(found["length"].size)
            if paf:
                paf.put(matches_to_hsps(found, query))
            yield from mummer_parts(found, query.names, query.lengths, reference.names, records=range(first, end),
                                    qtable=query.name_table, ordered=True)

    try:
        write_parts(args.output or None, parts())
    except BaseException:
        if paf:
            paf.abort()
        raise
    log.info("%d %s found and written in %.2f s", count[0], args.command, time.perf_counter() - start)
    if paf:
        paf.close()
    log.info("%d %s in %.2f s", count[0], args.command, time.perf_counter() - start)
    return 0


def closed_streams() -> bool:
    """Whether standard output was closed (`>&-`). A closed standard error (`2>&-`) is made a sink, as
    a run that has nothing to say then succeeds; a closed standard output is given a sink too, and a
    command whose rows would go there stops before it computes them (closed_output)."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")
    closed = sys.stdout is None
    if closed:
        sys.stdout = open(os.devnull, "w")
    return closed


STDOUT_CLOSED = False


def fasta_from_stdin(args: argparse.Namespace) -> str | None:
    """A sequence argument given as - (as minimap2's and nucmer's users pipe one in): standard input
    copied to a temporary file that stands in for it (the readers read files on many threads, and
    take gzip too); that file's path, for main to remove, or None."""
    import shutil
    import tempfile

    sides = [side for side in ("query", "reference") if getattr(args, side, None) == "-"]
    if not sides:
        return None
    if len(sides) > 1:
        raise InputError("both sequences are given as -: standard input holds one of them")
    if sys.stdin is None or sys.stdin.closed:
        raise InputError("standard input is closed", "-")
    delta = getattr(args, "delta", None)
    if isinstance(delta, str) and (delta == "-" or is_special(delta)):
        raise InputError(f"--delta {delta}: the delta's header names the sequence files MUMmer's tools read, and "
                         "a sequence from standard input has none; give --delta a file (the sequence is kept beside it)")
    fd, path = tempfile.mkstemp(prefix="gpu-genome-compare-stdin-", suffix=".fa")
    STDIN_COPIES.add(os.path.abspath(path))
    with os.fdopen(fd, "wb") as spool:
        shutil.copyfileobj(sys.stdin.buffer, spool, 1 << 22)
    setattr(args, sides[0], path)
    return path


def main(argv: list[str] | None = None) -> int:
    """Entry point: one line and exit status 2 on bad input."""
    global STDOUT_CLOSED
    STDOUT_CLOSED = closed_streams()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser().parse_args(argv)
    args.given = given_engine(argv)
    alignments.COMMAND_LINE[0] = shlex.join(["gpu-genome-compare", *argv])
    logging.basicConfig(level=(logging.WARNING, logging.INFO, logging.DEBUG)[min(getattr(args, "verbose", 0), 2)], stream=sys.stderr,
                        format="%(asctime)s %(name)s %(message)s")
    if getattr(args, "threads", 0) < 0:
        print(f"error: -t {args.threads}: threads must be at least 1 (0: the cores)", file=sys.stderr)
        return 2
    if getattr(args, "threads", 0):  # every compiled stage and writer reads it (native.threads)
        os.environ["GPU_GENOME_COMPARE_THREADS"] = str(args.threads)
    if getattr(args, "backend", None) in ("cupy", "auto"):  # compare, mems, mums
        early_context()
    spooled = None
    line = progress.start(getattr(args, "verbose", 0))
    try:
        spooled = fasta_from_stdin(args)
        if args.command == "paf":
            return run_paf(args)
        if args.command == "plot":
            return run_plot(args)
        if args.command == "filter":
            return run_filter(args)
        if args.command == "align":
            return run_align(args)
        if args.command == "warm":
            from .warm_command import run_warm
            from .workflow.shares import rehearse_share

            return run_warm(args, main, rehearse_share)
        if args.command == "report":
            from .report import run_report
            from .workflow.pictures import table_dotplot

            return run_report(args, run_align, table_dotplot)
        return run_compare(args) if args.command == "compare" else run_matches(args)
    except InputError as error:
        print(f"error: {error.line()}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: one line, the shell's status for it; no output left finished
        print(f"error: {STOPPED_BY[1]}", file=sys.stderr)
        return STOPPED_BY[0]
    except MemoryError:
        advice = {"compare": "; lower --tile-bytes", "align": "; lower --part-bases or --tile-bytes (or --band and "
                  "--max-gap: a gap's fill holds up to --max-gap x (--max-shift + 2 --band) bytes)"}.get(
            args.command, "; give the query in smaller files")
        print(f"error: out of memory{advice}", file=sys.stderr)
        return 3
    except BrokenPipeError:  # `... | head`: the reader has all it wants; nothing more goes to the pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:  # an output path that is a directory, unwritable, or a full disk
        print(f"error: {os_error_line(error)}", file=sys.stderr)
        return 2
    finally:
        progress.stop(line)
        if spooled:
            os.unlink(spooled)


def interrupted() -> None:
    """Ctrl-C or SIGTERM while a compiled stage runs (native.cpu().on_interrupt): the outputs being
    written removed, one line, the shell's status for the signal, at once; the stage's threads end
    with the process instead of running to their end first."""
    from .formats.files import remove_pending

    remove_pending()
    print(f"error: {STOPPED_BY[1]}", file=sys.stderr, flush=True)
    os._exit(STOPPED_BY[0])


STOPPED_BY = [130, "interrupted"]  # the exit status and line of a run stopped by a signal (Ctrl-C's by default)


def terminated(signum, frame) -> None:
    """SIGTERM (a SLURM time limit, `timeout`, `kill`) ends a run as Ctrl-C does, with its own status
    (143) and line: the outputs being written removed, none left half-written."""
    STOPPED_BY[:] = [143, "terminated"]
    raise KeyboardInterrupt


def cli() -> None:
    """The installed command and `python -m gpu_kernels`: main, then an exit without the interpreter's
    teardown. Every output is closed and in place by then; a GPU run still holds tens of GB in CuPy's
    memory pool and pinned host buffers, which the teardown would free one by one for the operating
    system to take back at once anyway (1.3 to 2.2 s more, alternating runs on the 150 Mbp pair:
    bench/hsp_path.py --teardown)."""
    native.cpu().on_interrupt(interrupted)
    signal.signal(signal.SIGTERM, terminated)
    status = main()
    log.info("exiting with status %d", status)  # -v: the time from here to the process's end is the exit's
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a reader gone, or a stream closed: nothing left to say
            pass
    os._exit(status)


if __name__ == "__main__":
    cli()
