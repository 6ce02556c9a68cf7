"""Every path the workflow writes, named once: the Snakemake rules build them from TEMPLATES
(common.smk's path()), and `filter` writes a genome pair's outputs under PAIR_OUTPUTS' names. A
text format of formats.FORMATS is a pair output under its own file name, with an `outputs.<kind>`
switch in config/schema.yaml."""
from __future__ import annotations

from ..formats import FORMATS

PAIR = "{results}/{set}/{query}_vs_{reference}"
BINS = PAIR + "/bins/{qbin}__{rgroup}"

# A genome pair's outputs: kind -> name in its folder
PAIR_OUTPUTS = {
    "hsps": "hsps.parquet",
    "chained_hsps": "chained_hsps.parquet",
    **{kind: fmt.file for kind, fmt in FORMATS.items()},
    "chains_paf": "chains.paf",
    "chain_file": "chains.chain",
    "chains_table": "chains.parquet",
    "alignments_paf": "alignments.paf",
    "alignments_table": "alignments.parquet",
    "alignments_delta": "alignments.delta",
    "alignments_sam": "alignments.sam",
    "alignments_maf": "alignments.maf",
    "alignments_psl": "alignments.psl",
    "snps": "snps.tsv",
    "vcf": "variants.vcf",
    "alignments_chain": "alignments.chain",
    "coverage_pairs": "coverage_pairs.tsv",
    "coverage_query": "coverage_query.tsv",
    "coverage_reference": "coverage_reference.tsv",
    "coverage_genomes": "coverage_genomes.tsv",
    "grid_dotplot": "grid_dotplot.png",
    "html_dotplot": "dotplot.html",
    "coverage_heatmap": "coverage_heatmap.png",
    "pair_dotplots": "pair_dotplots",
}
TEXT_KINDS = tuple(FORMATS)  # made by the merge from the HSP table
CHAIN_KINDS = ("chains_paf", "chain_file", "chains_table")  # made by the assemble rule
# made by the alignments rule: kind -> align.write_aligned's kind
ALIGN_KINDS = {"alignments_paf": "paf", "alignments_table": "table", "alignments_delta": "delta",
               "alignments_sam": "sam", "alignments_maf": "maf", "alignments_psl": "psl", "snps": "snps", "vcf": "vcf",
               "alignments_chain": "liftover"}
PICTURE_KINDS = ("grid_dotplot", "html_dotplot", "coverage_heatmap", "pair_dotplots")

TEMPLATES = {
    "scan": "{results}/index/{genome}/scan.json",
    "sketch": "{results}/index/{genome}/sketch.npz",
    "codes": "{results}/index/{genome}/codes.2bit",
    "chromosomes": "{results}/index/{genome}/chromosomes.tsv",
    "screen": "{results}/index/{genome}/screen.npz",
    "index_list": "{results}/index/genomes.tsv",
    "bin_group": BINS,
    "bin_hsps": BINS + "/hsps.parquet",
    "bin_stats": BINS + "/stats.tsv",
    "bin_texts": BINS + ".texts.bin",
    "bin_text_parts": BINS + ".text_parts.bin",
    "assembled": PAIR + "/assembled",
    "hsp_coverage": PAIR + "/hsp_coverage.npz",
    "dots": PAIR + "/dots.npz",
    **{kind: f"{PAIR}/{name}" for kind, name in PAIR_OUTPUTS.items()},
    "hsp_table": PAIR + "/{hsptable}.parquet",
    "mummer": PAIR + "/matches.mummer.txt",
    "stats": PAIR + "/stats.tsv",
    "row": "{results}/{set}/rows/{genome}",
    "row_members": "{results}/{set}/members/{genome}.tsv",
    "set_members": "{results}/{set}/members.tsv",
    "ani": "{results}/{set}/ani.tsv",
    "ani_matrix": "{results}/{set}/ANIm_{matrix}.tab",
    "ani_heatmap": "{results}/{set}/ani_heatmap.png",
    "summary_tsv": "{results}/{summary}.tsv",
    "summary_png": "{results}/{summary}.png",
    "log": "{results}/logs/{name}.log",
    "benchmark": "{results}/logs/benchmarks/{name}.tsv",
}
