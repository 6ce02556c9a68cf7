"""A genome pair aligned and its outputs written, from both genomes loaded: compared whole where it
fits (engine.compare_loaded), else part by part through the homology pipeline and assembled
(pipeline.align_parts); the same outputs either way. The command line's `align` and the
many-genomes jobs (workflow/many.py) both call align_loaded; those jobs on a device call finish_whole
with the HSPs of several pairs found at once (batch.py)."""
from __future__ import annotations

import time

import numpy as np

from .engine import compare_loaded
from .errors import InputError
from .params import Params
from .pipeline import align_parts, fits_whole, texts_of, write_pair

CHAIN_PATHS = ("chains_paf", "chain_file", "chains_table")


def align_loaded(loaded, params: Params, paths: dict, hsps: str | None = None, sam_seq: bool = True,
                 device_done=None, host_after_hsps: bool = False, variants_if=None) -> tuple[dict, str]:
    """A loaded pair (engine.load's) aligned and written where paths say (align.write_aligned's
    kinds, and CHAIN_PATHS); hsps: the HSP table's path (a pair compared whole only); sam_seq: the
    SAM lines' SEQ; device_done(): called once the device's work is done, before the files are
    written; host_after_hsps: a pair compared whole is chained, placed and aligned on the host once
    its HSPs are found (Result.hand_to_host: small pairs, many at a time); variants_if(alignments):
    called once, before the files are written: whether the SNP and VCF files are (many genomes: close
    pairs only). Returns the alignments and a line that sums them up."""
    start = loaded.start
    q, r = loaded.query, loaded.reference
    if not fits_whole(q, r, params):
        if hsps:
            raise InputError("--hsps: the pair is compared in parts (larger than --part-bases); write the HSP "
                             "tables with the workflow, or raise --part-bases")
        loaded.wait()
        wants_chains = any(paths.get(kind) for kind in CHAIN_PATHS)
        pair = align_parts(q, r, params, loaded.backend, texts_of(kind for kind, path in paths.items() if path),
                           wants_chains)
        if device_done is not None:
            device_done()
        meta = {"query": {"names": list(q.names), "lengths": q.lengths.tolist()},
                "reference": {"names": list(r.names), "lengths": r.lengths.tolist()},
                "params": params.as_dict(), "stats": {}, **loaded.sources}
        al = write_pair(pair, (q.names, q.lengths, r.names, r.lengths), paths, meta, params, r, q, sam_seq,
                        variants_if)
        chains, how = pair.chains, "in parts"
    else:
        result = compare_loaded(loaded, params)
        handed = host_after_hsps and not hsps  # the HSP table is streamed off the device: kept there
        if handed:
            result.hand_to_host()
            if device_done is not None:
                device_done()
        return finish_whole(result, paths, hsps, sam_seq, None if handed else device_done, variants_if, start)
    return al, summary(al, chains, how, loaded.backend.name, start)


def finish_whole(result, paths: dict, hsps: str | None = None, sam_seq: bool = True, device_done=None,
                 variants_if=None, start: float | None = None) -> tuple[dict, str]:
    """A pair compared whole (compare_loaded's Result) chained, aligned and written, as align_loaded
    says; device_done(): called once its device work is done (where it is still on a device)."""
    chains = result.chain()
    result.align()
    if hsps:
        result.write_parquet(hsps, last=True)
    if device_done is not None:
        device_done()
    if any(paths.get(kind) for kind in CHAIN_PATHS):
        result.write_chains(paths)
    al = result.write_alignments(paths, sam_seq, variants_if)
    backend = result.stats.get("backend", result.backend.name)  # the device's, where handed to the host
    return al, summary(al, chains, f"of {result.stats['hsps']} HSPs", backend, start)


def summary(al: dict, chains: dict, how: str, backend: str, start: float | None) -> str:
    """The line that sums a pair's alignments up: their query bases counted once where alignments
    overlap (a secondary one may lie on one-to-one ones' bases)."""
    from .coverage import union_length

    qrec = np.asarray(al["qrec"], dtype=np.int64)
    aligned = int(union_length(qrec, np.asarray(al["qstart"]), np.asarray(al["qend"]),
                               int(qrec.max()) + 1 if qrec.size else 0).sum())
    took = "" if start is None else f", {time.perf_counter() - start:.2f} s"
    return (f"{al['qstart'].size} alignments ({int(al['backbone'].sum())} in the backbone) of {chains['chain'].size} "
            f"chains {how}, {aligned} query bases aligned, backend {backend}{took}")
