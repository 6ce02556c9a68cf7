#!/usr/bin/env bash
# Device calls for many genomes (comparisons.many; logs go to $OUT, so that a run cut off still returns them):
#   bash bench/device_many.sh [N ...]   # for each N (default 100): N simulated genomes (bench/simulate_set.py,
#                                       # 2-6 Mbp chromosomes, drafts, plasmids) all-vs-all with config/many_genomes.yaml
#                                       # on every GPU, SLOTS jobs a GPU (default 8, as the setting): wall time, the host's memory
#                                       # peak, the GPUs' busy fraction, where the time went (bench/rule_spans.py)
# TESTS=1: first the many-genomes GPU test; WARM=0: no warm command first; DRYRUN=N: a dry run of N genomes
# too (the job graph Snakemake plans, and its start's time; the genomes are simulated for it);
# TURNS=K: turns_per_gpu (jobs holding a GPU at once; default 2, as the setting); SNPS=0: alignments
# alone a pair (no snps.tsv), SNPS=all: every pair's SNPs (snps_min_ani 0; the setting: 99 % ANI or more);
# PROFILE=N: first bench/many_profile.py on the first set's first N genomes (a small pair's turn);
# SET=DIR: a set of your own (DIR/genomes.yaml, genomes carried in an ignored folder) in place of the simulated one.
set -uo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # usage: the comment above
    echo "usage: $(sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//')"; exit 0
fi
. bench/common/device_setup.sh
# scipy (the heatmap's clustering) where the machine has none: a wheel for its Python carried in .whl/extra
python3 -c "import scipy" 2>/dev/null || python3 -m pip install -q --no-index --no-deps --target /tmp/site \
    --find-links .whl/extra scipy 2>&1 | tail -1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
gpus=$(nvidia-smi -L | wc -l); slots=${SLOTS:-8}
[ "${WARM:-1}" = 1 ] && /usr/bin/time -f "warm command: %e s" python3 -m gpu_kernels warm 2>&1 | tail -1
[ "${TESTS:-0}" = 1 ] && python3 -m pytest -q -p no:cacheprovider tests/test_many.py -k gpu 2>&1 | tee "$OUT/tests.log" | tail -2
memory_sampler() {  # the host's used memory every half second, over the run
    while true; do free -b | awk '/^Mem:/ {print $3}'; sleep 0.5; done > "$1"
}
for n in "${@:-100}"; do
    set_dir=${SET:-/tmp/set$n}
    [ -f "$set_dir/genomes.yaml" ] || /usr/bin/time -f "simulated $n genomes: %e s" python3 bench/simulate_set.py \
        --genomes "$n" --out "$set_dir" 2>&1 | tee -a "$OUT/many$n.log"
    if [ -n "${PROFILE:-}" ]; then
        python3 bench/many_profile.py "$set_dir" --genomes "$PROFILE" > "$OUT/profile.txt" 2>&1; head -1 "$OUT/profile.txt"
        PROFILE=
    fi
    du -sh "$set_dir" | tee -a "$OUT/many$n.log"
    printf 'results: /tmp/many%s\njobs_per_gpu: %s\nturns_per_gpu: %s\nbackend: cupy\n' "$n" "$slots" "${TURNS:-2}" \
        > "/tmp/many$n.yaml"
    [ "${SNPS:-1}" = 0 ] && printf 'outputs:\n  snps: false\n' >> "/tmp/many$n.yaml"
    [ "${SNPS:-1}" = all ] && printf 'outputs:\n  snps_min_ani: 0\n' >> "/tmp/many$n.yaml"
    echo "jobs a GPU: $slots, turns a GPU: ${TURNS:-2}, SNPs: ${SNPS:-1}" | tee -a "$OUT/many$n.log"
    rm -rf "/tmp/many$n" .snakemake/locks
    base=$(free -b | awk '/^Mem:/ {print $3}')
    memory_sampler "$OUT/memory$n.txt" & msampler=$!
    nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 500 > "$OUT/busy$n.csv" & sampler=$!
    began=$(date +%s.%N)
    timeout "${LIMIT:-560}" python3 -m snakemake --cores "$(nproc)" --resources gpu=$((gpus * slots)) \
        --configfile config/many_genomes.yaml "$set_dir/genomes.yaml" "/tmp/many$n.yaml" -q >> "$OUT/many$n.log" 2>&1
    status=$?
    ended=$(date +%s.%N)
    kill "$sampler" "$msampler" 2>/dev/null
    awk -v a="$began" -v b="$ended" -v n="$n" -v s="$status" 'BEGIN {printf "%d genomes, %d pairs: %.1f s from snakemake'"'"'s command to its exit (status %d)\n", n, n * (n - 1) / 2, b - a, s}' | tee -a "$OUT/many$n.log"
    sort -n "$OUT/memory$n.txt" | tail -1 | awk -v b="$base" '{printf "host memory peak: %.1f GiB above the %.1f GiB in use before\n", ($1 - b) / 2^30, b / 2^30}' | tee -a "$OUT/many$n.log"
    python3 bench/gpu_busy.py "$OUT/busy$n.csv" 2>&1 | tail -4 | tee -a "$OUT/many$n.log"
    python3 bench/rule_spans.py "/tmp/many$n/logs/benchmarks" --since "$began" 2>&1 | tail -8 | tee -a "$OUT/many$n.log"
    grep -h "pairs in" /tmp/many"$n"/logs/row/default/*.log | awk '{p += $5; s += $8} END {printf "rows: %d pairs in %.1f s of jobs (%.3f s a pair)\n", p, s, s / p}' | tee -a "$OUT/many$n.log"
    grep -h "INFO gpu_kernels.workflow.many: pair " /tmp/many"$n"/logs/row/default/*.log | wc -l | \
        awk -v a="$began" -v b="$ended" '{printf "pairs done: %d, %.1f a second of the run\n", $1, $1 / (b - a)}' | tee -a "$OUT/many$n.log"
    du -sh "/tmp/many$n/default" | tee -a "$OUT/many$n.log"
    cp "/tmp/many$n/default/ani.tsv" "$OUT/ani$n.tsv" 2>/dev/null
    cp "/tmp/many$n/default/ani_heatmap.png" "$OUT/ani_heatmap$n.png" 2>/dev/null
    tar czf "$OUT/logs$n.tgz" -C "/tmp/many$n" logs 2>/dev/null
done
if [ -n "${DRYRUN:-}" ]; then
    n=$DRYRUN; set_dir=/tmp/set$n
    [ -f "$set_dir/genomes.yaml" ] || python3 bench/simulate_set.py --genomes "$n" --out "$set_dir" | tail -1
    printf 'results: /tmp/dry%s\njobs_per_gpu: %s\nbackend: cupy\n' "$n" "$slots" > "/tmp/dry$n.yaml"
    for round in 1 2; do  # the first scans every FASTA; the second reads the scans' cache
        /usr/bin/time -f "dry run of $n genomes, round $round: %e s, %M KB peak" python3 -m snakemake -n --cores "$(nproc)" \
            --resources gpu=$((gpus * slots)) --configfile config/many_genomes.yaml "$set_dir/genomes.yaml" "/tmp/dry$n.yaml" \
            > "$OUT/dry$n.log" 2>&1; tail -1 "$OUT/dry$n.log"; grep -A6 "^Job stats" "$OUT/dry$n.log" | head -8
    done
fi
