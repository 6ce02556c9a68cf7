"""`filter`: a finished run's thresholds tightened without running it again."""
from __future__ import annotations

import logging
import os
import tempfile

from ..errors import InputError
from ..formats import FORMATS, HspWriter, default_threads, iter_hsps, read_meta, text_from_table
from ..formats.tables import check_rows
from ..hsps import passes
from ..params import Params
from .genome import Genome
from .chaining import find_sides, write_chains
from .outputs import CHAIN_KINDS, PAIR_OUTPUTS
from .pictures import pair_pictures
from .tables import coverage_tables, hsp_coverage

log = logging.getLogger(__name__)


FIGURE_SUFFIXES = (".png", ".svg", ".pdf")


def clear_earlier(out_dir: str) -> None:
    """An earlier filter's outputs in out_dir removed, those this one leaves out too, so that none is
    left beside the new ones looking like theirs: regular files under PAIR_OUTPUTS' names, and the
    pictures (PNG, and SVG and PDF beside them). Links are removed, never followed; nothing else in the folder is touched."""
    if not os.path.isdir(out_dir):
        return
    removed = 0
    for kind, name in PAIR_OUTPUTS.items():
        path = os.path.join(out_dir, name)
        if kind == "pair_dotplots" and os.path.isdir(path) and not os.path.islink(path):
            for entry in os.scandir(path):
                if entry.name.endswith(FIGURE_SUFFIXES) and (entry.is_symlink() or entry.is_file(follow_symlinks=False)):
                    os.remove(entry.path)
                    removed += 1
        elif os.path.islink(path) or os.path.isfile(path):
            os.remove(path)
            removed += 1
        if name.endswith(".png"):  # the SVG and PDF an earlier run drew beside it (outputs.figure_formats)
            for beside in (path[:-len(".png")] + suffix for suffix in FIGURE_SUFFIXES if suffix != ".png"):
                if os.path.islink(beside) or os.path.isfile(beside):
                    os.remove(beside)
                    removed += 1
    if removed:
        log.info("%s: %d outputs of an earlier run removed", out_dir, removed)


def filter_table(table_path: str, out_dir: str, min_len: int = 0, min_identity: float = 0.0,
                 leave_out: set | None = None, max_pair_plots: int = 50, order: str = "reference",
                 backend: str = "numpy", sequences: tuple = (None, None)) -> int:
    """Tighten a finished run's thresholds without running it again: the rows of an HSP table at
    least min_len long and min_identity percent identical (streamed a row group at a time) into
    out_dir/hsps.parquet, then every output the workflow makes of a genome pair's table (the text
    formats of formats.FORMATS among them), under the same names but those in leave_out (PAIR_OUTPUTS keys). The parameters in the new table's metadata
    are the tightened ones. The chains' blocks are placed on the genomes' sequences: sequences (the
    query's and the reference's FASTA), else those chaining.find_sides finds (found before any output
    is written, read once the rows passed their checks). Returns the rows kept. (A looser min_identity changes the extension itself: that needs a new run.)"""
    meta = read_meta(table_path)
    params = Params(**meta["params"]) if meta.get("params") else Params()
    rep, ext = params.reporting, params.extension
    params = params.replace(min_len=max(min_len, rep.min_len), min_identity=max(float(min_identity), ext.min_identity))
    query = Genome.of(meta.get("query_genome", "query"), meta["query"]["names"], meta["query"]["lengths"])
    reference = Genome.of(meta.get("reference_genome", "reference"), meta["reference"]["names"],
                          meta["reference"]["lengths"])
    leave_out = leave_out or set()
    out = {kind: None if kind in leave_out else os.path.join(out_dir, name) for kind, name in PAIR_OUTPUTS.items()}
    sides = find_sides(table_path, meta, *sequences) if any(out[kind] for kind in CHAIN_KINDS) else None
    clear_earlier(out_dir)
    extra = {key: meta[key] for key in ("seeds", "kept_seeds", "query_genome", "reference_genome", "query_fasta",
                                        "reference_fasta", "query_fasta_stamp", "reference_fasta_stamp") if key in meta}
    extra["filtered_from"] = os.path.abspath(table_path)
    with HspWriter(out["hsps"], query.names, query.lengths, reference.names, reference.lengths, params, extra) as writer:
        for chunk in iter_hsps(table_path, read_ahead=1):
            check_rows(chunk, meta, table_path)
            keep = passes(chunk, params.reporting.min_len, params.extension.min_identity)
            writer.write({name: column[keep] for name, column in chunk.items()})
    log.info("%s: %d of %s rows kept", out["hsps"], writer.rows, table_path)
    try:  # the genomes, once the rows passed their checks
        genomes = sides() if sides else None
    except InputError:  # genomes that are not the table's: no table left looking finished
        os.remove(out["hsps"])
        raise
    for kind in FORMATS:
        if out[kind]:
            text_from_table(kind, out["hsps"], out[kind])
    if any(out[kind] for kind in CHAIN_KINDS):  # chains of the kept HSPs, as the chains rule makes them
        write_chains(out["hsps"], {kind: out[kind] for kind in CHAIN_KINDS}, sides=genomes)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(out["coverage_pairs"]))) as scratch:
        summary = os.path.join(scratch, "hsp_coverage.npz")
        hsp_coverage(out["hsps"], query, reference, summary, backend, default_threads())
        coverage_tables(summary, query, reference, out["coverage_pairs"], out["coverage_query"],
                        out["coverage_reference"], out["coverage_genomes"], out["chains_table"])
        pair_pictures(out["hsps"], summary, query, reference, out["grid_dotplot"], out["coverage_heatmap"],
                      out["pair_dotplots"], max_pair_plots, out["html_dotplot"], order, default_threads(),
                      out["chains_table"], low=params.extension.min_identity)
    return writer.rows
