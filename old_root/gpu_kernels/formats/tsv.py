"""Tab-separated tables (coverage, stats, summaries) with a header line."""
from __future__ import annotations

import csv

from .files import atomic_path


def write_tsv(path: str, rows, fields: list[str] | None = None) -> None:
    """A table (a pandas DataFrame, or rows as dicts) tab-separated with a header line, written atomically."""
    import pandas as pd

    table = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows), columns=fields)
    with atomic_path(path) as tmp:
        table.to_csv(tmp, sep="\t", index=False, lineterminator="\n")


def read_tsv(path: str) -> list[dict]:
    """Rows of a table written by write_tsv."""
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))
