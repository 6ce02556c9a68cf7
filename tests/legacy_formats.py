"""The text writers as they were before the Parquet path (one Python string per row): the reference
the streamed, vectorized writers of gpu_kernels.formats must match byte for byte."""
import numpy as np


def paf_lines(hsps: dict, qnames, qlens, rnames, rlens) -> list[str]:
    qnames, rnames = np.asarray(qnames), np.asarray(rnames)
    qrec, rrec = hsps["qrec"], hsps["rrec"]
    length, ids = hsps["length"], hsps["identities"]
    strand = np.where(hsps["strand"] == 0, "+", "-")
    identity = np.divide(ids, length, out=np.zeros(length.size), where=length > 0)
    columns = [qnames[qrec], np.asarray(qlens)[qrec], hsps["qstart"], hsps["qend"], strand,
               rnames[rrec], np.asarray(rlens)[rrec], hsps["rstart"], hsps["rend"], ids, length,
               np.full(length.size, 255)]
    rows = zip(*(c.tolist() for c in columns), (length - ids).tolist(), hsps["score"].tolist(),
               (1 - identity).tolist(), (100 * identity).tolist())
    return ["%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\tNM:i:%d\tAS:i:%d\tde:f:%.4f\tid:f:%.2f\ttp:A:S\tcg:Z:%dM\n"
            % (*row, row[10]) for row in rows]


def gecko_rows(hsps: dict, qlens, rlens, match: int) -> list[str]:
    qoff = np.concatenate(([0], np.cumsum(qlens)[:-1]))
    roff = np.concatenate(([0], np.cumsum(rlens)[:-1]))
    # GECKO's getInfoCSB (2018 on): 0-based inclusive coordinates, similarity and %ident as percentages
    x0 = hsps["qstart"] + qoff[hsps["qrec"]]
    x1 = hsps["qend"] - 1 + qoff[hsps["qrec"]]
    lo = hsps["rstart"] + roff[hsps["rrec"]]
    hi = hsps["rend"] - 1 + roff[hsps["rrec"]]
    forward = hsps["strand"] == 0
    y0, y1 = np.where(forward, lo, hi), np.where(forward, hi, lo)
    length = hsps["length"]
    similarity = 100.0 * hsps["score"] / np.maximum(1, length * match)
    ident = 100.0 * hsps["identities"] / np.maximum(1, length)
    strand = np.where(forward, "f", "r")
    rows = zip(x0.tolist(), y0.tolist(), x1.tolist(), y1.tolist(), strand.tolist(), length.tolist(),
               hsps["score"].tolist(), hsps["identities"].tolist(), similarity.tolist(), ident.tolist(),
               hsps["qrec"].tolist(), hsps["rrec"].tolist())
    return ["Frag,%d,%d,%d,%d,%s,0,%d,%d,%d,%.2f,%.2f,%d,%d\n" % row for row in rows]
