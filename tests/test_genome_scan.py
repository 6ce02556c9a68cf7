"""The workflow's genome scan (its cache and content digest) and the encoded index a genome's jobs read
(gpu_kernels/workflow/genome.py)."""
import numpy as np
import pytest


def test_the_genome_scan_digests_a_file_only_where_asked(tmp_path):
    """A run of genome pairs scans without the content digest (the longest step of a large genome's
    scan); a many-genomes run, which needs it, scans again where the cache lacks it."""
    from gpu_kernels.workflow import genome

    fasta, cache = tmp_path / "g.fa", str(tmp_path / "scan.json")
    fasta.write_text(">a\nACGTACGT\n>b\nAC\n")
    assert genome.scan_cached(str(fasta), cache, digest=False)[1] is None
    digest = genome.scan_cached(str(fasta), cache)[1]
    assert digest == genome.content_digest(fasta.read_bytes())
    assert genome.scan_cached(str(fasta), cache, digest=False)[1] == digest  # kept where it was made
    scans = genome.scan_genomes({"A": (str(fasta), cache, None, True), "B": (str(fasta), str(tmp_path / "b.json"),
                                                                            None, False)})
    assert scans["A"][1] == digest and scans["B"][1] is None


@pytest.mark.parametrize("text", [">r1 x\nACGTNNNNacgtRYKM\nAC\n>r2\nNNNNNN\n>r3\nGGGGCCCCWSN\n",
                                  "@q1\nACGTN\n+\nIIIII\n@q2\nNNN\n+\nIII\n"])
def test_the_index_holds_the_records_end_to_end_and_their_n_counts(tmp_path, text):
    """write_index saves the loaded genome's codes (laid out as seqset_of lays its records, at two bits a
    base) and counts each record's N codes on threads: the records, borders and counts a plain loop
    gives, read back whole and a bin at a time."""
    from gpu_kernels.encode import N_CODE
    from gpu_kernels.fasta import Record, load_fasta
    from gpu_kernels.seqset import seqset_of
    from gpu_kernels.workflow import genome

    fasta = tmp_path / ("g.fq" if text.startswith("@") else "g.fa")
    fasta.write_text(text)
    genome.write_index(str(fasta), str(tmp_path / "codes.2bit"), str(tmp_path / "table.tsv"), 10)
    loaded = load_fasta(str(fasta), reads=True)
    records = [Record(n, loaded.codes[s:s + l]) for n, s, l in zip(loaded.names, loaded.starts, loaded.lengths)]
    rows = genome.read_table(str(tmp_path / "table.tsv"))
    indexed = genome.Genome("g", str(tmp_path / "codes.2bit"), str(tmp_path / "table.tsv"))
    assert np.array_equal(genome.mapped_genome(indexed).codes, seqset_of(records).codes)
    for picked in ([0], [len(records) - 1, 0], list(range(len(records)))):
        want = seqset_of([records[i] for i in picked])
        got = genome.load_records(indexed, picked)
        assert np.array_equal(got.codes, want.codes) and np.array_equal(got.starts, want.starts)
    assert [row["n_count"] for row in rows] == [int(np.count_nonzero(r.codes == N_CODE)) for r in records]
    assert [row["start"] for row in rows] == seqset_of(records).starts.tolist()
