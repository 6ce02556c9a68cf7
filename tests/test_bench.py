"""The benchmarks stay runnable: every script's --help works, the index lists every script, and no
benchmark reaches into tests/ (the tests may use bench/common, never the reverse)."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")


def scripts() -> list[str]:
    out = []
    for folder in (BENCH, os.path.join(BENCH, "studies")):
        out += [os.path.relpath(os.path.join(folder, f), BENCH) for f in sorted(os.listdir(folder))
                if f.endswith((".py", ".sh"))]
    return out


@pytest.mark.parametrize("script", scripts())
def test_every_bench_script_answers_help(script):
    path = os.path.join(BENCH, script)
    command = ["bash", path, "--help"] if script.endswith(".sh") else [sys.executable, path, "--help"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage" in proc.stdout.lower()


def test_the_index_lists_every_script_and_helper():
    index = open(os.path.join(BENCH, "README.md")).read()
    named = set(re.findall(r"`((?:studies/|common/)?[a-z_]+\.(?:py|sh))", index))
    helpers = {os.path.join("common", f) for f in os.listdir(os.path.join(BENCH, "common"))
               if f.endswith(".py") and f != "__init__.py"}
    assert set(scripts()) | helpers <= named, sorted(set(scripts()) | helpers - named)


def test_no_bench_script_imports_the_tests():
    for folder, subfolders, files in os.walk(BENCH):
        subfolders[:] = [f for f in subfolders if f != "out"]  # bench/out: a run's outputs, not the project's
        for name in files:
            if name.endswith((".py", ".sh")):
                text = open(os.path.join(folder, name)).read()
                assert not re.search(r"""sys\.path\.insert\([^)]*["']tests["']|from (wfhelpers|hspsets|oracle|generate|conftest) import""",
                                     text), os.path.join(folder, name)


def test_lastz_blocks_pair_the_bases_lastz_aligns():
    """bench/common/truth.py's lastz_blocks (what identity_coverage.py counts LASTZ's columns by): a
    forward alignment with an insertion and a deletion, and a reverse one (LASTZ counts its query on the
    reverse strand), each block pairing identical bases; names cut at '|' as LASTZ cuts them."""
    import numpy as np

    sys.path.insert(0, BENCH)
    from common.truth import lastz_blocks

    from gpu_kernels.encode import COMPLEMENT

    rng = np.random.default_rng(5)
    ref = rng.integers(0, 4, 300).astype(np.uint8)
    fwd = np.concatenate((ref[20:50], [ref[50] ^ 1], ref[50:80], ref[90:120]))  # 1 inserted, 10 deleted
    rev = COMPLEMENT[ref[150:210][::-1]]
    query = {"q|a": np.concatenate((fwd, rev))}
    rows = ["#name1\tstart1\tend1\tname2\tstart2\tend2\tstrand2\tnmatch\tnmismatch\tcigarx",
            "r\t21\t120\tq\t1\t91\t+\t90\t0\t30=I30=10D30=",
            # the reverse one: query positions 92..151 forward are 1..60 on the reverse strand
            "r\t151\t210\tq\t1\t60\t-\t60\t0\t60="]
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"lastz_blocks_{os.getpid()}.general")
    with open(path, "w") as handle:
        handle.write("\n".join(rows) + "\n")
    try:
        blocks = list(lastz_blocks(path, {"q|a": 151}, ["r|x"], numbered=True))
    finally:
        os.remove(path)
    assert [b[3:6] for b in blocks] == [(0, 20, 30), (31, 50, 30), (61, 90, 30), (91, 150, 60)]
    assert {b[0] for b in blocks} == {"q|a"} and {b[1] for b in blocks} == {"r|x"}
    for qname, rname, reverse, q, r, n, row in blocks:
        rs = ref[r:r + n]
        assert (query[qname][q:q + n] == (COMPLEMENT[rs[::-1]] if reverse else rs)).all(), (q, r, reverse)


def test_every_name_a_benchmark_imports_from_the_package_exists():
    """A study's imports inside its functions are not run by --help: each name must still exist."""
    import ast
    import importlib

    missing = []
    for folder, subfolders, files in os.walk(BENCH):
        subfolders[:] = [f for f in subfolders if f != "out"]
        for name in (f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            for node in ast.walk(ast.parse(open(path).read())):
                if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gpu_kernels")):
                    continue
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if not hasattr(module, alias.name):
                        try:
                            importlib.import_module(f"{node.module}.{alias.name}")
                        except ImportError:
                            missing.append(f"{os.path.relpath(path, BENCH)}: {node.module}.{alias.name}")
    assert not missing, missing


def test_shifts_count_an_indel_placed_elsewhere_in_its_run(tmp_path):
    """bench/common/truth.py's Shifts (score_alignments.py --shifts): with one A of AAAA deleted in the
    reference, the pairs of an alignment that deletes another A of the run are equal shifts, standing for
    the true pairs they move; a pair off by one outside a run, or of unequal bases, is not."""
    import numpy as np

    sys.path.insert(0, BENCH)
    from common.truth import Shifts, Truth

    ancestor = "CGTAAAACGT"
    reference = ancestor[:5] + ancestor[6:]  # the third A (ancestral base 5) deleted
    (tmp_path / "p_a.fa").write_text(f">c\n{ancestor}\n")
    (tmp_path / "p_b.fa").write_text(f">c\n{reference}\n")
    origins = np.arange(1, 11)
    np.savez_compressed(tmp_path / "p_truth.npz", **{"query/c": origins, "reference/c": np.delete(origins, 5)})
    truth = Truth(str(tmp_path / "p_truth.npz"))
    shifts = Shifts(truth, str(tmp_path / "p_a.fa"), str(tmp_path / "p_b.fa"))
    # query bases 4 and 5 against reference bases 3 and 4 (the first A deleted instead); 7 against 7 (C, G)
    equal, stands_for = shifts.equal("c", np.array([4, 5, 7]), np.array([3, 4, 7]), 0)
    assert equal.tolist() == [True, True, False]
    assert stands_for[:2].tolist() == [3, 4]  # the true pairs (3, 3) and (4, 4) that the deletion moved
    # on the reverse strand the same letters do not match (A against T's complement is not a run's shift)
    assert not shifts.equal("c", np.array([4]), np.array([3]), 1)[0].any()


def test_a_maf_pairs_truth_pairs_the_bases_its_columns_hold(tmp_path):
    """bench/maf_pair.py: from a MAF of two species, one block on the query's reverse strand and one
    species missing from a third block, every base the truth pairs holds the letter of its partner (or
    its complement, across strands), and every column of two bases is a pair of the truth."""
    import numpy as np

    sys.path.insert(0, BENCH)
    from common.truth import Truth

    rng = np.random.default_rng(5)

    def bases(n):
        return "".join(rng.choice(list("ACGT"), n))

    first, second = bases(40), bases(30)
    gapped = first[:10] + "--" + first[12:]  # the query lacks two of the reference's bases
    text = ("##maf version=1\n\na\ns ref.c1 0 40 + 100 " + first + "\ns qry.x 50 38 + 200 " + gapped + "\n\n"
            "a\ns ref.c1 40 30 + 100 " + second + "\ns qry.y 10 30 - 80 " + second.lower() + "\n\n"
            "a\ns ref.c1 70 20 + 100 " + bases(20) + "\n\n")
    (tmp_path / "in.maf").write_text(text)
    subprocess.run([sys.executable, os.path.join(BENCH, "maf_pair.py"), str(tmp_path / "in.maf"), "--query", "qry",
                    "--reference", "ref", "--n-gaps", "0", "--out", str(tmp_path / "p")], check=True,
                   capture_output=True)
    truth = Truth(str(tmp_path / "p_truth.npz"))

    def read(path):
        return "".join(line.strip() for line in open(path) if not line.startswith(">"))

    query, reference = read(tmp_path / "p_a.fa"), read(tmp_path / "p_b.fa")
    assert len(reference) == 70 and len(query) == 68  # the block without the query is left out of both
    partner, strand = truth.partner["c1"], truth.strand["c1"]
    complement = str.maketrans("ACGT", "TGCA")
    paired = np.flatnonzero(partner >= 0)
    assert paired.size == 38 + 30 and set(strand[paired].tolist()) == {0, 1}
    for q in paired:
        r = reference[partner[q]]
        assert query[q] == (r.translate(complement) if strand[q] else r)
