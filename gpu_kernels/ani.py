"""Average nucleotide identity of genome pairs, as ANIm computes it (pyANI's nucmer-based method):
the identities over the aligned columns of the pair's one-to-one alignments, gap columns excluded,
in percent (`ani`); beside it `anim`, pyANI's and pyani-plus's own formula, which counts each gap
column as an error of the side it is in; and each genome's aligned fraction (the bases its
one-to-one alignments cover, their union, over its length). The set's tables: `ani.tsv` (a row a pair) and the matrices in pyANI's
layout (a genome a row and a column, tab-separated, fractions of 1, the diagonal 1)."""
from __future__ import annotations

import math
import os

import numpy as np

from .report import covered

# ani.tsv's columns: the five, then what they are made of, then the many-genomes screen's
# estimate (containment ANI, workflow/screen.py) and whether the pair was aligned or screened
ANI_COLUMNS = ("query", "reference", "ani", "aligned_fraction_query", "aligned_fraction_reference", "anim",
               "matches", "mismatches", "insertions", "deletions", "aligned_query", "aligned_reference",
               "query_length", "reference_length", "alignments", "screen_ani", "status")
COUNTS = ("matches", "mismatches", "insertions", "deletions", "aligned_query", "aligned_reference", "query_length",
          "reference_length", "alignments")
# pyANI's file names (ANIm_<matrix>.tab) and what each holds
MATRICES = {"percentage_identity": "ani", "alignment_coverage": "aligned_fraction", "alignment_lengths": "aligned",
            "similarity_errors": "mismatches"}


def pair_ani(al: dict, qlens, rlens) -> dict:
    """The ANI row of a pair (ANI_COLUMNS but the names) from its alignments (the ALIGNMENT record's
    columns; `backbone` 1: one-to-one). A pair with nothing aligned has no ANI (NaN) and aligned
    fractions 0."""
    one = np.asarray(al["backbone"]) == 1
    qlens, rlens = np.asarray(qlens, dtype=np.int64), np.asarray(rlens, dtype=np.int64)
    matches, mismatches, insertions, deletions, unknown = (
        int(np.asarray(al[name], dtype=np.int64)[one].sum())
        for name in ("matches", "mismatches", "insertions", "deletions", "unknown"))
    mismatches -= unknown  # a column holding an N: its bases are unknown, neither like nor unlike
    sides = {}
    for side, lens in (("q", qlens), ("r", rlens)):
        starts, ends, recs = (np.asarray(al[f"{side}{name}"])[one] for name in ("start", "end", "rec"))
        sides[side] = int(covered(starts, ends, recs, lens.size).sum())
    qtotal, rtotal = int(qlens.sum()), int(rlens.sum())
    # pyANI's and pyani-plus's ANIm: both sides' aligned bases less twice the delta's errors
    # (mismatches and gap columns), over both sides' aligned bases
    both = 2 * (matches + mismatches) + insertions + deletions
    return {"ani": 100.0 * matches / (matches + mismatches) if matches + mismatches else math.nan,
            "aligned_fraction_query": sides["q"] / qtotal if qtotal else 0.0,
            "aligned_fraction_reference": sides["r"] / rtotal if rtotal else 0.0,
            "anim": 100.0 * (2 * matches - insertions - deletions) / both if both else math.nan,
            "matches": matches, "mismatches": mismatches, "insertions": insertions, "deletions": deletions,
            "aligned_query": sides["q"], "aligned_reference": sides["r"],
            "query_length": qtotal, "reference_length": rtotal, "alignments": int(one.sum())}


def read_rows(paths: list[str]):
    """The ANI rows of row files (ani.tsv's layout) as one DataFrame."""
    import pandas as pd

    # genome names as written: `NA`, `nan`, `null` and `None` are names, not pandas' missing values
    numbers = [c for c in ANI_COLUMNS if c not in ("query", "reference", "status")]
    tables = [pd.read_csv(p, sep="\t", dtype={"query": str, "reference": str, "status": str}, keep_default_na=False,
                          na_values={c: ["NA", ""] for c in numbers}) for p in paths]
    return (pd.concat(tables, ignore_index=True) if tables
            else pd.DataFrame(columns=list(ANI_COLUMNS)))


def write_rows(path: str, rows) -> None:
    """Rows of ani.tsv (a list of dicts or a DataFrame) written (NaN as NA, as pandas and R read it),
    atomically."""
    from .formats import write_tsv
    import pandas as pd

    table = pd.DataFrame(rows, columns=list(ANI_COLUMNS))
    table = table.astype({name: "Int64" for name in COUNTS})  # counts stay integers beside a screened pair's NA
    write_tsv(path, table.round({"ani": 4, "anim": 4, "aligned_fraction_query": 6, "aligned_fraction_reference": 6,
                                 "screen_ani": 2})
              .astype(object).where(table.notna(), "NA"))


def matrices(table, genomes: list[str]) -> dict:
    """pyANI's matrices of a set's rows (MATRICES' names -> a DataFrame a genome a row and a
    column): the row genome's value against the column genome. ANI is the pair's (either way round),
    as a fraction; the coverage, the row genome's aligned fraction; the lengths, the row genome's
    aligned bases; the errors, the pair's mismatches and gap columns (a delta's similarity errors).
    The diagonal is 1 (identity and coverage), the genome's length (lengths) and 0 (errors) where the set has no self pair; a pair
    the set did not compare is empty."""
    import pandas as pd

    n, at = len(genomes), {g: i for i, g in enumerate(genomes)}
    out = {name: np.full((n, n), np.nan) for name in MATRICES}
    for name in ("percentage_identity", "alignment_coverage"):
        np.fill_diagonal(out[name], 1.0)
    np.fill_diagonal(out["similarity_errors"], 0.0)
    q = table["query"].map(at).to_numpy()
    r = table["reference"].map(at).to_numpy()
    keep = ~(pd.isna(q) | pd.isna(r))
    q, r, rows = q[keep].astype(np.int64), r[keep].astype(np.int64), table[keep]
    ani = pd.to_numeric(rows["ani"], errors="coerce").to_numpy() / 100.0
    errors = rows[["mismatches", "insertions", "deletions"]].to_numpy(dtype=float).sum(axis=1)
    for (a, b), (fa, la) in (((q, r), ("query", "query")), ((r, q), ("reference", "reference"))):
        out["percentage_identity"][a, b] = ani
        out["alignment_coverage"][a, b] = rows[f"aligned_fraction_{fa}"].to_numpy(dtype=float)
        out["alignment_lengths"][a, b] = rows[f"aligned_{la}"].to_numpy(dtype=float)
        out["similarity_errors"][a, b] = errors
    lengths = {}
    for side in ("query", "reference"):
        lengths.update(zip(rows[side], rows[f"{side}_length"]))
    for g, i in at.items():
        if np.isnan(out["alignment_lengths"][i, i]) and g in lengths:
            out["alignment_lengths"][i, i] = lengths[g]
    return {name: pd.DataFrame(values, index=genomes, columns=genomes) for name, values in out.items()}


def write_matrices(frames: dict, folder: str) -> list[str]:
    """matrices' frames written into folder as pyANI names them (ANIm_<name>.tab); returns their paths."""
    from .formats.files import atomic_path

    os.makedirs(folder, exist_ok=True)
    paths = []
    for name, frame in frames.items():
        target = os.path.join(folder, f"ANIm_{name}.tab")
        with atomic_path(target) as tmp:
            frame.to_csv(tmp, sep="\t", na_rep="", lineterminator="\n",
                         float_format="%.0f" if name in ("alignment_lengths", "similarity_errors") else "%.6f")
        paths.append(target)
    return paths
