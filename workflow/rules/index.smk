# Index: encode each genome once; compare jobs read the encoded codes, never the FASTA. A many-genomes
# run's index holds each genome's screen sketch too (gpu_kernels/workflow/screen.py).


rule index:
    input:
        fasta=lambda wc: config["genomes"][wc.genome],
    output:
        **({"screen": path("screen")} if MANY else {}),
        codes=path("codes"),
        chromosomes=path("chromosomes"),
    log:
        log_path("index", "genome"),
    benchmark:
        log_path("index", "genome", kind="benchmark")
    conda:
        "../envs/engine.yaml"
    # the FASTA read and encoded on threads (fasta.c): both genomes of a pair at once on 16 cores (the
    # compare jobs wait on them); a small genome (a bacterium's) takes one, so that many are encoded at once
    threads: lambda wc: 8 if genome_bases(wc.genome) > 100_000_000 else 1
    params:
        bin_size=lambda wc: BIN_SIZE[wc.genome],
    script:
        "../scripts/index.py"
