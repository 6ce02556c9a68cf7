"""The many-genomes screen (gpu_kernels/workflow/screen.py): the containment of two screen sketches
against plain sets of every 20-mer's hash, the pairs a row screens, and a many-genomes run in which an
unrelated genome's pairs are screened while the related pair is aligned as before."""
import gzip
import math

import numpy as np
import pandas as pd
import pytest

from conftest import MYCO_232, MYCO_7422
from gpu_kernels.workflow import screen
from oracle_sketch import oracle_sketch
from wfhelpers import read_tsv, snakemake, workdir

LETTERS = np.array(list("ACGT"))


def drawn(rng, size: int) -> str:
    return "".join(LETTERS[rng.integers(0, 4, size)])


def mutated(rng, seq: str, rate: float) -> str:
    codes = np.array(list(seq))
    at = rng.random(codes.size) < rate
    codes[at] = LETTERS[(np.searchsorted(LETTERS, codes[at]) + rng.integers(1, 4, int(at.sum()))) % 4]
    return "".join(codes)


def sketch_of(records: list[str]) -> tuple[np.ndarray, int]:
    from gpu_kernels.encode import ENCODE

    codes = [ENCODE[np.frombuffer(r.encode(), dtype=np.uint8)] for r in records]
    lengths = np.array([c.size for c in codes], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return screen.screen_sketch(np.concatenate(codes), starts, lengths)


def oracle_containment(a: list[str], b: list[str], shift: int) -> tuple[int, int]:
    """(shared, the smaller's) of the distinct site hashes of every record, by Python sets."""
    x, y = ({s[0] for s in oracle_sketch(records, shift)[0]} for records in (a, b))
    small, large = (x, y) if len(x) <= len(y) else (y, x)
    return len(small & large), len(small)


def test_containment_equals_plain_sets_of_every_20mer():
    rng = np.random.default_rng(5)
    a = [drawn(rng, 30_000), drawn(rng, 9_000)]
    b = [mutated(rng, a[0], 0.03)[5_000:] + drawn(rng, 4_000), mutated(rng, a[1], 0.2)]
    c = [drawn(rng, 12_000) + "N" * 50 + a[1][:3_000]]
    sketches = {name: sketch_of(records) for name, records in (("a", a), ("b", b), ("c", c))}
    assert all(shift == 0 for _, shift in sketches.values())  # small genomes: every 20-mer kept
    for x, y in (("a", "b"), ("a", "c"), ("b", "c")):
        records = {"a": a, "b": b, "c": c}
        got = screen.containment(sketches[x], sketches[y])
        assert got == oracle_containment(records[x], records[y], 0)
        assert got[0] > 0
        # one sketch coarser: both compared at its shift (a FracMinHash subset of the finer one)
        coarse = (screen.coarser(sketches[y][0], 3), 3)
        assert screen.containment(sketches[x], coarse) == oracle_containment(records[x], records[y], 3)
    shared, sites = screen.containment(sketches["a"], sketches["b"])
    assert screen.containment_ani(shared, sites) == pytest.approx(100 * (shared / sites) ** 0.05)
    assert 90 < screen.containment_ani(shared, sites) < 100
    assert math.isnan(screen.containment_ani(0, 0)) and screen.containment_ani(0, 5) == 0


def test_the_shift_keeps_about_screen_sites_and_the_rule_needs_enough_of_them():
    for bases in (1, 10_000, 65_536, 1_000_000, 5_000_000, 3_000_000_000):
        shift = screen.screen_shift(bases)
        assert bases / 2 ** shift <= screen.SCREEN_SITES and (shift == 0 or bases / 2 ** (shift - 1) > screen.SCREEN_SITES)
    assert screen.is_screened(0, screen.MIN_SITES, 70) and not screen.is_screened(0, screen.MIN_SITES - 1, 70)
    assert not screen.is_screened(0, 10 ** 6, 0)  # 0: nothing screened
    at = math.ceil(10_000 * 0.7 ** 20)  # the fewest shared of 10,000 at 70 %
    assert not screen.is_screened(at, 10_000, 70) and screen.is_screened(at - 1, 10_000, 70)


def test_a_row_screens_its_unrelated_pairs_and_aligns_the_others_as_before(tmp_path):
    """align_row with the screen: the unrelated genome's pairs are rows marked screened (no ANI, no
    files); the related pair's files and row equal those of a row run without the screen."""
    from gpu_kernels.params import Params
    from gpu_kernels.workflow.genome import Genome, write_index
    from gpu_kernels.workflow.many import align_row

    rng = np.random.default_rng(8)
    (tmp_path / "random.fa").write_text(">random\n" + drawn(rng, 400_000) + "\n")
    (tmp_path / "small.fa").write_text(">small\n" + drawn(rng, 5_000) + "\n")
    fasta = {"a": MYCO_232, "b": MYCO_7422, "random": str(tmp_path / "random.fa"), "small": str(tmp_path / "small.fa")}
    genomes = {}
    for name, path in fasta.items():
        index = [str(tmp_path / f"{name}.{kind}") for kind in ("2bit", "tsv", "npz")]
        write_index(path, *index[:2], 50_000_000, index[2])
        genomes[name] = Genome(name, *index)
    pairs = [("a", "b"), ("random", "b"), ("small", "b")]
    out = {}
    for cut in (70, 0):
        folder = tmp_path / f"screen{cut}"
        folder.mkdir()

        def paths(q, r, folder=folder):
            return {kind: str(folder / f"{q}_{r}.{kind}") for kind in ("paf", "snps")}

        align_row(pairs, genomes, fasta, Params(), "numpy", paths, str(folder / "rows.tsv"), screen=cut)
        out[cut] = ({p.name: p.read_bytes() for p in folder.iterdir() if p.name != "rows.tsv"},
                    pd.read_csv(folder / "rows.tsv", sep="\t", keep_default_na=False, index_col=[0, 1], dtype=str))
    files, rows = out[70]
    assert sorted(files) == ["a_b.paf", "a_b.snps", "small_b.paf", "small_b.snps"]  # the random genome's: none
    assert {name: data for name, data in out[0][0].items() if not name.startswith("random")} == files
    assert rows.loc[("random", "b"), "status"] == "screened" and rows.loc[("random", "b"), "ani"] == "NA"
    assert float(rows.loc[("random", "b"), "screen_ani"]) < 60
    assert rows.loc[("random", "b"), "query_length"] == "400000"
    # the small genome keeps too few sites to tell: aligned whatever its estimate
    assert rows.loc[("small", "b"), "status"] == "aligned"
    assert float(rows.loc[("a", "b"), "screen_ani"]) > 95 and rows.loc[("a", "b"), "status"] == "aligned"
    assert rows.drop(index=[("random", "b")]).equals(out[0][1].drop(index=[("random", "b")]))
    assert out[0][1].loc[("random", "b"), "status"] == "aligned"


def test_a_many_genomes_run_screens_an_unrelated_genome_and_a_new_setting_reruns_the_rows(tmp_path):
    cwd = workdir(tmp_path)
    rng = np.random.default_rng(11)
    with gzip.open(cwd / "random.fa.gz", "wt") as handle:
        handle.write(">contig_1\n" + drawn(rng, 600_000) + "\n>contig_2\n" + drawn(rng, 300_000) + "\n")
    (cwd / "set.yaml").write_text(f"genomes:\n  a: {MYCO_232}\n  b: {MYCO_7422}\n  c: random.fa.gz\nresults: results\n")
    snakemake(cwd, "--cores", "2", "--configfile", "config/many_genomes.yaml", "set.yaml")
    folder = cwd / "results" / "default"
    table = {(r["query"], r["reference"]): r for r in read_tsv(folder / "ani.tsv")}
    assert [r["status"] for r in table.values()] == ["aligned", "screened", "screened"]
    assert float(table[("a", "b")]["ani"]) > 98 and float(table[("a", "b")]["screen_ani"]) > 95
    assert table[("a", "c")]["ani"] == "NA" and float(table[("a", "c")]["screen_ani"]) < 60
    assert sorted(p.name for p in (folder / "rows").glob("*/*_vs_*")) == ["a_vs_b"]
    identity = pd.read_csv(folder / "ANIm_percentage_identity.tab", sep="\t", index_col=0)
    assert np.isnan(identity.loc["a", "c"]) and identity.loc["a", "b"] > 0.98
    (cwd / "all.yaml").write_text("comparisons: {screen: 0}\n")
    proc = snakemake(cwd, "--cores", "2", "--configfile", "config/many_genomes.yaml", "set.yaml", "all.yaml")
    assert "rule row:" in proc.stdout + proc.stderr  # the setting is the rows' to follow
    table = {(r["query"], r["reference"]): r for r in read_tsv(folder / "ani.tsv")}
    assert [r["status"] for r in table.values()] == ["aligned"] * 3
    assert sorted(p.name for p in (folder / "rows").glob("*/*_vs_*")) == ["a_vs_b", "a_vs_c", "b_vs_c"]
