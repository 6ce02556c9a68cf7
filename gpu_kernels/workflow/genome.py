"""Genomes in the workflow: a fast header scan, bins of records, and the encoded index on disk.

The Snakefile scans every genome before any job runs, so duplicate names and empty records stop
the run at once, and it knows every chromosome (and bin) when it builds the job graph: no
checkpoint is needed. The scan is cached beside the results, keyed by the file's size and mtime, with
the genome's sketch (sketch.py), made in the same pass, that the outputs' size estimates read.
"""
from __future__ import annotations

import json
import logging
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..fasta import BLANK_TABLE, fast_layout, layout, load_fasta, read_bytes, read_fastq
from ..formats import atomic_path
from ..letters import NONE
from ..seqset import SeqSet, empty_layout
from ..twobit import PackedCodes, save_codes

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class Chromosome:
    """One record of a genome: name and length."""

    name: str
    length: int


def scan_fastq(data: bytes, path: str) -> list[Chromosome]:
    """Record names and lengths of FASTQ data (a read set used as a genome)."""
    return [Chromosome(r.name, int(r.codes.size)) for r in read_fastq(data, path, reads=True)]


def scan_fasta(path: str) -> list[Chromosome]:
    """Record names and lengths from headers and line lengths, with the header checks of read_fasta
    (FASTQ files, which start with '@', are read whole)."""
    return _scan(read_bytes(path), path)[0]


def content_digest(data) -> str:
    """A digest of a genome file's content (its bytes once decompressed): what ties a many-genomes row
    to the genomes it holds, whatever their files' times."""
    import hashlib

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _scan(data, path: str, sketch: bool = False) -> tuple[list[Chromosome], np.ndarray | None, object]:
    """The records and their bodies' spans in data (None for FASTQ), and with sketch the genome's
    (sketch.make_sketch: its count of the blanks gives the records' lengths too; else None)."""
    if data.lstrip()[:1] == b"@":
        return scan_fastq(data.lstrip(), path), None, None
    from .. import native

    # white space counted in place (no copy of a body), on all cores: the scan runs at the start of
    # every new workflow, before any job
    fast = fast_layout(data, path)  # headers found on all cores where there are many
    if fast is not None:
        names, spans = fast[0], fast[1]
    else:
        records = layout(data, path)
        names = [name for name, _, _ in records]
        spans = np.array([(start, end) for _, start, end in records], dtype=np.int64).reshape(-1, 2)
    lengths = np.zeros(len(names), dtype=np.int64)
    made = None
    if sketch:
        from .sketch import make_sketch

        made = make_sketch(data, spans, None, lengths=lengths)
    else:
        blanks = np.zeros(len(names), dtype=np.int64)
        native.cpu().count_in_spans(data, np.ascontiguousarray(spans[:, 0]), np.ascontiguousarray(spans[:, 1]),
                                    BLANK_TABLE, blanks, native.threads())
        lengths = spans[:, 1] - spans[:, 0] - blanks
    if (lengths == 0).any():
        raise InputError("empty record, no sequence", path, names[int(np.flatnonzero(lengths == 0)[0])])
    return [Chromosome(name, length) for name, length in zip(names, lengths.tolist())], spans, made


def scan_cached(path: str, cache: str, sketch: str | None = None,
                digest: bool = True) -> tuple[list[Chromosome], str | None]:
    """scan_fasta and the file's content_digest (with digest; else None: only many-genomes runs read
    it, and it is the longest step of a large genome's scan), remembered in a JSON file keyed by the
    FASTA's size and mtime (where it can be written: a read-only results folder still answers
    `snakemake -n`); with sketch, a path, the genome's sketch is made in the same pass and saved
    there (sketch.save_sketch; none for FASTQ)."""
    if not os.path.exists(path):
        raise InputError("no such file", path)
    stat = os.stat(path)
    key = [os.path.abspath(path), stat.st_size, stat.st_mtime_ns]
    if os.path.exists(cache):
        try:
            with open(cache) as handle:
                saved = json.load(handle)
            # a read set has no sketch; a genome's is made once more where it went missing, as its digest
            if saved["key"] == key and (sketch is None or not saved["sketched"] or os.path.exists(sketch)) and \
                    (saved["digest"] is not None or not digest):
                return [Chromosome(n, l) for n, l in saved["chromosomes"]], saved["digest"]
        except (OSError, ValueError, KeyError):
            pass
    data = read_bytes(path)
    # the digest (one core) beside the scan and sketch (all cores)
    with ThreadPoolExecutor(1) as pool:
        digested = pool.submit(content_digest, data) if digest else None
        chromosomes, spans, made = _scan(data, path, sketch is not None)
        found = digested.result() if digested is not None else None
    del data
    try:
        if made is not None:
            from .sketch import save_sketch

            save_sketch(made, sketch)
        with atomic_path(cache) as tmp:
            with open(tmp, "w") as handle:
                json.dump({"key": key, "digest": found, "sketched": spans is not None,
                           "chromosomes": [[c.name, c.length] for c in chromosomes]}, handle)
    except OSError:  # a results folder kept read-only, a full disk: the scan is made again next time
        pass
    return chromosomes, found


SCAN_BYTES = 8 << 30  # the genomes' bytes held at once by scans side by side (a file at least is read)


def scan_genomes(genomes: dict[str, tuple[str, str, str | None, bool]]) -> dict[str, tuple]:
    """scan_cached of each genome (name: FASTA, cache, sketch, digest), a few at once where their files fit in
    SCAN_BYTES together (the scans' C releases the GIL: two human-sized genomes take the time of one);
    the first bad genome in the dict's order is the InputError raised."""
    sizes = [os.path.getsize(where[0]) if os.path.exists(where[0]) else 0 for where in genomes.values()]
    workers = max(1, min(4, len(genomes), SCAN_BYTES // max(1, max(sizes, default=1))))
    with ThreadPoolExecutor(workers) as pool:
        scans = {name: pool.submit(scan_cached, *where) for name, where in genomes.items()}
        return {name: scan.result() for name, scan in scans.items()}


def make_bins(chromosomes: list[Chromosome], bin_size: int) -> list[list[int]]:
    """Records grouped in file order into bins of at most bin_size bases (a longer record is a bin alone)."""
    bins: list[list[int]] = []
    size = 0
    for index, chrom in enumerate(chromosomes):
        if bins and size + chrom.length <= bin_size and size > 0:
            bins[-1].append(index)
            size += chrom.length
        else:
            bins.append([index])
            size = chrom.length
    return bins


def bin_name(number: int) -> str:
    """Name of the number-th bin (0-based)."""
    return f"b{number + 1:05d}"


def write_index(fasta: str, codes_path: str, table_path: str, bin_size: int, screen_path: str | None = None) -> None:
    """Encode a genome once: its codes file (records laid end to end, two bits a base: twobit.py), a
    chromosome table and, with screen_path, its screen sketch (screen.py: many-genomes runs). A record of no
    A, C, G or T (a read of a read set, a scaffold of gaps) is taken, said in the log, and aligned
    nowhere, as nucmer, minimap2 and mummer take it; the command line's compare still refuses one."""
    started = time.perf_counter()
    loaded = load_fasta(fasta, reads=True)
    log.info("%s read and encoded: %d records, %d bases (%.2f s)", fasta, len(loaded.names),
             int(loaded.lengths.sum()), time.perf_counter() - started)
    empty = [name for name, has in zip(loaded.names, loaded.has_acgt) if not has]
    for name in empty[:10]:
        log.info("%s: record '%s' has no A, C, G or T: nothing can match it", fasta, name)
    if len(empty) > 10:
        log.info("%s: %d records in all have no A, C, G or T", fasta, len(empty))
    bins = make_bins([Chromosome(n, int(l)) for n, l in zip(loaded.names, loaded.lengths.tolist())], bin_size)
    bin_of = {index: bin_name(b) for b, members in enumerate(bins) for index in members}
    # the records laid end to end as seqset_of lays them (load_fasta's), at two bits a base; each
    # record's N codes counted from the runs of N the packing finds (a run lies in one record)
    n_starts, n_ends = save_codes(codes_path, loaded.codes)
    record_of = np.searchsorted(loaded.starts, n_starts, side="right") - 1
    n_counts = np.bincount(record_of, weights=n_ends - n_starts, minlength=len(loaded.names)).astype(np.int64)
    with atomic_path(table_path) as tmp:
        with open(tmp, "w") as handle:
            handle.write("name\tlength\tn_count\tstart\tbin\tiupac\n")
            pos, let = loaded.letters or NONE
            for index, (name, start, length) in enumerate(zip(loaded.names, loaded.starts.tolist(),
                                                              loaded.lengths.tolist())):
                lo, hi = np.searchsorted(pos, [start, start + length])
                iupac = "".join(f"{p}{chr(c)}" for p, c in zip((pos[lo:hi] - start).tolist(), let[lo:hi].tolist()))
                handle.write(f"{name}\t{length}\t{n_counts[index]}\t{start}\t{bin_of[index]}\t{iupac}\n")
    if screen_path is not None:
        from .screen import save_screen, screen_sketch

        hashes, shift = screen_sketch(loaded.codes, loaded.starts, loaded.lengths)
        save_screen(screen_path, hashes, shift)
        log.info("screen sketch: %d 20-mers (1 in 2^%d)", hashes.size, shift)
    log.info("index written (%.2f s)", time.perf_counter() - started)


def read_table(table_path: str) -> list[dict]:
    """Rows of a chromosome table."""
    with open(table_path) as handle:
        header = handle.readline().rstrip("\n").split("\t")
        rows = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in handle if line.strip()]
    for row in rows:
        for key in ("length", "n_count", "start"):
            row[key] = int(row[key])
    return rows


WHOLE = "whole"  # the bin name that stands for every record of a genome


def load_bin(codes_path: str, rows: list[dict], bin_: str | list[str]) -> tuple[SeqSet, np.ndarray]:
    """The records of one bin, of several (a list of names) or of the whole genome (WHOLE) as a
    SeqSet, and their indices in the genome (rows: the genome's chromosome table, read once by the
    caller)."""
    bins = {bin_} if isinstance(bin_, str) else set(bin_)
    members = [i for i, row in enumerate(rows) if row["bin"] in bins or WHOLE in bins]
    return unpacked(codes_path, [rows[i] for i in members]), np.array(members, dtype=np.int64)


def unpacked(codes_path: str, rows: list[dict]) -> SeqSet:
    """These records of a genome's codes file (chromosome table rows) as a SeqSet, each unpacked once,
    where the SeqSet lays it."""
    codes = PackedCodes(codes_path)
    lengths = np.array([r["length"] for r in rows], dtype=np.int64)
    starts, out = empty_layout(lengths)
    for row, at in zip(rows, starts.tolist()):
        codes.into(out, row["start"], row["length"], at)
    return with_letters(SeqSet([r["name"] for r in rows], lengths, starts, out), rows)


def with_letters(seqset: SeqSet, rows: list[dict], firsts=None, ends=None) -> SeqSet:
    """The SeqSet of these chromosome table rows given their IUPAC letters (the table's iupac column:
    each letter's place in its record, then the letter; letters.py); with firsts and ends (a record's
    window each, load_windows'), those inside the windows alone."""
    places, letters = [], []
    firsts = [0] * len(rows) if firsts is None else np.asarray(firsts).tolist()
    ends = [r["length"] for r in rows] if ends is None else np.asarray(ends).tolist()
    for row, start, first, end in zip(rows, seqset.starts.tolist(), firsts, ends):
        for place, letter in re.findall(r"(\d+)([A-Z])", row.get("iupac", "")):
            if first <= int(place) < end:
                places.append(start + int(place))
                letters.append(ord(letter))
    if places:
        seqset.letters = (np.array(places, dtype=np.int64), np.array(letters, dtype=np.uint8))
    return seqset


def load_records(genome: "Genome", indices) -> SeqSet:
    """Some records of a genome (their indices, in that order) as a SeqSet, read from its codes."""
    return unpacked(genome.codes, [genome.rows[int(i)] for i in indices])


def load_windows(genome: "Genome", records, firsts, ends) -> SeqSet:
    """Windows of a genome's records (each one's record index, first base and end in the record) as the
    records of a SeqSet, read from its codes, each at its record's coordinates: a window's name and
    length are its record's, and its start is where its record's base 0 would lie, so that a stage
    reading a record's bases at their own positions (placement, alignment, their texts; either strand)
    reads the window's. The caller keeps those reads within the windows."""
    rows = [genome.rows[int(i)] for i in records]
    firsts, ends = np.asarray(firsts, dtype=np.int64), np.asarray(ends, dtype=np.int64)
    codes = PackedCodes(genome.codes)
    at, out = empty_layout(ends - firsts)
    for row, first, end, where in zip(rows, firsts.tolist(), ends.tolist(), at.tolist()):
        codes.into(out, row["start"] + first, end - first, where)
    windows = SeqSet([r["name"] for r in rows], np.array([r["length"] for r in rows], dtype=np.int64), at - firsts, out)
    return with_letters(windows, rows, firsts, ends)


def mapped_genome(genome: "Genome") -> SeqSet:
    """Every record of a genome as a SeqSet laid as its codes file lays them (for reading a few bases
    of each record: the records unpacked, the borders the file's)."""
    codes = PackedCodes(genome.codes)
    starts = np.array([r["start"] for r in genome.rows], dtype=np.int64)
    lengths = np.array([r["length"] for r in genome.rows], dtype=np.int64)
    return SeqSet([r["name"] for r in genome.rows], lengths, starts, codes.layout(starts, lengths))


class Genome:
    """A genome's index files (codes, chromosome table, and in a many-genomes run the screen sketch)
    and chromosome table."""

    def __init__(self, name: str, codes: str | None, table: str | None, screen: str | None = None):
        self.name, self.codes, self.table, self.screen = name, codes, table, screen
        self.rows = read_table(table) if table else []
        self.names = np.array([r["name"] for r in self.rows])
        self.lengths = np.array([r["length"] for r in self.rows], dtype=np.int64)

    @classmethod
    def of(cls, name: str, names, lengths) -> "Genome":
        """A genome known by its record table alone (an HSP table's metadata)."""
        genome = cls(name, None, None)
        genome.names, genome.lengths = np.array([str(n) for n in names]), np.asarray(lengths, dtype=np.int64)
        return genome


def write_index_list(path: str, names: list, codes: list, tables: list, screens: list) -> None:
    """The genomes' index files listed (name, codes, table, screen sketch), a genome a line."""
    from ..formats import write_tsv

    write_tsv(path, [{"genome": n, "codes": c, "table": t, "screen": s}
                     for n, c, t, s in zip(names, codes, tables, screens)])


def read_index_list(path: str, names) -> dict:
    """name -> Genome of some genomes of an index list (write_index_list's)."""
    from ..formats import read_tsv

    rows = {row["genome"]: row for row in read_tsv(path)}
    return {name: Genome(name, rows[name]["codes"], rows[name]["table"], rows[name]["screen"]) for name in names}
