# Index: encode each genome once; compare jobs read the encoded codes, never the FASTA.


rule index:
    input:
        fasta=lambda wc: config["genomes"][wc.genome],
    output:
        codes=path("codes"),
        chromosomes=path("chromosomes"),
    log:
        log_path("index", "genome"),
    benchmark:
        log_path("index", "genome", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    params:
        bin_size=config["bins"]["size"],
    script:
        "../scripts/index.py"
