"""Hostile input, third round (the "Hostile input and faults" issue): a command's outputs on one path or
on a closed standard output, a sequence on standard input, an identity given as a fraction."""
import os
import shlex
import subprocess
import sys

import numpy as np
import pytest

from conftest import MYCO_232, MYCO_7422, ROOT
from test_hostile_input import one_line_error

CLI = [sys.executable, "-m", "gpu_kernels"]


def run(*args, **kwargs):
    return subprocess.run([*CLI, *args], cwd=ROOT, capture_output=True, text=True, **kwargs)


def test_two_outputs_on_one_path_are_refused_and_nothing_is_written(tmp_path):
    """Case 6: `--sam X --delta X`, `-o X --delta X`, `mems -o X --paf X` ran, exited 0 and lost one output."""
    x = tmp_path / "x.out"
    same = tmp_path / "sub" / ".." / "x.out"  # the same file by another name
    (tmp_path / "sub").mkdir()
    for command in (["align", MYCO_232, MYCO_7422, "--sam", str(x), "--delta", str(x)],
                    ["align", MYCO_232, MYCO_7422, "-o", str(x), "--snps", str(same)],
                    ["compare", MYCO_232, MYCO_7422, "-o", str(x), "--delta", str(x)],
                    ["compare", MYCO_232, MYCO_7422, "--hsps", str(x), "--chains", str(x)],
                    ["mems", MYCO_232, MYCO_7422, "-l", "100", "-o", str(x), "--paf", str(x)]):
        one_line_error(run(*command), "is named by two outputs of this command (", str(x.name))
        assert not x.exists()


def test_two_outputs_on_standard_output_are_refused():
    for command, said in ((["align", MYCO_232, MYCO_7422, "--sam", "-", "--delta", "-"], "--delta and --sam both"),
                          (["align", MYCO_232, MYCO_7422, "-o", "-", "--snps", "-"], "-o and --snps both"),
                          (["mems", MYCO_232, MYCO_7422, "-l", "100", "--paf", "-"], "-o and --paf both")):
        one_line_error(run(*command), said, "go to standard output (-): name a file for one")


def test_outputs_to_a_closed_standard_output_are_refused():
    """Case 10: with standard output closed only `-o -` was refused; `--sam -`, `--delta -`, `--snps -`,
    `--chains -`, `--chain-file -` and `mems --paf -` sent their rows nowhere and exited 0."""
    pair = f"{shlex.quote(MYCO_232)} {shlex.quote(MYCO_7422)}"
    cli = " ".join(shlex.quote(part) for part in CLI)
    for option in ("--sam", "--delta", "--snps", "--chains", "--chain-file"):
        proc = subprocess.run(["sh", "-c", f"{cli} align {pair} {option} - >&-"], cwd=ROOT, stderr=subprocess.PIPE,
                              text=True)
        one_line_error(proc, f"standard output is closed: name a file for {option}, not -")
    proc = subprocess.run(["sh", "-c", f"{cli} mems {pair} -l 100 -o /dev/null --paf - >&-"], cwd=ROOT,
                          stderr=subprocess.PIPE, text=True)
    one_line_error(proc, "standard output is closed")


def test_a_sequence_on_standard_input(tmp_path):
    """Case 16: `-` was "no such file"; as minimap2's and nucmer's users pipe, it is read (gzip too),
    with the answer of the file itself, and no copy of it is left behind."""
    import glob
    import tempfile

    plain = tmp_path / "plain.paf"
    run("align", MYCO_232, MYCO_7422, "-o", str(plain), check=True)
    left = set(glob.glob(f"{tempfile.gettempdir()}/gpu-genome-compare-stdin-*"))
    with open(MYCO_232, "rb") as gz:  # gzip bytes on the pipe
        piped = subprocess.run([*CLI, "align", "-", MYCO_7422], cwd=ROOT, stdin=gz, capture_output=True)
    assert piped.returncode == 0 and piped.stdout.decode() == plain.read_text()
    with open(MYCO_7422, "rb") as gz:
        piped = subprocess.run([*CLI, "compare", MYCO_232, "-"], cwd=ROOT, stdin=gz, capture_output=True)
    assert piped.returncode == 0 and piped.stdout.count(b"\n") > 100
    assert set(glob.glob(f"{tempfile.gettempdir()}/gpu-genome-compare-stdin-*")) == left
    one_line_error(run("align", "-", "-", stdin=subprocess.DEVNULL), "both sequences are given as -")


def test_a_delta_of_a_sequence_on_standard_input_names_a_file_that_stays(tmp_path):
    """A query piped in as `-`: the delta's header named the deleted temporary copy, so show-snps failed
    on it; now a plain copy is kept beside the delta (as for a gzipped input) and MUMmer's tools read
    it. A delta to standard output has nowhere to keep one: refused with a sequence from standard input,
    and with a gzipped input nothing is left in the current folder (once `-.query.fa`)."""
    import gzip
    import shutil

    delta = tmp_path / "a.delta"
    with open(MYCO_232, "rb") as gz:
        piped = subprocess.run([*CLI, "align", "-", MYCO_7422, "--delta", str(delta)], cwd=tmp_path, stdin=gz,
                               capture_output=True, text=True)
    assert piped.returncode == 0, piped.stderr
    named = delta.read_text().splitlines()[0].split()
    assert named == [str(tmp_path / "a.delta.reference.fa"), str(tmp_path / "a.delta.query.fa")]
    with gzip.open(MYCO_232, "rb") as original:
        assert (tmp_path / "a.delta.query.fa").read_bytes() == original.read()
    if shutil.which("show-snps"):  # MUMmer (CI installs it)
        assert subprocess.run(["show-snps", "-C", str(delta)], capture_output=True).returncode == 0
    with open(MYCO_232, "rb") as gz:
        one_line_error(subprocess.run([*CLI, "align", "-", MYCO_7422, "--delta", "-"], cwd=tmp_path, stdin=gz,
                                      capture_output=True, text=True), "--delta -", "standard input")
    streamed = subprocess.run([*CLI, "align", MYCO_232, MYCO_7422, "--delta", "-"], cwd=tmp_path, capture_output=True,
                              text=True)
    assert streamed.returncode == 0 and streamed.stdout.startswith(os.path.abspath(MYCO_7422))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.delta", "a.delta.query.fa", "a.delta.reference.fa"]


@pytest.mark.parametrize("value", ["0.9", "0.5"])
def test_an_identity_given_as_a_fraction_is_refused(value, tmp_path):
    """Case 12: `--min-identity 0.9` was taken as 0.9 % (PAF's de:f and many tools give fractions)."""
    one_line_error(run("compare", MYCO_232, MYCO_7422, "--min-identity", value, "-o", str(tmp_path / "o.paf")),
                   "is a percent (0..100), not a fraction", f"give {float(value) * 100:g}")
    assert not (tmp_path / "o.paf").exists()
    assert run("compare", MYCO_232, MYCO_7422, "--min-identity", "0", "-o", str(tmp_path / "o.paf")).returncode == 0


@pytest.mark.parametrize("count", [127, 128, 248, 256])
def test_the_reports_one_to_one_count_does_not_wrap(count, tmp_path):
    """Case 3: the report's headline summed an int8 column with Python's sum (-8 for 248, 0 for 256,
    and then "covered by: backbone chains" with no identity)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from gpu_kernels.workflow.report import headline

    backbone = np.zeros(count + 5, dtype=np.int8)
    backbone[:count] = 1
    pq.write_table(pa.table({"backbone": backbone}), tmp_path / "alignments.parquet")
    (tmp_path / "coverage_genomes.tsv").write_text(
        "side\tcoverage_aligned\tcoverage_backbone\tcoverage_both\tidentity_aligned\n"
        "query\t0.9\t0.95\t0.97\t0.98\nreference\t0.8\t0.85\t0.9\t0.98\n")
    numbers = headline(str(tmp_path))
    assert numbers["alignments"] == count
    assert numbers["by"] == "one-to-one alignments" and numbers["identity"] == pytest.approx(98)


def test_the_install_brings_what_the_report_needs():
    """Case 13: `snakemake --report` failed after the README's install (pygments missing: Snakemake
    needs it for reports and does not install it; the test extras brought it through pytest)."""
    import tomllib

    with open(f"{ROOT}/pyproject.toml", "rb") as handle:
        project = tomllib.load(handle)["project"]
    names = {dep.split(">")[0].split("=")[0].split("<")[0].strip().lower() for dep in project["dependencies"]}
    assert {"snakemake", "pygments"} <= names


def test_a_protein_fasta_is_refused(tmp_path):
    """Case 11: a protein FASTA was compared as all N in silence (exit 0, "0 HSPs"); DNA with IUPAC
    codes, soft masking, X masking and U still reads."""
    from gpu_kernels.errors import InputError
    from gpu_kernels.fasta import read_bytes

    rng = np.random.default_rng(3)
    protein = "".join(rng.choice(list("ACDEFGHIKLMNPQRSTVWY"), 3000))
    prot = tmp_path / "p.fa"
    prot.write_text(">sp|P1|X\n" + "\n".join(protein[i:i + 60] for i in range(0, 3000, 60)) + "\n")
    one_line_error(run("compare", str(prot), MYCO_7422, "-o", str(tmp_path / "o.paf")),
                   "holds protein sequences, not nucleotides", "p.fa")
    with pytest.raises(InputError, match="protein"):
        read_bytes(str(prot))  # the workflow's genome scan reads through it too
    dna = "".join(rng.choice(list("ACGTacgtRYKMNNNXXU"), 3000))
    nucl = tmp_path / "n.fa"
    nucl.write_text(">chr1 IUPAC and masks\n" + "\n".join(dna[i:i + 60] for i in range(0, 3000, 60)) + "\n")
    assert read_bytes(str(nucl)).startswith(b">chr1")


def test_sigterm_ends_a_run_as_ctrl_c_does(tmp_path):
    """Case 9: SIGTERM (a SLURM time limit, `timeout`) killed the run where it stood, leaving hidden
    .part files of the outputs being written. Now, inside a compiled stage (k 8 on the bundled pair
    spends a minute in seeds and extension) as outside: one line, status 143, no output, no .part."""
    import signal

    from test_hostile_runs import signal_inside_a_compiled_stage

    status, said, err, _ = signal_inside_a_compiled_stage(tmp_path, signal.SIGTERM)
    assert status == 143 and said == ["error: terminated"], err[-800:]
    assert not (tmp_path / "o.paf").exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_a_complete_write_removes_what_a_killed_one_left(tmp_path):
    """Case 9, the rest: a job killed with -9 (nothing can be handled) left its .part file, and a later
    complete run never removed it. Now it does, and leaves a write still under way (touched since) be."""
    import os
    import time

    out = tmp_path / "o.paf"
    stale = tmp_path / ".o.paf.0123456789ab.part"
    aside = tmp_path / ".o.paf.ba9876543210.old"
    fresh = tmp_path / ".o.paf.a1b2c3d4e5f6.part"
    other = tmp_path / ".other.paf.0123456789ab.part"
    for path in (stale, aside, fresh, other):
        path.write_bytes(b"half")
    old = time.time() - 3600
    for path in (stale, aside, other):
        os.utime(path, (old, old))
    os.utime(fresh, (time.time() + 600,) * 2)  # touched again while this run writes
    run("compare", MYCO_232, MYCO_7422, "-o", str(out), check=True)
    assert out.exists() and not stale.exists() and not aside.exists()
    assert fresh.exists() and other.exists()  # another write of it, still under way; another file's


def test_a_failed_run_leaves_the_last_runs_outputs_as_they_were(tmp_path):
    """Case 2: the same `align` with a FASTA holding one bad character (exit 2, one line) deleted every
    output of the run before it: old outputs were removed before the input was read."""
    import shutil

    outputs = {"-o": "out.paf", "--sam": "out.sam", "--delta": "out.delta", "--table": "out.parquet"}
    args = [a for option, name in outputs.items() for a in (option, str(tmp_path / name))]
    run("align", MYCO_232, MYCO_7422, *args, check=True)
    before = {name: (tmp_path / name).read_bytes() for name in outputs.values()}
    bad = tmp_path / "bad.fa"
    shutil.copy(MYCO_232, tmp_path / "q.fa.gz")
    text = subprocess.run(["gzip", "-dc", str(tmp_path / "q.fa.gz")], capture_output=True, check=True).stdout
    bad.write_bytes(text[:200] + b"!" + text[201:])
    one_line_error(run("align", str(bad), MYCO_7422, *args), "unexpected character")
    assert {name: (tmp_path / name).read_bytes() for name in outputs.values()} == before
    # the delta's plain copies of the first run's gzipped FASTA files (formats/delta.py's readable_fasta) stay too
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*outputs.values(), "bad.fa", "q.fa.gz",
                                                                 "out.delta.query.fa", "out.delta.reference.fa"])


def test_sam_names_its_command_the_log_its_units_and_plot_its_genomes(tmp_path):
    """Case 17: SAM's @PG CL was "align" alone; -v logged "x.snps: 5 rows written" for a file of
    hundreds of thousands of lines (its rows are alignments); `plot` labelled genomes by the table's
    file name ("c vs reference")."""
    from gpu_kernels.formats.tables import read_meta
    from gpu_kernels.workflow.pictures import genome_label

    sam, snps, table = tmp_path / "a.sam", tmp_path / "a.snps", tmp_path / "c.parquet"
    proc = run("align", MYCO_232, MYCO_7422, "--sam", str(sam), "--snps", str(snps), "-v", check=True)
    pg = [line for line in sam.read_text().splitlines() if line.startswith("@PG")]
    assert pg == [f"@PG\tID:gpu-genome-compare\tPN:gpu-genome-compare\tCL:gpu-genome-compare align {MYCO_232} "
                  f"{MYCO_7422} --sam {sam} --snps {snps} -v"]
    alignments = len([line for line in sam.read_text().splitlines() if not line.startswith("@")])
    assert f"{snps}: {alignments} one-to-one alignments' SNPs and indels written" in proc.stderr
    assert len(snps.read_text().splitlines()) > 10 * alignments
    run("compare", MYCO_232, MYCO_7422, "--hsps", str(table), check=True)
    meta = read_meta(str(table))
    assert (genome_label(meta, "query", "c"), genome_label(meta, "reference", "reference")) == \
        ("Mhyopneumoniae_232", "Mhyopneumoniae_7422")
    assert genome_label({}, "query", "c") == "c" and genome_label({"query_genome": "hg38"}, "query", "c") == "hg38"


GUARDED_PIECES = r'''
import ctypes
import mmap
import sys

import numpy as np

from gpu_kernels import native
from gpu_kernels.encode import BORDER
from gpu_kernels.kernels import GAP

page, body = mmap.PAGESIZE, 400
n = GAP + body + GAP
libc = ctypes.CDLL(None)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def guarded(at_start: bool) -> np.ndarray:
    """Codes (borders, a record, borders) with an unreadable page right before them or right after."""
    mm = mmap.mmap(-1, 4 * page)
    base = ctypes.addressof(ctypes.c_char.from_buffer(mm))
    offset = page if at_start else 3 * page - n
    libc.mprotect(base + (0 if at_start else 3 * page), page, 0)  # PROT_NONE
    codes = np.frombuffer(mm, dtype=np.uint8, count=n, offset=offset)
    codes[:] = BORDER
    codes[GAP:GAP + body] = np.random.default_rng(1).integers(0, 4, body, dtype=np.uint8)
    guarded.kept.append(mm)
    return codes


guarded.kept = []
cpu = native.cpu()
for at_start in (True, False):
    q = guarded(at_start)
    one = lambda v: np.array([v], dtype=np.int64)  # noqa: E731
    none = np.empty(0, dtype=np.int64)
    count = np.zeros(1, dtype=np.int64)
    cpu.chain_pieces(q, q, q, one(GAP), one(GAP), one(0), one(0), one(0), one(body), np.zeros(1, np.int8),
                     np.zeros(1, np.uint8), 1, -2, -1, 7, int(sys.argv[1]), count, 0, none, none, none, none, 1)
    print(at_start, int(count[0]))
'''


@pytest.mark.parametrize("tandem", [16, 200, 5000])
def test_a_long_block_tandem_reads_only_the_codes(tandem, tmp_path):
    """Case 1: `--block-tandem` above about 140 (the records' borders are 128 codes wide) read before
    the codes' start or past their end: SIGSEGV, no message. A block at its record's start and end,
    its codes between unreadable pages: the tandem scan stays within them (chain_pieces, placement.c;
    chains.cu's twin is the same loop)."""
    script = tmp_path / "guarded.py"
    script.write_text("import sys\nsys.path.insert(0, %r)\n" % ROOT + GUARDED_PIECES)
    proc = subprocess.run([sys.executable, str(script), str(tandem)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-500:])
    assert proc.stdout.split() == ["True", "1", "False", "1"]


def test_a_block_tandem_past_its_bound_is_refused(tmp_path):
    """Case 1, its validation: a piece's ends are scanned block_tandem bases on either side, so a value
    past 10,000 (a satellite array's length) is refused in one line rather than left to crawl."""
    one_line_error(run("compare", MYCO_232, MYCO_7422, "--chains", str(tmp_path / "c.paf"), "--block-tandem", "20000",
                       "-o", str(tmp_path / "o.paf")), "block_tandem = 20000 is above 10000")
    assert run("compare", MYCO_232, MYCO_7422, "--chains", str(tmp_path / "c.paf"), "--block-tandem", "200", "-o",
               str(tmp_path / "o.paf")).returncode == 0


def test_a_text_buffer_is_sized_by_the_strings_its_rows_name():
    """Case 4: the chains PAF of a repeat-rich 20 Mbp pair asked for 40.4 GiB: format_rows sized its
    buffer as rows x the longest string a column names (1.19 M chains x the longest CIGAR). The bound is
    now the named strings' lengths summed, and the text is the same."""
    from gpu_kernels import native
    from gpu_kernels.formats.rows import format_rows, name_table

    names = name_table(["x" * 100_000] + ["y"] * 99_999)
    rows = np.concatenate(([0], np.ones(99_999, dtype=np.int64)))
    bound = native.module("_format").row_bound(rows.size, (("n", rows, *names), ("i", rows), ("s", b"\n")))
    assert bound <= 100_000 + 99_999 + 21 * rows.size + 16  # not 100_000 x 100_000
    text = bytes(format_rows(rows.size, (("n", rows, names), ("i", rows), "\n")))
    assert text == b"x" * 100_000 + b"0\n" + b"y1\n" * 99_999


def test_commands_that_take_a_table_name_the_kind_they_got(tmp_path):
    """Case 7: `plot` on an alignment table gave a traceback (KeyError), `paf` and `filter` called one
    "rows ... outside its records ... do not belong together", which reads as corruption; `plot` on a
    table with a bad record index gave a traceback. Each now names the kind of table it got and those
    it takes, in one line; `plot` draws a chain table's chains."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    alignments, chains, hsps = (tmp_path / name for name in ("al.parquet", "ch.parquet", "hsps.parquet"))
    run("align", MYCO_232, MYCO_7422, "--table", str(alignments), "--chains-table", str(chains), "--hsps", str(hsps),
        check=True)
    for command in (["plot", str(alignments), "-o", str(tmp_path / "a.png")], ["paf", str(alignments)],
                    ["filter", str(alignments), "-o", str(tmp_path / "f")]):
        one_line_error(run(*command), "is an alignment table (align --table", f"{command[0]} takes an HSP table")
    for command in (["paf", str(chains)], ["filter", str(chains), "-o", str(tmp_path / "f")]):
        one_line_error(run(*command), "is a chain table (--chains-table", f"{command[0]} takes an HSP table")
    drawn = run("plot", str(chains), "-o", str(tmp_path / "c.png"))
    assert drawn.returncode == 0 and " chains drawn into " in drawn.stderr and (tmp_path / "c.png").exists()
    table = pq.read_table(hsps)
    qrec = table.column("qrec").to_numpy().copy()
    qrec[3] = 7
    bad = tmp_path / "bad.parquet"
    pq.write_table(table.set_column(table.schema.get_field_index("qrec"), "qrec",
                                    pa.array(qrec, type=table.schema.field("qrec").type))
                   .replace_schema_metadata(table.schema.metadata), bad)
    one_line_error(run("plot", str(bad), "-o", str(tmp_path / "b.png")), "record index is outside the table's")
    assert not (tmp_path / "b.png").exists()


def test_a_gap_fill_past_the_machines_memory_is_refused_naming_its_options(tmp_path):
    """Case 8: `--max-gap 1000000 --band 10000` (10 GB for one gap) ran out of memory with the advice
    "lower --tile-bytes", which changes nothing. A fill that may pass half of the machine's memory
    (2.5 TB here) is refused before anything is read, naming the options that bound it."""
    from gpu_kernels.align import fill_bytes
    from gpu_kernels.params import Params

    assert fill_bytes(Params()) < 51e6  # the defaults: a 10 kb gap in a band of 5,017 diagonals
    one_line_error(run("align", MYCO_232, MYCO_7422, "--max-gap", "100000000", "--band", "10000", "-o",
                       str(tmp_path / "o.paf")), "a gap's fill may hold 2500.1 GB", "lower --band, --max-gap or --max-shift")
    assert not (tmp_path / "o.paf").exists()


def test_the_posteriors_bytes_are_counted_in_the_fill_check(tmp_path):
    """Gamma's posterior holds two doubles a cell beside the direction byte: the check counted the byte
    alone (0.66 GB where 6.7 GB were held). A fill a quarter of this machine's memory passes without
    gamma and is refused with the distant preset's (17 bytes a cell), naming --gamma."""
    import os

    from gpu_kernels.align import fill_bytes
    from gpu_kernels.params import Params

    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    width = Params().chaining.max_shift + 2 * 10_000 + 1
    max_gap = memory // 4 // width
    plain, decoded = Params(max_gap=max_gap, band=10_000), Params(max_gap=max_gap, band=10_000, gamma=8.0)
    assert fill_bytes(decoded) == 17 * fill_bytes(plain) and fill_bytes(plain) < memory // 2 < fill_bytes(decoded)
    one_line_error(run("align", MYCO_232, MYCO_7422, "--preset", "distant", "--max-gap", str(max_gap), "--band", "10000",
                       "-o", str(tmp_path / "o.paf")), "with --gamma 8", "--gamma 0")
    assert not (tmp_path / "o.paf").exists()


@pytest.mark.parametrize("command", ["mems", "mums"])
def test_matches_are_written_a_batch_of_reads_at_a_time(command, tmp_path, monkeypatch):
    """Case 5: `mems` held every match of the run before it wrote any (long reads against a genome of
    many close repeat copies: killed at 130.8 GB). Each batch of reads is now written as it is found,
    the output's growth logged: the same text, a batch's matches held at a time."""
    from gpu_kernels import __main__ as cli
    from gpu_kernels import matches
    from gpu_kernels.fasta import read_fasta

    genome = read_fasta(MYCO_232)[0].codes
    letters = np.frombuffer(b"ACGTN", dtype=np.uint8)
    reads = tmp_path / "reads.fa"
    reads.write_text("".join(f">r{i}\n{letters[genome[at:at + 5000]].tobytes().decode()}\n"
                             for i, at in enumerate(range(0, 400_000, 4000))))
    whole, batched = tmp_path / "whole.txt", tmp_path / "batched.txt"
    assert cli.main([command, str(reads), MYCO_7422, "-l", "20", "-o", str(whole)]) == 0
    events = []
    found, parts = matches.batch_matches, cli.mummer_parts
    monkeypatch.setattr(matches, "QUERY_BATCH", 50_000)
    monkeypatch.setattr(matches, "batch_matches", lambda *a, **k: events.append("found") or found(*a, **k))
    monkeypatch.setattr(cli, "mummer_parts", lambda *a, **k: events.append("text") or parts(*a, **k))
    assert cli.main([command, str(reads), MYCO_7422, "-l", "20", "-o", str(batched)]) == 0
    assert batched.read_bytes() == whole.read_bytes() and whole.read_bytes().count(b"\n") > 300
    assert events.count("found") >= 8 and events.index("text") < len(events) - 1 - events[::-1].index("found")


def test_the_reports_front_tables_stay_narrow(tmp_path):
    """The report's rule graph is drawn beside its front text: a seven-column headline table and full
    FASTA paths in the genomes table ran under it. Six short columns, file names in the table, the
    paths in a sentence that wraps."""
    from types import SimpleNamespace

    from gpu_kernels.workflow.report import run_description

    (tmp_path / "coverage_genomes.tsv").write_text(
        "side\tcoverage_aligned\tcoverage_backbone\tcoverage_both\tidentity_aligned\n"
        "query\t0.9\t0.95\t0.97\t0.98\nreference\t0.8\t0.85\t0.9\t0.98\n")
    long = "/a/very/long/path/to/the/assemblies/of/this/study/GCA_000001405.29_GRCh38.p14_genomic.fna.gz"
    text = run_description({"genomes": {"A": long, "B": "/b.fa"}},
                           {"A": [SimpleNamespace(length=10)], "B": [SimpleNamespace(length=12)]},
                           [("A", "B")], {}, "numpy", str(tmp_path / "none"), [("A vs B", str(tmp_path))])
    tables = text.split(".. list-table::")[1:]
    assert len(tables) == 2
    for table in tables:
        header = table.split("   * - ", 2)[1]
        assert header.count("\n     - ") <= 5  # at most six columns
    assert "GCA_000001405.29_GRCh38.p14_genomic.fna.gz``" in tables[1] and long not in tables[1].split("\n\n")[0]
    assert f"``{long}``" in text and "covered and identity: by the backbone chains" in text
