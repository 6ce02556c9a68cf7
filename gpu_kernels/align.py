"""Gapped alignments of chains (docs/DEFINITIONS.md "What an alignment is"; tests/oracle_align.py is the
definition written plainly).

A chain's HSPs hold its anchors: the runs of at least min_anchor identical columns inside its
blocks (the HSPs, overlaps trimmed). Between two consecutive anchors of a chain lies a gap, aligned
globally with affine gaps in a band around the two anchors' diagonals; a gap whose fill scores
under -zdrop splits the chain there, and each piece is an alignment: anchors and fills, in chain
order. An ungapped HSP that runs on across an insertion and a deletion close together holds no
anchor between them, so the fill puts both indels back. The compiled code (align.c) finds the
anchors and fills the gaps on all cores; the CuPy twin does both on the device (align.cu); the
pieces are cut the same way on either (NumPy or CuPy), and the text (CIGAR, cs) is printed on the
host from the gaps' columns.
"""
from __future__ import annotations

import logging
import time

import numpy as np

from . import native
from .arrays import BLOCK, WARP, array_module, blocks as grid, cupy, exclusive_sum, kernel, launch_parts, to_host
from .chains import StageClock, block_positions
from .ends import end_arguments, extend_ends, extend_ends_cupy
from .letters import NONE
from .one_to_one import one_to_one
from .params import Params
from .posterior import band_widths, posterior_pass, posterior_pass_cupy
from .schema import ALIGNMENT, COUNT_KINDS, UNKNOWN
from .seqset import SeqSet, reverse_complement

log = logging.getLogger(__name__)

# the alignments of one batch: ALIGNMENT's columns but the CIGAR, and what their text is made of
TEXT_PARTS = ("ax", "ay", "alen", "gat", "gcols", "ops", "first", "last", "strand", "ext", "eops")


def chosen_blocks(chains: dict, blocks: dict, params: Params) -> dict:
    """The blocks of the chains to align (host columns): the backbone's, or with `secondary` every
    chain's."""
    if params.aligning.secondary:
        return blocks
    keep = np.asarray(chains["backbone"])[np.asarray(blocks["chain"])] == 1
    return {name: np.asarray(column)[keep] for name, column in blocks.items()}


def gaps_between(achain, ax, ay, alen) -> tuple:
    """(g, gq, gr, dx, dy): the gaps between consecutive anchors of a chain (gap g lies after anchor
    g), where each starts on the query and on the reference strand, and its lengths."""
    xp = array_module(ax)
    g = xp.flatnonzero(achain[1:] == achain[:-1])
    gq, gr = ax[g] + alen[g], ay[g] + alen[g]
    return g, gq, gr, ax[g + 1] - gq, ay[g + 1] - gr


def pieces(achain, alen, g, gscore, gcounts, shift, params: Params) -> dict:
    """The alignments (the chains cut at every gap scoring under -zdrop or moving the diagonal
    split_indel bases or more, and where the drop scores' running score falls zdrop below its best:
    pieces.c) as `first` and `last` anchors, `score` and
    the columns by kind (`matches`, `mismatches`, `insertions`, `deletions`, `unknown`), before their ends are
    extended and those under min_align_score dropped (finish). On the anchors' device; the cut is
    made on the host, the same for both."""
    xp = array_module(alen)
    a = params.aligning
    n = int(alen.size)
    cut = xp.ones(n, dtype=xp.uint8)  # a chain's last anchor, a gap filled under -zdrop or a long indel
    cut[g] = (gscore < -a.zdrop - a.gap_extend * shift) | ((shift >= a.split_indel) if a.split_indel else False)
    drift = xp.zeros(n, dtype=xp.int64)  # what a gap adds to the drop scores' running score
    drift[g] = (gcounts[:, 0] - a.drop_mismatch * (gcounts[:, 1] - gcounts[:, UNKNOWN])
                - a.drop_gap * (gcounts[:, 2] + gcounts[:, 3]))  # an N column: 0, as in the fills
    moved = xp.zeros(n, dtype=xp.int64)  # how far a gap moves the diagonal
    moved[g] = gcounts[:, 3] - gcounts[:, 2]
    piece, first, last = (np.empty(n, dtype=np.int64) for _ in range(3))
    host = [np.ascontiguousarray(to_host(v)) for v in (alen, cut, drift, moved)]
    count = native.module("_cpu").split_pieces(*host, a.zdrop, a.drop_gap, piece, first, last) if n else 0
    piece, first, last = (xp.asarray(v) for v in (piece, first[:count], last[:count]))
    inside = (piece[g] >= 0) & (piece[g] == piece[g + 1])  # the gaps a piece holds
    kept = g[inside]
    per_anchor = xp.zeros((n, COUNT_KINDS), dtype=xp.int64)  # the gap after each anchor, where it is kept
    per_anchor[kept] = gcounts[inside]
    score = alen * a.align_match
    score[kept] += gscore[inside]

    def total(values):
        sums = xp.cumsum(values)
        return sums[last] - sums[first] + values[first]

    # a piece's last anchor's gap is not its own: cut, dropped, or the chain ended there
    columns = {"score": total(score), "matches": total(alen + per_anchor[:, 0])}
    for k, name in enumerate(("mismatches", "insertions", "deletions", "unknown"), start=1):
        columns[name] = total(per_anchor[:, k])
    return {"first": first, "last": last, **columns}


def align_chains(chains: dict, blocks: dict, query: SeqSet, reference: SeqSet, params: Params,
                 threads: int = 0, codes: tuple | None = None, device_done=None) -> dict:
    """The alignments of chains (the chains table and chain_blocks' blocks, on the host): ALIGNMENT's
    columns but `alignment` and `cigar` (text_of makes those), and TEXT_PARTS. codes: both sides'
    codes where a backend holds them already (the host's are the SeqSets'). device_done(): called
    once the pieces are found, before the ends' extensions and the rest on the host (the device twin
    needs its device no more there: a workflow job hands it on)."""
    a = params.aligning
    cpu = native.module("_cpu")
    threads = threads or native.threads()
    clock = StageClock()
    blocks = chosen_blocks(chains, blocks, params)
    q, rf, rr = query.codes, reference.codes, reference.reverse_codes
    qpos, rpos, length, strand = block_positions(chains, blocks, query, reference)
    count = np.empty(qpos.size, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    cpu.align_anchors(q, rf, rr, qpos, rpos, length, strand, a.min_anchor, count, False, none, none, none, threads)
    at = exclusive_sum(count)
    ax, ay, alen = (np.empty(int(at[-1]), dtype=np.int64) for _ in range(3))
    cpu.align_anchors(q, rf, rr, qpos, rpos, length, strand, a.min_anchor, at[:-1].copy(), True, ax, ay, alen,
                      threads)
    achain = np.repeat(blocks["chain"], count)
    astrand = np.repeat(strand, count)
    g, gq, gr, dx, dy = gaps_between(achain, ax, ay, alen)
    clock.mark(f"anchors ({ax.size})")
    gat = exclusive_sum(dx + dy)
    ops = np.zeros(int(gat[-1]), dtype=np.uint8)  # a gap's unused bytes stay 0 (the device's too)
    gscore, gcols = np.empty(g.size, dtype=np.int64), np.empty(g.size, dtype=np.int64)
    gcounts = np.empty((g.size, COUNT_KINDS), dtype=np.int64)
    gstrand = astrand[g]
    cpu.align_fill(q, rf, rr, gq, gr, dx, dy, gat[:-1].copy(), gstrand, a.align_match, a.align_mismatch,
                   a.gap_open, a.gap_extend, a.band, gscore, gcols, gcounts, ops, threads)
    clock.mark(f"fills ({g.size} gaps)")
    if a.gamma:
        posterior_pass(q, rf, rr, gq, gr, dx, dy, gat, gstrand, alen, gscore, gcols, gcounts, ops, params, threads)
        clock.mark(f"posterior fills ({g.size} gaps)")
    found = pieces(achain, alen, g, gscore, gcounts, abs(dx - dy), params)
    if device_done is not None:
        device_done()
    out = finish(found, chains, achain, astrand, ax, ay, alen, g, gat, gcols, ops, query, reference, params, threads)
    clock.mark(f"pieces ({int(out['qstart'].size)})")
    clock.log("alignments")
    return out


# Host bytes a cell of a gap's fill holds: its direction byte, and with gamma (the posterior's decoding,
# posterior.c) the B_M and B_I doubles of every cell beside it
FILL_CELL_BYTES, POSTERIOR_CELL_BYTES = 1, 16


def fill_bytes(params: Params) -> int:
    """Host bytes the largest gap's fill may hold: a row a base of the gap (max_gap), a column a diagonal
    of its band (the ends' shift, at most max_shift, and band on either side), FILL_CELL_BYTES a cell,
    and POSTERIOR_CELL_BYTES more where gamma decodes the gaps."""
    cells = (params.chaining.max_gap + 1) * (params.chaining.max_shift + 2 * params.aligning.band + 1)
    return cells * (FILL_CELL_BYTES + (POSTERIOR_CELL_BYTES if params.aligning.gamma > 0 else 0))


# direction bytes of the gaps one align_fill launch holds (a gap larger than this alone is one launch)
FILL_BYTES = 1 << 30


def align_chains_cupy(chains: dict, blocks: dict, query: SeqSet, reference: SeqSet, params: Params,
                      threads: int = 0, codes: tuple | None = None, device_done=None) -> dict:
    """align_chains on the device (align.cu): the same alignments. The anchors, the gaps' fills and
    the pieces are made on the device, in launches of at most FILL_BYTES of direction bytes; the
    alignments' columns come back to the host for the text. codes: both sides' codes on the device
    (compare's), else copied there. device_done(): called once the ends are extended (extend_ends_cupy),
    what the host needs is copied there and this function's device arrays are dropped."""
    cp = cupy()
    a = params.aligning
    clock = StageClock(cp)
    blocks = chosen_blocks(chains, blocks, params)
    q, rf = (cp.asarray(c) for c in (codes or (query.codes, reference.codes)))
    rr = reverse_complement(rf)
    if "reverse_codes" not in reference.__dict__:
        # the ends' extensions and the texts read the reverse strand on the host: copied from here, not
        # made again there (NumPy's reverse complement takes seconds a Gbp, the copy a tenth of that)
        reference.__dict__["reverse_codes"] = to_host(rr)
    on_device = {name: cp.asarray(blocks[name]) for name in ("chain", "x0", "xe", "y0", "ye")}
    qpos, rpos, length, strand = block_positions(chains, on_device, query, reference)
    nb = int(qpos.size)
    count = cp.zeros(nb, dtype=cp.int64)
    none = cp.zeros(1, dtype=cp.int64)
    anchors = kernel("align.cu", "align_anchors")
    if nb:
        anchors((grid(nb),), (BLOCK,), (q, rf, rr, qpos, rpos, length, strand, cp.int64(nb), cp.int64(a.min_anchor),
                                        count, cp.int32(0), none, none, none))
    at = exclusive_sum(count)
    total = int(at[-1])
    ax, ay, alen = (cp.zeros(max(total, 1), dtype=cp.int64)[:total] for _ in range(3))
    if total:
        anchors((grid(nb),), (BLOCK,), (q, rf, rr, qpos, rpos, length, strand, cp.int64(nb), cp.int64(a.min_anchor),
                                        at[:-1].copy(), cp.int32(1), ax, ay, alen))
    owner = cp.searchsorted(at[1:], cp.arange(total, dtype=cp.int64), side="right")  # each anchor's block
    achain, astrand = on_device["chain"][owner], strand[owner]
    g, gq, gr, dx, dy = gaps_between(achain, ax, ay, alen)
    n = int(g.size)
    clock.mark(f"anchors ({total})")
    gat = exclusive_sum(dx + dy)
    ops = cp.zeros(max(int(gat[-1]), 1), dtype=cp.uint8)
    gscore, gcols = cp.zeros(n, dtype=cp.int64), cp.zeros(n, dtype=cp.int64)
    gcounts = cp.zeros((n, COUNT_KINDS), dtype=cp.int64)
    if n:
        # largest first, so that the largest start early
        order = cp.argsort(-(dx + 1) * band_widths(dx, dy, a.band))
        sq, sr, sdx, sdy, sat = gq[order], gr[order], dx[order], dy[order], gat[:-1][order]
        sstrand = astrand[g][order]
        width = band_widths(sdx, sdy, a.band)
        cells = (sdx + 1) * width
        ends = cp.cumsum(cells).get()
        score, cols, counts = cp.zeros(n, dtype=cp.int64), cp.zeros(n, dtype=cp.int64), cp.zeros((n, COUNT_KINDS), dtype=cp.int64)
        fill = kernel("align.cu", "align_fill")
        for part in launch_parts(ends, FILL_BYTES):
            dir_at = exclusive_sum(cells[part])
            row_at = exclusive_sum(4 * width[part])  # two runs' last rows of H and F
            scratch = cp.empty(int(dir_at[-1]), dtype=cp.uint8)
            rows = cp.empty(int(row_at[-1]), dtype=cp.int32)
            size = part.stop - part.start
            fill((grid(WARP * size),), (BLOCK,), (  # a warp a gap
                q, rf, rr, sq[part], sr[part], sdx[part], sdy[part], sat[part], dir_at, row_at, sstrand[part],
                cp.int64(size), cp.int32(a.align_match), cp.int32(a.align_mismatch), cp.int32(a.gap_open),
                cp.int32(a.gap_extend), cp.int64(a.band), score[part], cols[part], counts[part], ops, scratch, rows))
            del scratch, rows
        gscore[order], gcols[order], gcounts[order] = score, cols, counts
    clock.mark(f"fills ({n} gaps)")
    if a.gamma and n:
        posterior_pass_cupy(q, rf, rr, gq, gr, dx, dy, gat, astrand[g], alen, gscore, gcols, gcounts, ops, params)
        clock.mark(f"posterior fills ({n} gaps)")
    found = pieces(achain, alen, g, gscore, gcounts, abs(dx - dy), params)
    host = [to_host(v) for v in (achain, astrand, ax, ay, alen, g, gat, gcols, ops[:int(gat[-1])])]
    found = {name: to_host(v) for name, v in found.items()}
    extended = extend_ends_cupy(*end_arguments(found, chains, host[0], host[1], *host[2:5], query, reference),
                                query, reference, params, codes=(q, rf, rr))
    clock.mark("ends")
    if device_done is not None:
        del q, rf, rr, blocks, on_device, qpos, rpos, length, strand, count, at, ax, ay, alen, achain, astrand, owner
        del g, gq, gr, dx, dy, gat, ops, gscore, gcols, gcounts
        device_done()
        clock.mark("device handed on")
    out = finish(found, chains, *host, query, reference, params, extended=extended)
    clock.mark(f"pieces ({int(out['qstart'].size)})")
    clock.log("alignments on the device")
    return out


def finish(found: dict, chains: dict, achain, astrand, ax, ay, alen, g, gat, gcols, ops, query: SeqSet,
           reference: SeqSet, params: Params, threads: int = 0, extended: tuple | None = None) -> dict:
    """The alignments' columns from their pieces (on the host): the chains' ends extended (extend_ends,
    unless `extended` holds its answer: the device's), those under min_align_score dropped; chain,
    records, strand, spans in record coordinates (the reference's forward ones), the one-to-one ones,
    and what their text is made of."""
    first, last = found["first"], found["last"]
    ends = end_arguments(found, chains, achain, astrand, ax, ay, alen, query, reference)
    qoff, roff, rlen, strand = ends.qoff, ends.roff, ends.rlen, ends.strand
    chain = achain[first]
    qrec, rrec = chains["qrec"][chain].astype(np.int64), chains["rrec"][chain].astype(np.int64)
    reverse = strand == 1
    ext, eops, added = extended if extended is not None else extend_ends(*ends, query, reference, params, threads)
    columns = {name: found[name] + added[:, k] for k, name in enumerate(("score", "matches", "mismatches",
                                                                         "insertions", "deletions", "unknown"))}
    keep = np.flatnonzero(columns["score"] >= params.aligning.min_align_score)
    first, last, chain, qrec, rrec, strand, reverse, qoff, roff, rlen, ext = (
        v[keep] for v in (first, last, chain, qrec, rrec, strand, reverse, qoff, roff, rlen, ext))
    y0, ye = ay[first] - ext[:, 1] - roff, ay[last] + alen[last] + ext[:, 3] - roff
    per_gat, per_cols = np.zeros(ax.size, dtype=np.int64), np.zeros(ax.size, dtype=np.int64)
    per_gat[g], per_cols[g] = gat[:-1], gcols
    out = {"chain": chain, "qrec": qrec.astype(np.int32), "rrec": rrec.astype(np.int32), "strand": strand,
           "qstart": ax[first] - ext[:, 0] - qoff, "qend": ax[last] + alen[last] + ext[:, 2] - qoff,
           "rstart": np.where(reverse, rlen - ye, y0), "rend": np.where(reverse, rlen - y0, ye),
           **{name: column[keep] for name, column in columns.items()},
           "backbone": np.zeros(chain.size, dtype=np.int8)}
    out["backbone"] = one_to_one(out, query.lengths, reference.lengths, np.asarray(chains["backbone"])[chain] == 1)
    out.update({"ax": ax, "ay": ay, "alen": alen, "gat": per_gat, "gcols": per_cols, "ops": ops, "first": first,
                "last": last, "ext": np.ascontiguousarray(ext), "eops": eops})
    return out


TEXTS = {"cigar": 0, "cs": 1, "delta": 2, "snps": 3}


def text_of(alignments: dict, query: SeqSet, reference: SeqSet, kind: str, threads: int = 0) -> tuple:
    """The alignments' CIGARs (kind "cigar"), cs strings ("cs"), MUMmer delta indel lines, ended by
    0 ("delta"), or SNP and indel lines ("snps": show-snps -T's P1, SUB1, SUB2, P2, then the frames and
    both names; IUPAC letters as the FASTA held them, letters.py) as a string table (bytes, int64
    offsets), each in PAF's direction (on the reverse strand along the reference's forward strand)."""
    cpu = native.module("_cpu")
    threads = threads or native.threads()
    q, rf, rr = query.codes, reference.codes, reference.reverse_codes
    parts = [np.ascontiguousarray(alignments[name]) for name in ("ax", "ay", "alen", "gat", "gcols", "ops", "first",
                                                                  "last")]
    strand = np.ascontiguousarray(alignments["strand"], dtype=np.int8)
    n = int(parts[6].size)
    snp = _snp_parts(alignments, query, reference) if kind == "snps" else \
        [np.zeros(0, dtype=np.int64)] * 3 + [b"", np.zeros(1, dtype=np.int64)]
    size = np.empty(n, dtype=np.int64)
    ext = (np.ascontiguousarray(alignments["ext"], dtype=np.int64), np.ascontiguousarray(alignments["eops"]))
    letters = [np.ascontiguousarray(a) for side in (query, reference) for a in (side.letters or NONE)]
    cpu.align_text(q, rf, rr, *parts, strand, TEXTS[kind], size, np.empty(0, dtype=np.uint8), *snp, *ext, *letters,
                   threads)
    offsets = exclusive_sum(size)
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    cpu.align_text(q, rf, rr, *parts, strand, TEXTS[kind], offsets[:-1].copy(), out, *snp, *ext, *letters, threads)
    return out.tobytes(), offsets


def _snp_parts(al: dict, query: SeqSet, reference: SeqSet) -> list:
    """What the SNP lines need of each alignment: its records' starts in the codes (the reference's on
    its strand), the reference record's length, and each line's end: the frames (1, and 1 or -1 for
    the query) and both record names, as show-snps -T ends its lines."""
    from .formats.rows import format_rows, name_table

    qrec, rrec = al["qrec"].astype(np.int64), al["rrec"].astype(np.int64)
    reverse = al["strand"] == 1
    rbase = np.where(reverse, reference.reverse_starts()[rrec], reference.starts[rrec])
    text = np.frombuffer(format_rows(int(qrec.size), (
        "\t1\t", ("i", np.where(reverse, -1, 1)), "\t", ("n", rrec, name_table(reference.names)), "\t",
        ("n", qrec, name_table(query.names)), "\n")), dtype=np.uint8)
    ends = np.flatnonzero(text == ord("\n")) + 1
    return [np.ascontiguousarray(query.starts[qrec]), np.ascontiguousarray(rbase),
            np.ascontiguousarray(reference.lengths[rrec]), text.tobytes(),
            np.concatenate(([0], ends)).astype(np.int64)]


def write_alignments(al: dict, query: SeqSet, reference: SeqSet, paths: dict, meta: dict, sam_seq: bool = True,
                     variants_if=None) -> dict:
    """The alignments written where paths say (by kind: paf with cg:Z and cs:Z, delta (MUMmer), snps
    (SNPs and indels), sam, table (Parquet, the ALIGNMENT record)); meta: the run's metadata (record
    tables, parameters, FASTA paths), as the HSP table holds it. The texts are made from the
    alignments' columns as they are needed (text_of); maf and psl (formats/ucsc.py) too. sam_seq: the SAM lines' SEQ written (else `*`).
    Returns the alignments as written (write_aligned's)."""
    reference.reverse_codes  # made once, before threads read them
    return write_aligned(al, lambda kind: text_of(al, query, reference, kind),
                         (query.names, query.lengths, reference.names, reference.lengths), paths, meta, reference,
                         query, sam_seq, variants_if)


def write_aligned(al: dict, text, records: tuple, paths: dict, meta: dict, reference=None, query=None,
                  sam_seq: bool = True, variants_if=None) -> dict:
    """write_alignments of alignments whose texts text(kind) gives (align.text_of's kinds: a string
    table a kind, made by text_of or kept from a pipeline's parts); records: (query names, lengths,
    reference names, lengths). First the one-to-one alignments are cut where they share bases
    (one_to_one.trimmed, which reads the N columns of its cuts from query and reference), so that every
    output, count and variant holds each base once. Then every kind's texts are made side by side, and
    the files written side by side (one at a time where one is standard output). reference and query: the SeqSets the VCF (kind vcf:
    formats/vcf.py) reads its bases from; the query's bases are also the SAM lines' SEQ where sam_seq
    (else `*`). variants_if(al): asked once the alignments are cut, whether the SNP and VCF files are
    written (many genomes: close pairs only). Returns the alignments as written."""
    from concurrent.futures import ThreadPoolExecutor

    from .formats import alignments as formats
    from .formats import ucsc
    from .formats.chains import write_alignment_chains
    from .one_to_one import trimmed

    qnames, qlens, rnames, rlens = records
    start = time.perf_counter()
    al, text = trimmed(al, text, query, reference, Params(**meta["params"]) if meta.get("params") else Params())
    if variants_if is not None and not variants_if(al):
        paths = {kind: path for kind, path in paths.items() if kind not in ("snps", "vcf")}
    wanted = [kind for kind, outputs in (("cigar", ("paf", "table", "liftover", "sam", "maf", "psl")),
                                         ("cs", ("paf",)), ("delta", ("delta",)), ("snps", ("snps", "vcf")))
              if any(paths.get(out) for out in outputs)]
    texts: dict = {}

    def got(*kinds):
        """The texts of the last of kinds, once every one of them is made."""
        return [texts[kind].result() for kind in kinds][-1]

    def vcf() -> None:
        from .formats.vcf import write_vcf

        count = write_vcf(paths["vcf"], al, got(*wanted, "snps"), reference, query, formats.COMMAND_LINE[0])
        log.info("%s: %d VCF records", paths["vcf"], count)

    # each file as soon as its texts are made; the SNPs and the VCF, the largest, once every kind is (a
    # workflow's compare jobs' texts are removed then)
    writers = {
        "table": lambda: formats.write_table(paths["table"], al, got("cigar"), meta),
        "paf": lambda: formats.write_paf(paths["paf"], al, got("cigar"), got("cs"), qnames, qlens, rnames, rlens),
        "delta": lambda: formats.write_delta(paths["delta"], al, got("delta"), meta),
        "snps": lambda: formats.write_snps(paths["snps"], al, got(*wanted, "snps")),
        "vcf": vcf,
        "liftover": lambda: write_alignment_chains(paths["liftover"], al, got("cigar"), qnames, qlens, rnames, rlens),
        "sam": lambda: formats.write_sam(paths["sam"], al, got("cigar"), qnames, qlens, rnames, rlens,
                                         query if sam_seq else None),
        "maf": lambda: ucsc.write_maf(paths["maf"], al, got("cigar"), query, reference, formats.COMMAND_LINE[0]),
        "psl": lambda: ucsc.write_psl(paths["psl"], al, got("cigar"), qnames, qlens, rnames, rlens)}
    writers = [write for kind, write in writers.items() if paths.get(kind)]
    # the texts made side by side (a few long alignments keep each pass's last threads busy alone); the
    # files written side by side, but one at a time where one goes to standard output (lines would interleave)
    with ThreadPoolExecutor(max(1, len(wanted))) as making, \
            ThreadPoolExecutor(1 if "-" in paths.values() else max(1, len(writers))) as writing:
        texts.update({kind: making.submit(text, kind) for kind in wanted})
        for done in [writing.submit(write) for write in writers]:
            done.result()
    log.info("alignments written (%.2f s)", time.perf_counter() - start)
    return al
