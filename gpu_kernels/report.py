"""The report command: two assemblies compared in one command, as dnadiff does it. `align` writes the
files the standard tools read into one folder (PAF, MUMmer delta, VCF, the alignment and chain tables),
a dotplot is drawn from the chains, and report.txt gives dnadiff's sections and field names, each
figure from our own alignments, with a table a record (records.tsv). As dnadiff's, the aligned
sequences and bases are those of the many-to-many set (m_to_m: every chain is aligned, `--secondary`,
and an alignment is in it where it is among the best for its query bases or for its reference bases,
as delta-filter -m's union of -q and -r), and the SNP and indel counts those of the one-to-one
alignments (each base once: one_to_one.py)."""
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
    args.secondary = True  # every chain aligned: the many-to-many set is chosen among them
    args.given = sorted(set(args.given) | {"secondary"})
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
    text, records = dnadiff_report(args.table, args.query, args.reference)
    write_pieces(os.path.join(folder, "report.txt"), text.encode(), iter(()), "lines")
    write_tsv(os.path.join(folder, "records.tsv"), records)
    return 0


def _alignments(table_path: str) -> tuple:
    import pyarrow.parquet as pq

    from .formats import read_meta

    columns = ["qrec", "rrec", "strand", "qstart", "qend", "rstart", "rend", "score", "matches", "mismatches",
               "insertions", "deletions", "unknown", "backbone"]
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


def m_to_m(al: dict) -> np.ndarray:
    """The many-to-many alignments (bool a row), as delta-filter -m's union of its -q and -r sets: by score
    descending, an alignment joins the query's set where more than half of its query span is not yet
    covered by that set, the reference's likewise; the one-to-one ones are in both."""
    from .backbone import backbone

    n = int(al["qstart"].size)
    order = np.lexsort((np.arange(n), -np.asarray(al["score"])))
    keep = np.asarray(al["backbone"]) == 1
    alone = np.arange(n, dtype=np.int64)  # each row its own record on the other side: never covered there
    for this in ("q", "r"):
        rec = np.asarray(al[f"{this}rec"], dtype=np.int64)[order]
        table = {"chain": alone, "qrec": rec, "rrec": alone, "strand": np.zeros(n, dtype=np.int8)}
        spans = {"chain": alone, "x0": np.asarray(al[f"{this}start"])[order], "xe": np.asarray(al[f"{this}end"])[order],
                 "y0": np.zeros(n, dtype=np.int64), "ye": np.ones(n, dtype=np.int64)}
        lengths = np.zeros(int(rec.max()) + 1 if n else 0, dtype=np.int64)
        np.maximum.at(lengths, rec, spans["xe"].astype(np.int64))
        chosen = np.zeros(n, dtype=bool)
        chosen[order] = backbone(table, spans, lengths, np.ones(n, dtype=np.int64), pairs=False) == 1
        keep |= chosen
    return keep


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


def dnadiff_report(table_path: str, query_path: str, reference_path: str) -> tuple[str, str]:
    """(report.txt's text, records.tsv's table): dnadiff's sections and fields, [REF] then [QRY], from
    the alignment table; each record's aligned bases (the many-to-many set's)."""
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
    many = m_to_m(al)
    per_record = {s: covered(al[f"{s}start"][many], al[f"{s}end"][many], al[f"{s}rec"][many], lengths[s].size)
                  for s in "rq"}
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
    for name, keep in (("1-to-1", one), ("M-to-M", many)):
        spans = {s: (al[f"{s}end"] - al[f"{s}start"])[keep].astype(np.int64) for s in "rq"}
        columns = (al["matches"] + al["mismatches"] - al["unknown"] + al["insertions"] + al["deletions"])[keep]
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
    # show-snps' lines of the one-to-one alignments, as dnadiff counts them: substitutions between two
    # known bases, and indel bases
    counts = {"TotalSNPs": int((al["mismatches"] - al["unknown"])[one].sum()),
              "TotalIndels": int((al["insertions"] + al["deletions"])[one].sum())}
    lines += ["", "[SNPs]"]
    row("TotalSNPs", counts["TotalSNPs"], counts["TotalSNPs"])
    row("TotalIndels", counts["TotalIndels"], counts["TotalIndels"])
    records = pd.concat([pd.DataFrame({"side": label, "record": [str(n) for n in sides[side]["names"]],
                                       "length": lengths[side], "aligned_bases": per_record[side],
                                       "aligned_fraction": np.round(per_record[side] / np.maximum(1, lengths[side]), 6)})
                         for side, label in (("r", "reference"), ("q", "query"))])
    return "\n".join(lines) + "\n", records
