"""The report command: two assemblies compared in one command, as dnadiff does it. `align` writes the
files the standard tools read into one folder (PAF, MUMmer delta, VCF, the alignment and chain tables),
a dotplot is drawn from the chains, and report.txt gives dnadiff's sections and field names, each
figure from our own alignments ([Alignments] 1-to-1: the one-to-one alignments; M-to-M: all of
them), with a table a record (records.tsv)."""
from __future__ import annotations

import os

import numpy as np

FILES = {"output": "alignments.paf", "delta": "alignments.delta", "vcf": "variants.vcf", "table": "alignments.parquet",
         "chains_table": "chains.parquet"}
INSERTION = 50  # bases unaligned between two query-adjacent alignments on one side that count as an insertion


def run_report(args, run_align, table_dotplot) -> int:
    """report QUERY REFERENCE -o DIR: align's outputs in DIR, then dotplot.png, report.txt, records.tsv.
    run_align and table_dotplot: the align command's and the plot command's (the command line holds
    both; the engine never imports the workflow's pictures)."""
    from .errors import InputError
    from .formats import write_tsv
    from .formats.files import write_pieces

    folder = args.output_dir
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InputError("not a folder", folder)
    os.makedirs(folder, exist_ok=True)
    for name in ("sam", "snps", "hsps", "chains", "chain_file", "liftover"):
        setattr(args, name, None)
    for name, file in FILES.items():
        setattr(args, name, os.path.join(folder, file))
    inputs = {os.path.realpath(p) for p in (args.query, args.reference)}
    for file in ("report.txt", "records.tsv", "dotplot.png"):  # align refuses to write over an input itself
        if os.path.realpath(os.path.join(folder, file)) in inputs:
            raise InputError(f"-o {folder}: its {file} would replace an input")
    status = run_align(args)
    if status:
        return status
    table_dotplot([args.chains_table], os.path.join(folder, "dotplot.png"), None, None, "reference", "aligned")
    text, records = dnadiff_report(args.table, args.vcf, args.query, args.reference)
    write_pieces(os.path.join(folder, "report.txt"), text.encode(), iter(()), "lines")
    write_tsv(os.path.join(folder, "records.tsv"), records)
    return 0


def _alignments(table_path: str) -> tuple:
    import pyarrow.parquet as pq

    from .formats import read_meta

    columns = ["qrec", "rrec", "strand", "qstart", "qend", "rstart", "rend", "matches", "mismatches", "insertions",
               "deletions", "backbone"]
    al = {name: np.asarray(values) for name, values in pq.read_table(table_path, columns=columns).to_pydict().items()}
    meta = read_meta(table_path)
    return al, meta["query"], meta["reference"]


def covered(starts, ends, recs, records: int) -> np.ndarray:
    """Bases of each record covered by the intervals [starts, ends) on record recs (their union): the
    records laid end to end, each interval counted from where the ones before it reach."""
    order = np.lexsort((starts, recs))
    r = recs[order].astype(np.int64)
    shift = r * (int(np.max(ends, initial=0)) + 1)
    s, e = starts[order].astype(np.int64) + shift, ends[order].astype(np.int64) + shift
    reach = np.concatenate(([0], np.maximum.accumulate(e)[:-1]))
    return np.bincount(r, weights=np.maximum(0, e - np.maximum(s, reach)), minlength=records).astype(np.int64)


def features(al: dict, side: str) -> dict:
    """dnadiff's feature estimates on one side ("q" or "r"): the one-to-one alignments in that genome's
    order, and what joins each to the next on the other genome: a translocation (another record), a
    relocation (the same record, same orientation, out of order or over 10 kb apart), an inversion
    (the strand changes); the unaligned bases between them on this side over INSERTION bases
    are an insertion; every join is a breakpoint."""
    from .formats.vcf_events import RELOCATION

    this, other = (("q", "r") if side == "q" else ("r", "q"))
    rec, start, end = al[f"{this}rec"], al[f"{this}start"], al[f"{this}end"]
    orec, ostart, oend = al[f"{other}rec"], al[f"{other}start"], al[f"{other}end"]
    order = np.lexsort((start, rec))
    b, a = order[:-1], order[1:]
    same = rec[b] == rec[a]
    b, a = b[same], a[same]
    strand = al["strand"]
    trans = orec[b] != orec[a]
    inv = ~trans & (strand[b] != strand[a])
    step = np.where(strand[b] == 0, ostart[a] - oend[b], ostart[b] - oend[a])
    reloc = ~trans & ~inv & ((step < 0) | (step > RELOCATION))
    gap = start[a] - end[b]
    ins = gap >= INSERTION
    return {"Breakpoints": 2 * int(b.size), "Relocations": int(reloc.sum()), "Translocations": int(trans.sum()),
            "Inversions": int(inv.sum()), "Insertions": int(ins.sum()), "InsertionSum": int(gap[ins].sum()),
            "InsertionAvg": float(gap[ins].mean()) if ins.any() else 0.0}


def _variants(vcf_path: str) -> dict:
    """SNP and indel counts of the VCF: SNPs, and indel bases (as show-snps counts them, a line a base)."""
    import pandas as pd

    counts = {"TotalSNPs": 0, "TotalIndels": 0}
    header = 0  # the header's lines (a record's names may hold a '#': no comment character)
    with open(vcf_path) as handle:
        for line in handle:
            if not line.startswith("#"):
                break
            header += 1
    try:
        chunks = pd.read_csv(vcf_path, sep="\t", skiprows=header, header=None, usecols=[3, 4, 7], dtype=str,
                             chunksize=1 << 20, keep_default_na=False, quoting=3)
    except pd.errors.EmptyDataError:  # no record: no alignment, or none with a difference
        return counts
    for chunk in chunks:
        ref, alt, info = chunk[3].str.len().to_numpy(), chunk[4].str.len().to_numpy(), chunk[7]
        small = ~info.str.contains("SVTYPE=").to_numpy()
        counts["TotalSNPs"] += int(((ref == 1) & (alt == 1)).sum())
        counts["TotalIndels"] += int(np.abs(ref - alt)[small].sum())
    return counts


def dnadiff_report(table_path: str, vcf_path: str, query_path: str, reference_path: str) -> tuple[str, str]:
    """(report.txt's text, records.tsv's table): dnadiff's sections and fields, [REF] then [QRY], from
    the alignment table and the VCF; each record's aligned bases."""
    import pandas as pd

    al, query, reference = _alignments(table_path)
    sides = {"r": reference, "q": query}
    one = al["backbone"] == 1
    lines = [f"{os.path.abspath(reference_path)} {os.path.abspath(query_path)}", "gpu-genome-compare report", "",
             f"{'':<22}{'[REF]':>20}{'[QRY]':>21}"]

    def row(name, ref_value, qry_value):
        lines.append(f"{name:<22}{ref_value:>20}{qry_value:>21}")

    def pct(value, total):
        return f"{value}({100 * value / max(1, total):.2f}%)"

    lengths = {s: np.asarray(sides[s]["lengths"], dtype=np.int64) for s in "rq"}
    per_record = {s: covered(al[f"{s}start"], al[f"{s}end"], al[f"{s}rec"], lengths[s].size) for s in "rq"}
    aligned_seqs = {s: int(np.count_nonzero(per_record[s])) for s in "rq"}
    lines.append("[Sequences]")
    row("TotalSeqs", lengths["r"].size, lengths["q"].size)
    row("AlignedSeqs", pct(aligned_seqs["r"], lengths["r"].size), pct(aligned_seqs["q"], lengths["q"].size))
    row("UnalignedSeqs", pct(lengths["r"].size - aligned_seqs["r"], lengths["r"].size),
        pct(lengths["q"].size - aligned_seqs["q"], lengths["q"].size))
    lines += ["", "[Bases]"]
    total = {s: int(lengths[s].sum()) for s in "rq"}
    aligned = {s: int(per_record[s].sum()) for s in "rq"}
    row("TotalBases", total["r"], total["q"])
    row("AlignedBases", pct(aligned["r"], total["r"]), pct(aligned["q"], total["q"]))
    row("UnalignedBases", pct(total["r"] - aligned["r"], total["r"]), pct(total["q"] - aligned["q"], total["q"]))
    lines += ["", "[Alignments]"]
    for name, keep in (("1-to-1", one), ("M-to-M", np.ones_like(one))):
        spans = {s: (al[f"{s}end"] - al[f"{s}start"])[keep].astype(np.int64) for s in "rq"}
        columns = (al["matches"] + al["mismatches"] + al["insertions"] + al["deletions"])[keep]
        identity = 100 * al["matches"][keep].sum() / max(1, columns.sum())
        row(name, int(keep.sum()), int(keep.sum()))
        row("TotalLength", int(spans["r"].sum()), int(spans["q"].sum()))
        row("AvgLength", f"{spans['r'].mean() if keep.any() else 0:.2f}", f"{spans['q'].mean() if keep.any() else 0:.2f}")
        row("AvgIdentity", f"{identity:.2f}", f"{identity:.2f}")
        lines.append("")
    lines.append("[Feature Estimates]")
    one_al = {name: column[one] for name, column in al.items()}
    feats = {s: features(one_al, s) for s in "rq"}
    for name in ("Breakpoints", "Relocations", "Translocations", "Inversions", "", "Insertions", "InsertionSum",
                 "InsertionAvg"):
        if not name:
            lines.append("")
            continue
        value = (lambda v: f"{v:.2f}" if isinstance(v, float) else v)
        row(name, value(feats["r"][name]), value(feats["q"][name]))
    counts = _variants(vcf_path)
    lines += ["", "[SNPs]"]
    row("TotalSNPs", counts["TotalSNPs"], counts["TotalSNPs"])
    row("TotalIndels", counts["TotalIndels"], counts["TotalIndels"])
    records = pd.concat([pd.DataFrame({"side": label, "record": [str(n) for n in sides[side]["names"]],
                                       "length": lengths[side], "aligned_bases": per_record[side],
                                       "aligned_fraction": np.round(per_record[side] / np.maximum(1, lengths[side]), 6)})
                         for side, label in (("r", "reference"), ("q", "query"))])
    return "\n".join(lines) + "\n", records
