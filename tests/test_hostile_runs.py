"""Hostile input in finished runs and workflows (test_hostile.py has the faults): broken tables, stale
filter folders, closed streams, Ctrl-C, odd genomes in the workflow. Each asserts the exit status, one line on stderr naming
the file (and the record where there is one), no traceback, and no output left under its final name."""
import os
import re
import subprocess
import sys

import pytest

from conftest import MYCO_232, MYCO_7422, ROOT
from gpu_kernels import Params, compare
from hspsets import hsp_set
from test_hostile import one_config_error
from test_hostile_input import one_line_error



def broken_tables(folder) -> dict:
    """Tables paf and filter once met with tracebacks or silent nonsense: name -> (path, what the line says)."""
    import json

    import pandas as pd
    import pyarrow.parquet as pq

    good = folder / "good.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(good)],
                   check=True, cwd=ROOT, capture_output=True)
    tables = {"truncated": (folder / "truncated.parquet", "not a readable Parquet table"),
              "empty": (folder / "empty.parquet", "not a readable Parquet table"),
              "pandas": (folder / "pandas.parquet", "no gpu_kernels metadata"),
              "no metadata": (folder / "nometa.parquet", "no gpu_kernels metadata"),
              "lengths": (folder / "lengths.parquet", "lies outside its records"),
              "records": (folder / "records.parquet", "record index is outside")}
    tables["truncated"][0].write_bytes(good.read_bytes()[:3000])
    tables["empty"][0].write_bytes(b"")
    pd.DataFrame({"a": [1, 2]}).to_parquet(tables["pandas"][0])
    table = pq.read_table(good)
    pq.write_table(table.replace_schema_metadata(None), tables["no metadata"][0])
    meta = json.loads(table.schema.metadata[b"gpu_kernels"])
    meta["query"]["lengths"] = [1000]
    pq.write_table(table.replace_schema_metadata({"gpu_kernels": json.dumps(meta)}), tables["lengths"][0])
    meta["query"]["names"], meta["query"]["lengths"] = [], []
    pq.write_table(table.replace_schema_metadata({"gpu_kernels": json.dumps(meta)}), tables["records"][0])
    return tables


def test_broken_or_contradictory_tables_get_one_line(tmp_path):
    """Case 7: `paf` and `filter` on a truncated, empty, pandas-written or metadata-less Parquet file gave
    20-50 line tracebacks, and a table whose rows contradict its metadata silent nonsense: one line
    naming the file, exit 2, no output under its final name."""
    for name, (path, says) in broken_tables(tmp_path).items():
        for command in (["paf", str(path), "-o", str(tmp_path / "out.paf")],
                        ["filter", str(path), "-o", str(tmp_path / "filtered")]):
            proc = subprocess.run([sys.executable, "-m", "gpu_kernels", *command], cwd=ROOT, capture_output=True,
                                  text=True)
            one_line_error(proc, str(path), says)
            assert not (tmp_path / "out.paf").exists() and not (tmp_path / "filtered" / "hsps.parquet").exists(), name


def test_filter_into_an_earlier_filters_folder_leaves_nothing_stale(tmp_path):
    """Case 16: a filter into a folder holding an earlier filter's outputs left its dotplots and files
    beside the new ones: with --no-plots the second run's folder holds no picture, and the pair
    dotplots of the first are gone; a file of the user's own there is kept."""
    table = tmp_path / "hsps.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--hsps", str(table)],
                   check=True, cwd=ROOT, capture_output=True)
    out = tmp_path / "filtered"
    run = lambda *extra: subprocess.run([sys.executable, "-m", "gpu_kernels", "filter", str(table), "-o", str(out),  # noqa: E731
                                         *extra], check=True, cwd=ROOT, capture_output=True)
    run("--min-len", "50")
    assert (out / "grid_dotplot.png").exists() and list((out / "pair_dotplots").glob("*.png"))
    (out / "notes.txt").write_text("mine\n")
    run("--min-len", "500", "--no-plots")
    assert not (out / "grid_dotplot.png").exists() and not (out / "dotplot.html").exists()
    assert not list((out / "pair_dotplots").glob("*.png")) and (out / "hsps.parquet").exists()
    assert (out / "notes.txt").read_text() == "mine\n"


def test_closed_standard_streams(tmp_path):
    """Case 17: with standard output closed, PAF bound for it gave a traceback after the whole
    comparison: one line at once, exit 2 (mems too); with an -o file it runs as usual. With standard
    error closed, a complete run exited 1: it exits 0 and its outputs are those of a plain run."""
    import shlex

    cli = f"{shlex.quote(sys.executable)} -m gpu_kernels"
    pair = f"{shlex.quote(MYCO_232)} {shlex.quote(MYCO_7422)}"
    for command in (f"{cli} compare {pair} >&-", f"{cli} mems {pair} -l 100 >&-"):
        proc = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=False, stderr=subprocess.PIPE, text=True)
        one_line_error(proc, "standard output is closed: name an output file with -o")
    plain, quiet = tmp_path / "plain.paf", tmp_path / "quiet.paf"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "-o", str(plain)], check=True,
                   cwd=ROOT, capture_output=True)
    for command in (f"{cli} compare {pair} -o {shlex.quote(str(quiet))} 2>&-",
                    f"{cli} compare {pair} -o {shlex.quote(str(quiet))} >&-"):
        proc = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0 and quiet.read_bytes() == plain.read_bytes(), proc.stderr


def test_a_workflow_genome_with_a_contig_shorter_than_k_is_planned(tmp_path):
    """Case 22 in the workflow: the plan stopped at such a record; now a note names it and the run goes on
    (a full run lists it in coverage_query.tsv, covered 0)."""
    import gzip as gz

    from wfhelpers import snakemake, workdir

    cwd = workdir(tmp_path)
    (cwd / "a.fa").write_text(">tiny\nACGTACGTAC\n" + gz.decompress(open(MYCO_232, "rb").read()).decode())
    (cwd / "c.yaml").write_text("genomes:\n  A: a.fa\n  B: resources/Mhyopneumoniae_7422.fa.gz\n")
    proc = snakemake(cwd, "--cores", "1", "--configfile", "c.yaml", "-n", check=False)
    assert proc.returncode == 0, proc.stderr[-1500:]
    assert "note: a.fa: 1 records shorter than k = 32 (the first 'tiny', 10 bp)" in proc.stderr


def test_a_workflow_genome_with_a_scaffold_of_gaps_runs_through(tmp_path):
    """Issue 35's read sets, and drafts: a record of no A, C, G or T (an all-N read, a scaffold of gaps)
    stopped the workflow's index; now the log says it and the run goes on (it is listed uncovered in
    coverage_query.tsv), as nucmer, minimap2 and mummer take such records. The command line's compare
    still refuses one (test_malformed_fasta)."""
    import gzip as gz

    from wfhelpers import snakemake, workdir

    cwd = workdir(tmp_path)
    (cwd / "a.fa").write_text(">gaps\n" + "N" * 5000 + "\n" + gz.decompress(open(MYCO_232, "rb").read()).decode())
    (cwd / "c.yaml").write_text("genomes:\n  A: a.fa\n  B: resources/Mhyopneumoniae_7422.fa.gz\noutputs:\n"
                                "  pair_dotplots: false\n  html_dotplot: false\n")
    proc = snakemake(cwd, "--cores", "2", "--configfile", "c.yaml", check=False)
    assert proc.returncode == 0, proc.stderr[-1500:]
    rows = [line.split("\t") for line in (cwd / "results/default/A_vs_B/coverage_query.tsv").read_text().splitlines()]
    gaps = [row for row in rows if row[1] == "gaps"]
    assert len(gaps) == 1 and gaps[0][2] == "5000" and float(gaps[0][-1]) == 0.0
    logs = "".join(p.read_text() for p in (cwd / "results/logs").rglob("*.log"))
    assert "record 'gaps' has no A, C, G or T" in logs


def test_a_uuid_in_a_record_name_stays_in_the_html_dotplot():
    """Case 14: the HTML dotplot's ids are made stable by replacing Bokeh's random UUIDs, and a UUID in
    a record name was replaced with them: the user's UUIDs stay, Bokeh's are still replaced."""
    from gpu_kernels.workflow.html import _stable_ids

    name = "contig_3f2b8c1e-9a4d-4e7b-8c2a-1d5e6f7a8b9c"
    page = '<div id="0b8e8f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b"></div><span>' + name + "</span>"
    once = _stable_ids(page, [name])
    assert name in once and "0b8e8f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b" not in once
    assert _stable_ids(page, [name]) == once


def test_nested_yaml_aliases_are_refused_before_they_expand(tmp_path):
    """Case 21: nested YAML aliases in a sweep.grid value (a few hundred bytes standing for 10^9 values)
    exhausted memory (under a 3 GB limit: a MemoryError traceback after 53 s): one line at once."""
    from wfhelpers import workdir

    lines = ["sweep:", "  grid:", "    k:", "      - 20", "      - [&a1 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"         , &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(2, 10)] + ["        ]"]
    import time

    start = time.perf_counter()
    one_config_error(workdir(tmp_path), "\n".join(lines) + "\n", "once its YAML aliases (*name) are expanded")
    assert time.perf_counter() - start < 30


def test_the_tests_that_need_several_gb_skip_unless_asked(tmp_path):
    """Case 24: `pytest` as the README gives it peaked at 6.4 GB (the 2^31-base record); such tests are
    marked bigmem and run only where BIGMEM_TESTS=1 (CI sets it)."""
    env = {key: value for key, value in os.environ.items() if key != "BIGMEM_TESTS"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_hostile.py", "-k",
                           "record_past_2_31"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and "1 skipped" in proc.stdout and "BIGMEM_TESTS=1" in proc.stdout, proc.stdout[-800:]


def test_all_vs_all_takes_the_named_reference(tmp_path):
    """comparisons.reference (issue 37): in all-vs-all the genome listed first was always the query, so a
    draft listed last became the reference; the named genome is the reference of every pair it is in."""
    from wfhelpers import snakemake, workdir

    cwd = workdir(tmp_path)
    (cwd / "c.yaml").write_text("genomes:\n  A: resources/Mhyopneumoniae_232.fa.gz\n"
                                "  B: resources/Mhyopneumoniae_7422.fa.gz\ncomparisons:\n  reference: A\n")
    proc = snakemake(cwd, "--cores", "1", "--configfile", "c.yaml", "-n", check=False)
    assert proc.returncode == 0 and "B_vs_A" in proc.stdout and "A_vs_B" not in proc.stdout, proc.stderr[-1500:]
    one_config_error(cwd, "comparisons:\n  reference: C\n", "comparisons.reference: C is not listed under genomes")


def test_a_table_of_a_million_long_record_names_reads_back(tmp_path):
    """Case 9: a draft of 1.5 M records of 70-character names gave a table (exit 0) that nothing could
    read back (its footer over Thrift's 100 MB string limit): the record tables are stored compressed
    past 16 MB, and pyarrow, read_meta and paf read the table."""
    import numpy as np
    import pyarrow.parquet as pq

    from gpu_kernels.formats import HspWriter, read_meta

    n = 1_500_000
    names = [f"contig_{i:07d}_" + "x" * 55 for i in range(n)]
    lengths = np.full(n, 1000, dtype=np.int64)
    table = tmp_path / "t.parquet"
    rows = {"qrec": np.array([0, n - 1], dtype=np.int32), "rrec": np.array([0, 1], dtype=np.int32),
            "qstart": np.array([0, 10], dtype=np.int64), "qend": np.array([100, 110], dtype=np.int64),
            "rstart": np.array([5, 20], dtype=np.int64), "strand": np.array([0, 1], dtype=np.int8),
            "score": np.array([100, 100], dtype=np.int64), "identities": np.array([100, 100], dtype=np.int64)}
    with HspWriter(str(table), names, lengths, ["r1", "r2"], [1000, 1000]) as writer:
        writer.write(rows)
    assert pq.read_table(table).num_rows == 2  # pyarrow's default Thrift limits
    meta = read_meta(str(table))
    assert meta["query"]["names"][n - 1] == names[n - 1] and len(meta["query"]["lengths"]) == n
    proc = subprocess.run([sys.executable, "-m", "gpu_kernels", "paf", str(table)], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0 and proc.stdout.splitlines()[1].startswith(names[n - 1]), proc.stderr[-500:]


def signal_inside_a_compiled_stage(tmp_path, signum) -> tuple:
    """A compare run (k 8 on the bundled pair: over a minute in the seeds and extension stages) sent
    signum a second into its seeds stage: (its exit status, the lines it said but -v's log, all its
    stderr, the seconds from the signal to its end). Its output is tmp_path/o.paf."""
    import time

    out = tmp_path / "o.paf"
    proc = subprocess.Popen([sys.executable, "-m", "gpu_kernels", "compare", MYCO_232, MYCO_7422, "--k", "8",
                             "--backend", "numpy", "-o", str(out), "-v"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    while True:  # until the seeds stage has begun (the log's words line)
        line = proc.stderr.readline()
        assert line, "the run ended before its words stage"
        if " words: " in line:
            break
    time.sleep(1.0)
    sent = time.perf_counter()
    proc.send_signal(signum)
    err = proc.communicate(timeout=120)[1]
    said = [line for line in err.strip().splitlines() if not re.match(r"\d{4}-\d\d-\d\d ", line)]
    return proc.returncode, said, err, time.perf_counter() - sent


def test_ctrl_c_inside_a_compiled_stage_ends_the_run_at_once(tmp_path):
    """Case 11: Ctrl-C waited until the running compiled stage returned (12.6 s late on a 1 Mbp pair).
    The caller of a compiled stage now waits on its threads looking for the signal every 50 ms: k 8 on
    the bundled pair spends over a minute in the seeds and extension stages, and the signal sent in
    them ends the run within a second or two (one line, status 130, no output)."""
    import signal

    status, said, err, late = signal_inside_a_compiled_stage(tmp_path, signal.SIGINT)
    assert status == 130 and said == ["error: interrupted"], err[-800:]
    assert "Traceback" not in err
    assert late < 3.0, f"the run ended {late:.1f} s after Ctrl-C"
    assert not (tmp_path / "o.paf").exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_a_cpu_batch_holds_at_most_its_budget_of_seeds(monkeypatch):
    """Case 12: CPU memory grew with the kept seeds (k 8 on the bundled pair: 5.7 GB), and the
    out-of-memory advice (--tile-bytes) did nothing on the CPU. A batch of query words is now cut where
    its seeds would pass the budget (--tile-bytes, 256 MiB by default), so what a batch holds is
    bounded, with the same HSPs."""
    from gpu_kernels.backend import CPU_SEED_BYTES
    from gpu_kernels.fasta import Record, read_fasta
    from gpu_kernels.seeds import KeptSeeds

    held = []
    seeds = KeptSeeds.seeds

    def counted(self, i0, i1):
        n, keys = seeds(self, i0, i1)
        held.append((n, keys.size, self.qkeys[i0] == self.qkeys[i1 - 1]))
        return n, keys

    monkeypatch.setattr(KeptSeeds, "seeds", counted)
    query = [Record(r.name, r.codes[:120_000]) for r in read_fasta(MYCO_232)]
    reference = [Record(r.name, r.codes[:120_000]) for r in read_fasta(MYCO_7422)]
    budget = 1 << 16
    few = compare(query, reference, Params(k=8, tile_bytes=budget), backend="numpy")
    assert len(held) > 20 and all(n <= budget // CPU_SEED_BYTES or one_key for n, _, one_key in held)
    held.clear()
    whole = compare(query, reference, Params(k=8), backend="numpy")
    assert len(held) == 2  # a batch a strand
    assert hsp_set(few) == hsp_set(whole) and len(hsp_set(whole)) > 0


def test_ctrl_c_gives_one_line_and_leaves_no_output(tmp_path):
    """Case 11, the first part: Ctrl-C printed a 29-line KeyboardInterrupt traceback; now one line, the
    status a shell gives SIGINT (130), and no output under its final name."""
    import signal
    import time

    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from simulate import heavy_pair, write_fasta

    first, second, fm, sm = heavy_pair(int(12e6), 1, seed=3)
    a, b = tmp_path / "a.fa", tmp_path / "b.fa"
    write_fasta(str(a), ["a"], first, fm)
    write_fasta(str(b), ["b"], second, sm)
    out = tmp_path / "o.paf"
    # exhaustive (the repeat-rich pair would be seeded in fast mode, a line and a shorter run): a run to interrupt
    proc = subprocess.Popen([sys.executable, "-m", "gpu_kernels", "compare", str(a), str(b), "-o", str(out),
                             "--max-freq", "0"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    if proc.returncode == 0:
        pytest.skip("the comparison finished before the signal on this machine")
    assert proc.returncode == 130 and err.strip() == "error: interrupted", err[-800:]
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def _walks(q, r, sq, sr, k, ext):
    """(qstart, qend, score, identities) of each seed and the bases the walks read (extend.c)."""
    import numpy as np

    from gpu_kernels import native

    out = [np.empty(sq.size, dtype=np.int64) for _ in range(4)]
    reads = native.cpu().extend(q, r, np.ascontiguousarray(sq, dtype=np.int64), np.ascontiguousarray(sr, dtype=np.int64),
                                k, ext.match, ext.mismatch, ext.n_score, ext.xdrop, float(ext.min_identity), *out, 2)
    return tuple(out), reads


def test_a_long_alignment_of_substitutions_is_walked_in_linear_time():
    """Case 8: 5 % substitutions and no indels over 300 kbp: kept seeds every few dozen bases
    each walked to the end cost the square of the length (11-15 s at 1 Mbp). The walks of a diagonal
    read each base a bounded number of times now (a few walks alone, then all side by side once they
    read more than three times the stretch between the seeds), and end where each alone would."""
    import numpy as np

    from gpu_kernels.params import Extension
    from gpu_kernels.seqset import make_seqset

    rng = np.random.default_rng(5)
    size, k = 300_000, 32
    base = rng.integers(0, 4, size).astype(np.uint8)
    other = base.copy()
    hit = np.flatnonzero(rng.random(size) < 0.05)
    other[hit] = (other[hit] + rng.integers(1, 4, hit.size)) % 4
    same = np.convolve((base == other).astype(np.int32), np.ones(k, dtype=np.int32), "valid") == k
    starts = np.flatnonzero(same)
    kept = starts[np.concatenate([[True], np.diff(starts) >= 2 * k])]  # the diagonal filter's survivors
    assert kept.size > 1000
    q, r = make_seqset(["q"], [base]), make_seqset(["r"], [other])
    (qstart, qend, score, ids), reads = _walks(q.codes, r.codes, q.starts[0] + kept, r.starts[0] + kept, k,
                                                  Extension())
    assert reads <= 8 * size  # each seed alone: about kept.size * size / 2 (over 400 M here)
    assert (qstart == q.starts[0]).all() and (qend == q.starts[0] + size).all()
    few = kept[[0, kept.size // 2, -1]]
    (qstart1, qend1, score1, ids1), reads1 = _walks(q.codes, r.codes, q.starts[0] + few, r.starts[0] + few, k,
                                                       Extension())
    assert reads1 >= size  # the counter counts: the whole alignment is read
    assert score1.tolist() == score[[0, kept.size // 2, -1]].tolist() == [int(score[0])] * 3


def test_filter_finds_the_genomes_for_the_chains_or_says_it_cannot(tmp_path):
    """The chains' blocks are placed on the sequences, so `filter` needs the genomes: a table whose FASTA
    files are gone gets one line and exit 2 before any output; --query and --reference name them;
    genomes that are not the table's get one line and leave no table behind."""
    import shutil

    a, b = tmp_path / "a.fa.gz", tmp_path / "b.fa.gz"
    shutil.copy(MYCO_232, a)
    shutil.copy(MYCO_7422, b)
    table = tmp_path / "hsps.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", str(a), str(b), "--hsps", str(table),
                    "--chains", str(tmp_path / "c.paf")], check=True, cwd=ROOT, capture_output=True)
    out = tmp_path / "f"
    run = lambda *extra: subprocess.run([sys.executable, "-m", "gpu_kernels", "filter", str(table), "-o", str(out),  # noqa: E731
                                         "--no-plots", *extra], cwd=ROOT, capture_output=True, text=True)
    assert run().returncode == 0 and (out / "chains.paf").read_bytes() == (tmp_path / "c.paf").read_bytes()
    shutil.rmtree(out)
    a.rename(tmp_path / "moved.fa.gz")
    one_line_error(run(), str(table), "give --query and --reference")
    assert not out.exists() or not any(out.iterdir())
    assert run("--query", str(tmp_path / "moved.fa.gz"), "--reference", str(b)).returncode == 0
    assert (out / "chains.paf").read_bytes() == (tmp_path / "c.paf").read_bytes()
    shutil.rmtree(out)
    one_line_error(run("--query", str(b), "--reference", str(b)), str(b), "not those of the HSP table's query")
    assert not (out / "hsps.parquet").exists()



def test_filter_reads_the_fasta_files_the_table_was_made_from_or_refuses(tmp_path):
    """`filter` run from another folder that holds other files of the same names (same records, other
    bases) once chained the HSPs against those and exited 0: the table names its FASTA files by their
    absolute paths, with their size and time, and a file changed since is refused in one line."""
    import os
    import shutil

    made, other = tmp_path / "made", tmp_path / "other"
    for folder in (made, other):
        folder.mkdir()
    shutil.copy(MYCO_232, made / "a.fa.gz")
    shutil.copy(MYCO_7422, made / "b.fa.gz")
    table = made / "hsps.parquet"
    subprocess.run([sys.executable, "-m", "gpu_kernels", "compare", "a.fa.gz", "b.fa.gz", "--hsps", "hsps.parquet",
                    "--chains", "c.paf"], check=True, cwd=made, capture_output=True)
    # the other folder: a.fa.gz and b.fa.gz of the same records and lengths, the bases of the reference twice
    shutil.copy(MYCO_7422, other / "a.fa.gz")
    shutil.copy(MYCO_7422, other / "b.fa.gz")
    run = lambda out, cwd: subprocess.run([sys.executable, "-m", "gpu_kernels", "filter", str(table), "-o", str(out),  # noqa: E731
                                           "--no-plots"], cwd=cwd, capture_output=True, text=True)
    assert run(other / "f", other).returncode == 0
    assert (other / "f" / "chains.paf").read_bytes() == (made / "c.paf").read_bytes()
    os.utime(made / "a.fa.gz", ns=(0, 10**18))  # the file the table names, touched since
    one_line_error(run(other / "g", other), str(made / "a.fa.gz"), "has changed since", "give --query and --reference")
    assert not (other / "g").exists() or not any((other / "g").iterdir())


def test_a_full_disk_under_the_job_log_prints_no_logging_stack(tmp_path):
    """A job's log file on a full disk (/dev/full: every write fails with ENOSPC): the job's lines are
    dropped, and no "--- Logging error ---" stack reaches stderr beside the job's one-line error."""
    import subprocess
    import sys

    code = ("import logging; from gpu_kernels.workflow.jobs import setup_logging; setup_logging('/dev/full'); "
            "logging.getLogger('workflow').info('a line'); logging.getLogger('workflow').error('another')")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and "Logging error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
