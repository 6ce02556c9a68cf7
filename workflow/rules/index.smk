# Index: encode each genome once; compare jobs read the encoded codes, never the FASTA.


rule index:
    input:
        fasta=lambda wc: config["genomes"][wc.genome],
    output:
        codes=path("codes"),
        chromosomes=path("chromosomes"),
    params:
        bin_size=config["bins"]["size"],
    conda:
        "../envs/engine.yaml"
    log:
        log_path("index", "genome"),
    benchmark:
        log_path("index", "genome", kind="benchmark"),
    script:
        "../scripts/index.py"
