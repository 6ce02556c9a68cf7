"""Hostile input (test_hostile.py has the faults): malformed FASTA and parameters, special files,
files that are not what they seem. Each asserts the exit status, one line on stderr naming
the file (and the record where there is one), no traceback, and no output left under its final name."""
import gzip
import os
import random
import stat
import subprocess
import sys

import pytest

from conftest import MYCO_232, MYCO_7422, ROOT
from gpu_kernels import Params
from test_hostile import one_config_error



_RNG = random.Random(1)
GOOD = ">g\n" + "".join(_RNG.choice("ACGT") for _ in range(200)) + "\n"


def run_cli(tmp_path, query_text, ref_text=GOOD, *options, raw=False):
    q = tmp_path / "q.fa"
    r = tmp_path / "r.fa"
    (q.write_bytes if raw else q.write_text)(query_text)
    r.write_text(ref_text)
    out = tmp_path / "out.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(q), str(r), "-o", str(out), *options],
                          cwd=ROOT, capture_output=True, text=True)
    return proc, out


@pytest.mark.parametrize("text, expected", [
    ("ACGT\n>x\nACGT\n", "before the first '>'"),
    (">a\n\n>b\n" + "ACGT" * 20 + "\n", "record 'a': empty record"),
    (">a\n" + "ACGT" * 20 + "\n>a\n" + "ACGT" * 20 + "\n", "record 'a': duplicate record name"),
    (">a\n" + "N" * 100 + "\n", "record 'a': no A, C, G or T"),
    (">\n" + "ACGT" * 20 + "\n", "empty record name"),
    (">a\nACGT12ACGT" + "ACGT" * 20 + "\n", "unexpected character '1'"),
    ("", "empty file"),
])
def test_malformed_fasta(tmp_path, text, expected):
    proc, out = run_cli(tmp_path, text)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and "q.fa" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_binary_bytes(tmp_path):
    proc, out = run_cli(tmp_path, b">a\n\x00\x01\x02\xff" + b"ACGT" * 20, raw=True)
    assert proc.returncode == 2 and "binary" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


@pytest.mark.parametrize("options, expected", [
    (["--k", "7"], "k = 7 is outside 8..32"),
    (["--k", "33"], "k = 33 is outside 8..32"),
    (["--min-identity", "101"], "min_identity = 101.0 is outside 0..100"),
    (["--min-identity", "-1"], "outside 0..100"),
])
def test_bad_parameters(tmp_path, options, expected):
    proc, out = run_cli(tmp_path, GOOD, GOOD, *options)
    assert proc.returncode == 2 and expected in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_missing_file(tmp_path):
    out = tmp_path / "out.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(tmp_path / "nope.fa"), str(tmp_path / "nope.fa"),
                           "-o", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "nope.fa: no such file" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


def test_gzip_and_good_run(tmp_path):
    q = tmp_path / "q.fa.gz"
    with gzip.open(q, "wt") as handle:
        handle.write(GOOD.lower())
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    out = tmp_path / "out.paf"
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(q), str(r), "-o", str(out), "--min-len", "32"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert rows and rows[0][:4] == ["g", "200", "0", "200"] and rows[0][4] == "+" and rows[0][9] == "200"
    assert proc.stderr.startswith("1 HSPs (1 forward, 0 reverse)")
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".part")]


def test_version():
    """--version names the program and the installed version (the console script is the same entry point)."""
    import gpu_kernels

    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "--version"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == f"gpu-genome-compare {gpu_kernels.__version__}"


def one_line_error(proc, *needles) -> None:
    """Exit 2, one line on stderr holding every needle, no traceback."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_truncated_and_fake_gzip(tmp_path):
    truncated, fake = tmp_path / "t.fa.gz", tmp_path / "f.fa.gz"
    with gzip.open(truncated, "wt") as handle:
        handle.write(GOOD * 50)
    data = truncated.read_bytes()
    truncated.write_bytes(data[:len(data) // 2])
    fake.write_bytes(b"\x1f\x8b" + b"not gzip at all" * 4)
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    for path in (truncated, fake):
        out = tmp_path / "out.paf"
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(path), str(r), "-o", str(out)],
                              cwd=ROOT, capture_output=True, text=True)
        one_line_error(proc, str(path))
        assert not out.exists()


def test_fastq_with_a_short_quality_line(tmp_path):
    fq, r, out = tmp_path / "q.fq", tmp_path / "r.fa", tmp_path / "out.txt"
    fq.write_text("@r1\n" + "ACGT" * 10 + "\n+\nIIII\n")
    r.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "mems", str(fq), str(r), "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True)
    one_line_error(proc, str(fq), "record 'r1'", "quality")
    assert not out.exists()


def test_a_directory_as_input(tmp_path):
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(tmp_path), str(r)],
                          cwd=ROOT, capture_output=True, text=True)
    one_line_error(proc, str(tmp_path), "directory")


def test_output_under_a_regular_file(tmp_path):
    """An output path whose folder is a file: the message says so (makedirs alone says "File exists")."""
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(r), str(r), "-o", str(r / "out.paf")],
                          cwd=ROOT, capture_output=True, text=True)
    one_line_error(proc, str(r), "not a directory")


def test_crlf_lowercase_and_iupac_are_read(tmp_path):
    """CRLF line ends, lowercase (soft-masked) bases and IUPAC codes are valid input."""
    seq = GOOD.split("\n")[1]
    q, r, out = tmp_path / "q.fa", tmp_path / "r.fa", tmp_path / "out.paf"
    q.write_bytes((">g desc\r\n" + seq[:100].lower() + "RYKM" + seq[104:] + "\r\n").encode())
    r.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(q), str(r), "-o", str(out),
                           "--min-len", "32"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr.startswith("1 HSPs"), proc.stderr
    assert out.read_text().split("\t")[0] == "g"


def test_an_output_that_is_an_input_is_refused(tmp_path):
    """`compare Q R -o Q`, `paf T -o T`, `mems Q R -o Q`: one line naming the output, exit 2, the input
    untouched (it was replaced by the output)."""
    import hashlib
    import shutil

    query = tmp_path / "q.fa.gz"
    shutil.copy(MYCO_232, query)
    table = tmp_path / "t.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(query), MYCO_7422, "--hsps", str(table)],
                   check=True, cwd=ROOT, capture_output=True)
    digest = {p: hashlib.sha1(p.read_bytes()).hexdigest() for p in (query, table)}
    for command in (["compare", str(query), MYCO_7422, "-o", str(query)],
                    ["compare", str(query), MYCO_7422, "--chains", str(query)],
                    ["paf", str(table), "-o", str(table)],
                    ["mems", str(query), MYCO_7422, "-o", str(query)]):
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", *command], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 2 and "is an input of this command" in proc.stderr, (command, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert digest == {p: hashlib.sha1(p.read_bytes()).hexdigest() for p in (query, table)}


def test_special_files_are_written_into_not_replaced(tmp_path):
    """An output that is a FIFO receives the text and stays a FIFO; as root, a character device (a
    private /dev/null made here) stays a device whatever is written to it: once, `-o /dev/null` made
    the machine's /dev/null a regular file."""
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()))
    reader.start()
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "-o", str(fifo)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and received[0].count(b"\n") == 597
    if os.geteuid() != 0:
        pytest.skip("making a character device needs root (CI runs as root)")
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "-o", str(null),
                           "--hsps", str(null), "--delta", str(null), "--chains", str(null), "--chain-file", str(null),
                           "--chains-table", str(null)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.stat(null).st_mode) and not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_record_names_pandas_would_read_as_missing(tmp_path):
    """Records named NA, nan, null and None are names: the plots rule draws their pair dotplots (once a
    traceback: pandas read them as missing values)."""
    from gpu_kernels.workflow.pictures import pair_pictures
    from wfhelpers import coverage_of

    rng = random.Random(3)
    genome = "".join(rng.choice("ACGT") for _ in range(8000))
    names = ("NA", "nan", "null", "None")
    (tmp_path / "q.fa").write_text("".join(f">{n}\n{genome[i * 2000:(i + 1) * 2000]}\n" for i, n in enumerate(names)))
    (tmp_path / "r.fa").write_text(f">N/A\n{genome}\n")
    table = tmp_path / "h.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(tmp_path / "q.fa"), str(tmp_path / "r.fa"),
                    "--hsps", str(table)], check=True, cwd=ROOT, capture_output=True)
    query, reference, tables = coverage_of(table, tmp_path)
    pair_pictures(str(table), str(tmp_path / "hsp_coverage.npz"), query, reference, str(tmp_path / "grid.png"), None, str(tmp_path / "pairs"),
                  50, None, "file", 1)
    assert sorted(p.name for p in (tmp_path / "pairs").iterdir()) == sorted(f"{n.replace('/', '_')}__N_A.png"
                                                                           for n in names)


def test_integral_floats_pass_and_parameters_past_32_bits_are_refused(tmp_path):
    """`k: 32.0` (YAML's float) is k 32; `--xdrop 2147483648` and `k: 32.5` get one line (once an
    OverflowError and a kernel's type error)."""
    from gpu_kernels.errors import InputError

    assert Params(k=32.0, min_len=64.0) == Params(k=32, min_len=64)
    for bad in ({"k": 32.5}, {"xdrop": 3_000_000_000}):
        with pytest.raises(InputError):
            Params(**bad)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--xdrop", "2147483648",
                           "-o", str(tmp_path / "o.paf")], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.strip() == "error: xdrop = 2147483648 is out of range (at most 2147483647)"


def test_filter_through_a_symlinked_folder_does_not_overwrite_its_table(tmp_path):
    """Case 3: an output folder that is a symlink to the table's folder is the table's folder: refused in
    one line, the table untouched (the guard compared abspath, and 597 rows became 149)."""
    import hashlib

    folder = tmp_path / "run"
    folder.mkdir()
    table = folder / "hsps.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(table)],
                   check=True, cwd=ROOT, capture_output=True)
    digest = hashlib.sha1(table.read_bytes()).hexdigest()
    os.symlink(folder, tmp_path / "link")
    os.symlink(table, tmp_path / "table_link.parquet")
    for given, outdir in ((table, tmp_path / "link"), (tmp_path / "table_link.parquet", folder)):
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "filter", str(given), "-o", str(outdir),
                               "--min-len", "100"],
                              cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 2 and "holds the table being filtered" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert hashlib.sha1(table.read_bytes()).hexdigest() == digest


@pytest.mark.parametrize("results, message", [
    ("''", "results: empty"),
    ("'out{set}'", "holds a brace"),
    ("a_file", "is a file, not a directory"),
])
def test_a_results_directory_that_cannot_be_one(tmp_path, results, message):
    """Case 10: `results: ''` (once written into /, even on -n), a file, braces (once a WildcardError):
    one line before any job runs."""
    from wfhelpers import workdir

    cwd = workdir(tmp_path)
    (cwd / "a_file").write_text("not a directory\n")
    one_config_error(cwd, f"results: {results}\n", message)
    assert (cwd / "a_file").read_text() == "not a directory\n"


@pytest.mark.parametrize("sweep, message", [
    ("sets: {k20: {k: 24}}\n  grid: {k: [20, 24]}", "sweep set 'k20' (of the grid) has the name of another set"),
    ("grid: {min_identity: [80, 80.0]}", "sweep set 'min_identity80' (of the grid) has the name of another set"),
    ("sets: {summary.tsv: {k: 24}}", "sweep set 'summary.tsv' (a named set): a set's name is a directory"),
])
def test_sweep_set_names_that_collide_or_are_no_directory(tmp_path, sweep, message):
    """Case 15: a named set lost to a grid point of its name, grid values 80 and 80.0, a set named like
    the run's own files (once a ChildIOException) or a path: one line before any job runs."""
    from wfhelpers import workdir

    one_config_error(workdir(tmp_path), "sweep:\n  " + sweep + "\n", message)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_as_input_is_refused_at_once(tmp_path, device):
    """Case 20: /dev/zero or /dev/urandom as input was read until memory ran out ("lower --tile-bytes",
    no file named): one line naming it. A pipe is still read (test below)."""
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", device, str(r)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    one_line_error(proc, device, "is a device or socket")


def test_a_pipe_is_read_as_input(tmp_path):
    """Process substitution and FIFOs stay inputs (zcat genome.fa.gz | ..., <(...))."""
    r = tmp_path / "r.fa"
    r.write_text(GOOD)
    fifo = tmp_path / "q.fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat {r} > {fifo}"])
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(fifo), str(r), "-o",
                           str(tmp_path / "o.paf")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    writer.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_gpu_lock_files_follow_no_link_and_need_no_write_access(tmp_path):
    """Case 2: a symbolic link planted at a lock file's name is refused in one line naming it, its
    target untouched (the lock was opened following links and truncated); a lock file the job may
    not write (another user's 0644 one) still locks; a held lock is not taken twice."""
    from gpu_kernels.device import try_lock
    from gpu_kernels.errors import InputError

    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    planted = tmp_path / "gpu_kernels-0000_01_00_0.lock"
    os.symlink(victim, planted)
    with pytest.raises(InputError) as refused:
        try_lock(str(planted))
    assert "symbolic link" in refused.value.line() and str(planted) in refused.value.line()
    assert victim.read_text() == "precious\n"
    lock = tmp_path / "gpu_kernels-0000_02_00_0.lock"
    lock.write_text("")
    os.chmod(lock, 0o444)
    held = try_lock(str(lock))
    assert held is not None and try_lock(str(lock)) is None
    held.close()
    again = try_lock(str(lock))
    assert again is not None and lock.read_text() == ""
    again.close()


@pytest.mark.parametrize("option", ["-o", "--hsps", "--delta", "--chains", "--chains-table"])
def test_a_full_disk_is_named(tmp_path, option):
    """Case 18: a write that fails for want of space said "No space left on device" and no file: one
    line naming the output (/dev/full; and a tmpfs of one page where this runs as root, nothing left there)."""
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, option, "/dev/full"],
                          cwd=ROOT, capture_output=True, text=True)
    one_line_error(proc, "/dev/full: No space left on device")
    small = tmp_path / "small"
    small.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", str(small)],
                                           capture_output=True).returncode:
        return
    try:
        out = small / "out.file"
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, option, str(out)],
                              cwd=ROOT, capture_output=True, text=True)
        # a delta's plain copy of a gzipped FASTA is written before it (formats/delta.py's readable_fasta)
        one_line_error(proc, f"{out}.reference.fa: No space left on device" if option == "--delta" else
                       f"{out}: No space left on device")
        assert os.listdir(small) == []
    finally:
        subprocess.run(["umount", str(small)], check=True)


def test_the_same_command_writes_the_same_table(tmp_path):
    """Case 19: `compare --hsps` twice gave tables that differed in their metadata's stage times; the
    times now stay in the log, and the tables (HSPs and chains) are byte for byte the same."""
    digests = []
    for run in range(2):
        paths = [tmp_path / f"{run}.parquet", tmp_path / f"{run}.chains.parquet"]
        subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(paths[0]),
                        "--chains-table", str(paths[1])], check=True, cwd=ROOT, capture_output=True)
        digests.append([p.read_bytes() for p in paths])
    assert digests[0] == digests[1]


def test_a_contig_shorter_than_k_is_skipped_with_a_line_in_the_log(tmp_path):
    """Case 22: a draft's contig shorter than k stopped the run (nucmer and minimap2 take it): it is
    said in the log and aligned nowhere; the other records' HSPs are those found without it."""
    import gzip as gz

    text = gz.decompress(open(MYCO_232, "rb").read()).decode()
    with_tiny = tmp_path / "q.fa"
    with_tiny.write_text(">tiny\nACGTACGTAC\n" + text)
    outs = {}
    for name, query in (("with", with_tiny), ("without", MYCO_232)):
        outs[name] = tmp_path / f"{name}.paf"
        proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(query), MYCO_7422, "-o",
                               str(outs[name]), "-v"], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        if name == "with":
            assert "record 'tiny': 10 bp is shorter than k = 32: no HSP can hold it" in proc.stderr
    rows = [line.split("\t") for line in outs["with"].read_text().splitlines()]
    assert rows and all(row[0] != "tiny" for row in rows)
    assert outs["with"].read_text() == outs["without"].read_text()


@pytest.mark.parametrize("profile", ["slurm", "multi-gpu"])
def test_a_dry_run_of_the_gpu_profiles_needs_no_gpu(tmp_path, profile):
    """Case 23: `snakemake -n --profile profiles/slurm` (and the multi-GPU profile) exited 1 on a host
    without a GPU: the check ran where the workflow is parsed, a cluster's submit host. A dry run and a
    cluster's submit host plan the jobs; a GPU job that finds no GPU fails where it runs."""
    from conftest import gpu_present
    from wfhelpers import snakemake, workdir

    if gpu_present():
        pytest.skip("a GPU is present: this checks a dry run on a host without one")
    if profile == "slurm":
        pytest.importorskip("snakemake_executor_plugin_slurm")
    cwd = workdir(tmp_path)
    proc = snakemake(cwd, "-n", "--profile", os.path.join(ROOT, "profiles", profile), check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "finds no CUDA device" not in proc.stderr and "compare" in proc.stdout + proc.stderr


@pytest.mark.parametrize("options", [["--preset", "distant", "--min-len", "50"], ["--seed", "12of19", "--k", "20"],
                                     ["--seed", "14of22", "--min-identity", "80", "--xdrop", "30"],
                                     ["--preset", "distant", "--match", "2", "--mismatch", "-4"]])
def test_options_spaced_seeds_do_not_read_are_refused(tmp_path, options):
    """--min-len, --min-identity, --k, --match, --mismatch and --xdrop changed nothing with spaced seeds
    (byte-identical outputs) while the metadata recorded them as applied: refused in one line, on the
    command line and in the workflow's engine section; the spaced seeds' own options still run."""
    from wfhelpers import snakemake, workdir

    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "align", MYCO_232, MYCO_7422, *options, "-o",
                           str(tmp_path / "a.paf")], cwd=ROOT, capture_output=True, text=True)
    one_line_error(proc, "not used with spaced seeds")
    assert not (tmp_path / "a.paf").exists()
    if options[0] == "--preset":
        cwd = workdir(tmp_path)
        key, value = options[2].lstrip("-").replace("-", "_"), options[3]
        (cwd / "s.yaml").write_text(f"genomes:\n  A: {MYCO_232}\n  B: {MYCO_7422}\n"
                                    f"engine:\n  preset: distant\n  {key}: {value}\n")
        proc = snakemake(cwd, "-n", "--configfile", "s.yaml", check=False)
        errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
        assert proc.returncode != 0 and len(errors) == 1 and f"engine.{key}" in errors[0], proc.stderr[-2000:]
