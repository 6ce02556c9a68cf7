"""The command line's options: the commands and their arguments, the engine's options generated
from Params' groups (a field's type, default and help: params.py)."""
from __future__ import annotations

import argparse

from .params import Params


class VersionAction(argparse.Action):
    """--version, the package's version looked up only when asked for."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from .release import version

        print(f"{parser.prog} {version()}")
        parser.exit()


def pair_arguments(parser) -> None:
    """compare's and align's positionals, QUERY then REFERENCE, and their PAF output."""
    parser.add_argument("query", help="query FASTA (plain or gzip)")
    parser.add_argument("reference", help="reference FASTA (plain or gzip)")
    parser.add_argument("-o", "--output", help="PAF output path ('-': standard output, the default when no output is "
                        "named)")


def parser(engine_defaults: bool = True) -> argparse.ArgumentParser:
    """The argument parser; option defaults come from Params (engine_defaults False: the engine's
    options have none, so that a parse holds only those given: given_engine)."""
    d = Params().as_dict() if engine_defaults else dict.fromkeys(Params().as_dict(), argparse.SUPPRESS)

    top = argparse.ArgumentParser(prog="gpu-genome-compare",
                                  description="Exact seed-and-extend genome comparison (also: python -m gpu_kernels).")
    top.add_argument("--version", action=VersionAction)
    sub = top.add_subparsers(dest="command", required=True)
    order = "QUERY REFERENCE   (the query first, then the reference: MUMmer and minimap2 take the reference first)"
    cmp_ = sub.add_parser("compare", usage=f"%(prog)s [options] {order}", help="QUERY first, then REFERENCE (mummer and minimap2 take the reference first): "
                          "every record of one against every record of the other, both strands",
                          description="Arguments: QUERY first, then REFERENCE (mummer and minimap2 take the reference "
                                      "first). Compares every query record with every reference record, both strands. "
                                      "PAF goes to standard output unless -o, --hsps or --delta names an output; the summary "
                                      "line goes to standard error.")
    pair_arguments(cmp_)
    cmp_.add_argument("--hsps", help="HSP table output path (Apache Parquet); with chains asked for, a last column "
                      "`chain`: each HSP's chain, -1 where none")
    cmp_.add_argument("--delta", help="MUMmer delta output path (show-coords, show-snps, mummerplot, delta-filter read it)")
    cmp_.add_argument("--chains", metavar="PAF", help="chains as PAF: a row a chain, cg:Z its HSPs and gaps, tp:A:P "
                      "for the one-to-one backbone, tp:A:S for the rest ('-': standard output)")
    cmp_.add_argument("--chain-file", metavar="CHAIN", help="chains in UCSC chain format (liftOver, CrossMap), backbone first")
    cmp_.add_argument("--chains-table", metavar="PARQUET", help="chains as an Apache Parquet table, a row a chain")
    engine_options(cmp_, d, skip={"part_bases"})  # compare writes HSP tables of a pair compared whole
    aln = sub.add_parser("align", usage=f"%(prog)s [options] {order}",
                         help="QUERY first, then REFERENCE: gapped alignments (the chains of HSPs filled and split), "
                              "PAF with cg:Z and cs:Z",
                         description="Arguments: QUERY first, then REFERENCE. Compares them as compare does, chains "
                                     "the HSPs and aligns each chain with affine gaps (docs/DEFINITIONS.md: \"What an alignment "
                                     "is\"). PAF (cg:Z =/X/I/D, cs:Z, NM:i, AS:i, tp:A:P for the one-to-one backbone) "
                                     "goes to standard output unless -o or another output is named.")
    pair_arguments(aln)
    aln.add_argument("--table", metavar="PARQUET", help="alignment table output path (Apache Parquet, CIGAR as a column)")
    aln.add_argument("--delta", help="MUMmer delta output path of the alignments (show-coords, show-snps, dnadiff read it)")
    aln.add_argument("--snps", help="SNPs and indels of the one-to-one alignments, output path (show-snps -T's columns P1 SUB1 SUB2 P2 FRM1 FRM2 "
                     "and the two names)")
    aln.add_argument("--vcf", help="VCF 4.3 output path of the one-to-one alignments on the reference: SNPs, "
                     "left-aligned indels, and SVTYPE DEL and INS (50 bases or more), INV, DUP and BND records "
                     "(bcftools, pysam)")
    aln.add_argument("--sam", help="SAM output path, as minimap2 writes an assembly's: a primary line on each aligned query "
                     "record (its ends soft-clipped, SEQ the whole record), its other one-to-one alignments "
                     "supplementary (2048), the rest secondary (256); =/X CIGARs")
    aln.add_argument("--sam-no-seq", action="store_true", help="SEQ left out (*) on every SAM line")
    aln.add_argument("--maf", help="MAF output path (UCSC's multiple alignment format, pairwise: a block an alignment, the "
                     "reference's row first; gzip where the name ends in .gz)")
    aln.add_argument("--psl", help="PSL output path (BLAT's and UCSC's: a line an alignment, its gapless blocks; gzip "
                     "where the name ends in .gz)")
    aln.add_argument("--liftover", metavar="CHAIN", help="the one-to-one alignments in UCSC chain format, a chain an "
                     "alignment, its gapless runs as blocks (liftOver and CrossMap lift coordinates through it)")
    aln.add_argument("--hsps", help="HSP table output path (Apache Parquet), each HSP's chain its last column")
    aln.add_argument("--chains", metavar="PAF", help="chains as PAF (as compare --chains)")
    aln.add_argument("--chain-file", metavar="CHAIN", help="chains in UCSC chain format (as compare --chain-file)")
    aln.add_argument("--chains-table", metavar="PARQUET", help="chains as an Apache Parquet table")
    engine_options(aln, d, {**OPTION_GROUPS, "aligning": "aligning"})
    rep = sub.add_parser("report", usage=f"%(prog)s [options] -o DIR {order}",
                         help="QUERY first, then REFERENCE: align, then a dnadiff-like report, a dotplot and the "
                              "files the standard tools read, in one folder",
                         description="Arguments: QUERY first, then REFERENCE. Aligns them as align does and writes into "
                                     "DIR: report.txt (dnadiff's sections and fields), records.tsv (aligned bases a "
                                     "record), dotplot.png, alignments.paf, alignments.delta, variants.vcf, "
                                     "alignments.parquet and chains.parquet.")
    rep.add_argument("query", help="query FASTA (plain or gzip)")
    rep.add_argument("reference", help="reference FASTA (plain or gzip)")
    rep.add_argument("-o", "--output-dir", required=True, metavar="DIR", help="the folder the report and files go to")
    engine_options(rep, d, {**OPTION_GROUPS, "aligning": "aligning"})
    sub.add_parser("warm", help="compile every GPU kernel once into CuPy's kernel cache (after install, or in a "
                   "fresh container), so that the first comparison runs as fast as the next",
                   description="Runs align (every output), compare, mems and mums once on the GPU on a small "
                               "simulated pair, so that CuPy compiles the kernels of every stage into its kernel cache "
                               "(~/.cupy/kernel_cache, or CUPY_CACHE_DIR). Takes a minute or so on a fresh machine.")
    for mode, text in (("mems", "maximal exact matches (like mummer -maxmatch -b -c)"),
                       ("mums", "maximal unique matches (like mummer -mum -b -c)")):
        m = sub.add_parser(mode, help=text, usage=f"%(prog)s [options] {order}")
        m.add_argument("query", help="query FASTA or FASTQ (plain or gzip)")
        m.add_argument("reference", help="reference FASTA (plain or gzip)")
        m.add_argument("-l", "--min-match", type=int, default=d["min_match"], help="shortest match (default %(default)s)")
        m.add_argument("-o", "--output", help="MUMmer-format output path (default: standard output)")
        m.add_argument("--paf", help="also write PAF")
        m.add_argument("--reference-tile", type=int, default=0, metavar="BASES",
                       help="most reference bases whose words are built at once: a larger reference is matched a "
                            "tile of whole records at a time, with the same output (default: what fits the GPU, or "
                            "half the free host memory)")
        m.add_argument("--backend", choices=("auto", "numpy", "cupy"), default="auto",
                       help="auto: cupy where CuPy finds a CUDA device, else numpy (default %(default)s)")
        m.add_argument("-t", "--threads", type=int, default=0, help="CPU threads (default: the cores this process may use)")
        m.add_argument("-v", "--verbose", action="count", default=0, help="log each stage to standard error (-vv: and each step's time)")
    paf = sub.add_parser("paf", help="PAF of every HSP of a Parquet HSP table (streamed, in parallel)")
    paf.add_argument("table", help="HSP table written by compare --hsps or the workflow (.parquet)")
    paf.add_argument("-o", "--output", default="-", help="PAF output path (default: standard output, as compare)")
    paf.add_argument("-t", "--threads", type=int, default=0, help="formatting threads (default: the cores, at most 16)")
    paf.add_argument("-v", "--verbose", action="count", default=0, help="log progress (-vv: and each step's time)")
    plot = sub.add_parser("plot", help="a dotplot of HSP tables: a genome grid, one chromosome pair, or several "
                          "assemblies against one reference (PNG, SVG or PDF by the output's suffix)",
                          description="Draws TABLE (compare --hsps, or a workflow's hsps.parquet) as a grid dotplot; "
                                      "with --query-record and --reference-record, the dotplot of that chromosome "
                                      "pair; with several tables of one reference, their query genomes stacked "
                                      "against it (D-GENIES' many-against-one view). Forward red, reverse blue.")
    plot.add_argument("tables", nargs="+", metavar="TABLE", help="HSP table(s) (.parquet)")
    plot.add_argument("-o", "--output", required=True, help="picture path: .png, .svg or .pdf")
    plot.add_argument("--query-record", help="the query record of the pair to draw (its FASTA name)")
    plot.add_argument("--reference-record", help="the reference record of the pair to draw")
    plot.add_argument("--order", choices=("reference", "file"), default="reference",
                      help="query records ordered and oriented along the reference by their best hits, or in file "
                           "order (default %(default)s)")
    plot.add_argument("--frame", choices=("aligned", "whole"), default="aligned",
                      help="a pair's dotplot framed on its hits or on both whole records (default %(default)s)")
    plot.add_argument("-v", "--verbose", action="count", default=0, help="log progress (-vv: and each step's time)")
    filt = sub.add_parser("filter", help="tighten a finished run's thresholds: a smaller HSP table and every output "
                          "the workflow makes of it (PAF, GECKO CSV, coverage tables, dotplots, heatmap), no new run",
                          description="Keeps the HSPs of TABLE at least --min-len long and --min-identity percent "
                                      "identical and writes them, and every output the workflow makes of a genome "
                                      "pair, into OUTDIR under the workflow's names. A looser --min-identity than the "
                                      "run's changes the extension itself: that needs a new run.")
    filt.add_argument("table", help="HSP table of a finished run (results/SET/Q_vs_R/hsps.parquet or compare --hsps)")
    filt.add_argument("-o", "--outdir", required=True, help="output directory (created; the table's own directory is refused)")
    filt.add_argument("--min-len", type=int, default=0, help="shortest HSP kept")
    filt.add_argument("--min-identity", type=float, default=0.0, help="lowest identity kept, percent")
    filt.add_argument("--no-text", action="store_true", help="no PAF, no GECKO CSV and no chains")
    filt.add_argument("--query", help="the query genome's FASTA, for the chains' blocks (default: the run's index "
                      "beside the table, else the FASTA file the table names)")
    filt.add_argument("--reference", help="the reference genome's FASTA, as --query")
    filt.add_argument("--delta", action="store_true", help="also the MUMmer delta file (hsps.delta; the workflow's outputs.delta)")
    filt.add_argument("--no-plots", action="store_true", help="no dotplots and no heatmap")
    filt.add_argument("--dotplot-order", choices=("reference", "file"), default="reference",
                      help="query records in the dotplots: along the reference by best hits, or in file order")
    filt.add_argument("--max-pair-dotplots", type=int, default=50, help="pair dotplots, most covered first")
    filt.add_argument("-t", "--threads", type=int, default=0, help="CPU threads (default: the cores this process may use)")
    filt.add_argument("-v", "--verbose", action="count", default=0, help="log each step to standard error (-vv: and each step's time)")
    for command in sub.choices.values():  # every option shows its default (argparse shows none by itself)
        for action in command._actions:
            if action.default not in (None, False, argparse.SUPPRESS) and action.option_strings and \
                    "default" not in (action.help or ""):
                action.help = f"{action.help or ''}{' ' if action.help else ''}(default: %(default)s)"
    return top


def given_engine(argv: list[str]) -> set[str]:
    """The engine parameters a command line gives (a preset's values take the place of the others)."""
    from .params import GROUP_OF

    return set(vars(parser(engine_defaults=False).parse_args(argv))) & set(GROUP_OF)


# the stage groups of compare's and align's options, in --help's order, and their titles
OPTION_GROUPS = {"preset": "preset", "seeding": "seeding", "extension": "extension", "reporting": "reporting",
                 "chaining": "chaining (with --chains, --chain-file or --chains-table)", "tiling": "tiling"}


def engine_options(cmd: argparse.ArgumentParser, d: dict, groups: dict = OPTION_GROUPS, skip=()) -> None:
    """The options of compare and align, generated from Params' groups (a field's type, default and
    help: params.py), then the backend, threads and verbosity."""
    from dataclasses import fields

    from .params import GROUPS, HIDDEN, PRESETS

    for group, title in groups.items():
        options = cmd.add_argument_group(title)
        for f in fields(GROUPS[group]):
            if f.name in HIDDEN or f.name in skip:
                continue
            flag, text = "--" + f.name.replace("_", "-"), f.metadata.get("help", "")
            if f.type == "bool":
                options.add_argument(flag, action="store_true", default=d[f.name], help=text)
            elif f.name == "strands":
                options.add_argument(flag, choices=("both", "forward", "reverse"), default=d[f.name], help=text)
            elif f.name == "preset":
                options.add_argument(flag, choices=tuple(PRESETS), default=d[f.name], help=text)
            elif f.type == "str":
                options.add_argument(flag, default=d[f.name], help=text)
            else:
                options.add_argument(flag, type=float if f.type == "float" else int, default=d[f.name], help=text)
    cmd.add_argument("--backend", choices=("auto", "numpy", "cupy"), default="auto",
                      help="auto: cupy where CuPy finds a CUDA device, else numpy (default %(default)s)")
    cmd.add_argument("-t", "--threads", type=int, default=0, help="CPU threads (default: the cores this process may use)")
    cmd.add_argument("-v", "--verbose", action="count", default=0, help="log each stage to standard error (-vv: and each step's time)")
