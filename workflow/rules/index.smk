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
    threads: 4  # the FASTA read and encoded on threads (fasta.c); both genomes of a pair at once on 8 cores
    params:
        bin_size=config["bins"]["size"],
    script:
        "../scripts/index.py"
