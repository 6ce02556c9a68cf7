"""Many genomes after a change of the genome list (issue 75): a genome replaced at its path, inserted,
removed or renamed reruns exactly the rows whose genomes it changes (a row holds the pairs of its genome
with those listed before it), and the set's tables are a fresh run's; names YAML reads as numbers or
null, and names pandas reads as missing (NA, nan, None), are kept as written."""
import re
import shutil

import pandas as pd
import pytest

from simulate_set import write_set  # bench/: the benchmarks' generator
from wfhelpers import snakemake, workdir

NAMES = [f"g{i:04d}" for i in range(1, 6)]


@pytest.fixture(scope="module")
def genomes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("set")
    write_set(5, str(folder), 30_000, (20_000, 35_000), height=0.06, draft=0.0, seed=3)
    return {name: folder / f"{name}.fa" for name in NAMES}


def run(cwd, listed: list[tuple[str, object]]) -> list[tuple[str, str]]:
    """The set's run on the genomes listed (name, FASTA path) in order: the (rule, genome) of each job
    that ran."""
    (cwd / "set.yaml").write_text("genomes:\n" + "".join(f"  {name}: {path}\n" for name, path in listed)
                                  + "results: results\n")
    proc = snakemake(cwd, "--cores", "2", "--configfile", "config/many_genomes.yaml", "set.yaml")
    text = proc.stdout + proc.stderr
    return sorted(re.findall(r"^(?:local)?rule (row|index):\n(?:.*\n){0,8}?\s+wildcards: .*genome=([^,\s]+)", text,
                             re.M))


def tables(cwd) -> dict:
    folder = cwd / "results" / "default"
    return {name: (folder / name).read_text() for name in ("ani.tsv", "ANIm_percentage_identity.tab",
                                                            "ANIm_alignment_coverage.tab")}


def fresh(tmp_path, listed) -> dict:
    folder = tmp_path / f"fresh{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    cwd = workdir(folder)
    run(cwd, listed)
    return tables(cwd)


def rows(*genomes) -> list[tuple[str, str]]:
    return sorted(("row", g) for g in genomes)


def test_a_changed_genome_list_reruns_exactly_the_rows_it_changes(tmp_path, genomes):
    (tmp_path / "work").mkdir()
    cwd = workdir(tmp_path / "work")
    own = {name: tmp_path / f"own_{name}.fa" for name in NAMES}
    for name in NAMES:
        shutil.copy(genomes[name], own[name])
    listed = [(name, own[name]) for name in NAMES[:4]]
    assert sorted(g for rule, g in run(cwd, listed) if rule == "row") == NAMES[1:4]
    # replaced at its path by another assembly: its index, its own row and the rows after it
    shutil.copy(genomes["g0005"], own["g0003"])
    assert run(cwd, listed) == sorted(rows("g0003", "g0004") + [("index", "g0003")])
    assert tables(cwd) == fresh(tmp_path, listed)
    # inserted second: its row and the rows after it
    listed = listed[:1] + [("new", genomes["g0002"])] + listed[1:]
    assert run(cwd, listed) == sorted(rows("new", "g0002", "g0003", "g0004") + [("index", "new")])
    assert tables(cwd) == fresh(tmp_path, listed)
    # removed again: the rows after it, and no row of it in the tables
    listed = listed[:1] + listed[2:]
    assert run(cwd, listed) == rows("g0002", "g0003", "g0004")
    assert tables(cwd) == fresh(tmp_path, listed) and "new" not in tables(cwd)["ani.tsv"]
    # renamed: its row under the new name and the rows after it; the last genome's alone
    listed = [listed[0], ("second", listed[1][1]), *listed[2:]]
    assert run(cwd, listed) == sorted(rows("second", "g0003", "g0004") + [("index", "second")])
    listed = [*listed[:3], ("last", listed[3][1])]
    assert run(cwd, listed) == sorted(rows("last") + [("index", "last")])
    assert tables(cwd) == fresh(tmp_path, listed)
    assert "Nothing to be done" in " ".join(snakemake(cwd, "--configfile", "config/many_genomes.yaml", "set.yaml",
                                                      "-n").stdout.split())


def test_names_yaml_and_pandas_would_change_are_kept_as_written(tmp_path, genomes):
    """`001:`, `0x1F:` and `null:` are a number and null to YAML, `NA`, `nan` and `None` missing values to
    pandas: each is a genome name in ani.tsv and in the matrices' rows and columns, with its values."""
    cwd = workdir(tmp_path)
    names = ["001", "0x1F", "null", "NA", "nan"]
    (cwd / "set.yaml").write_text("genomes:\n" + "".join(f"  {name}: {genomes[g]}\n" for name, g in zip(names, NAMES))
                                  + "results: results\n")
    snakemake(cwd, "--cores", "2", "--configfile", "config/many_genomes.yaml", "set.yaml")
    folder = cwd / "results" / "default"
    ani = pd.read_csv(folder / "ani.tsv", sep="\t", dtype=str, keep_default_na=False)
    assert sorted(set(ani["query"]) | set(ani["reference"])) == sorted(names) and len(ani) == 10
    assert (ani["ani"].astype(float) > 80).all()
    matrix = pd.read_csv(folder / "ANIm_percentage_identity.tab", sep="\t", index_col=0, dtype=str,
                         keep_default_na=False)
    assert list(matrix.index) == list(matrix.columns) == names
    assert (matrix.map(lambda v: v != "") .to_numpy()).all()
    assert sorted(p.name for p in (folder / "rows").iterdir()) == sorted(names[1:])
