#!/usr/bin/env bash
# Device calls for whole genomes through the homology pipeline (logs go to $OUT, so that a run cut off
# still returns them):
#   bash bench/device_whole.sh check    # the pipeline's GPU tests; align on the heavy 150 Mbp pair (ROUNDS warm
#                                       # runs); the workflow on 2 x 6 x 50 Mbp heavy genomes, every default output
#   bash bench/device_whole.sh close    # bench/human_sized.py's close pair (2 x 3 Gbp): align on the two whole files
#                                       # (ALIGN=0: not), then the workflow, every default output (WORKFLOW=0: not)
#   bash bench/device_whole.sh distant  # the human-vs-mouse-like pair (3.0 and 2.7 Gbp), the same
#   bash bench/device_whole.sh sizes    # the GPU tests of the pipeline and the sketch; bench/size_estimate.py's
#                                       # heavy20 pair on the GPU; the close pair's dry run as the README writes it
#                                       # (no engine keys): its time and its outputs' size table
#   bash bench/device_whole.sh first    # on a fresh kernel cache what `pip install` runs (setup.py: the warm command
#                                       # where CuPy finds a GPU; WARM=1: the warm command, WARM=0: neither), then
#                                       # align on the 150 Mbp pair ROUNDS times (default 3: the first after install
#                                       # against the warm ones); TRUTH=1: then both scored against the pair's
#                                       # truth beside --max-freq 0 (exhaustive); STUDY=1: then, on a fresh cache again, what align compiles
#                                       # (bench/studies/after_warm.py)
#   PART=1 bash bench/device_whole.sh close  # first, align (-vv, ROUNDS runs) on a compare job's size alone: the
#                                       # close pair's records 7-9 against its records 7-12 (each stage's time)
# ENGINE: config lines of the workflow (default: engine: {fast: true, max_freq: 20}, bins: {size: 500000000};
# ENGINE=none: the README's whole-genome command as written, no engine keys, the defaults choosing;
# the distant run: ENGINE="$(grep -v '^#' config/distant_genomes.yaml)");
# MAXFREQ: align's --max-freq; ALIGN_OPTS: more options of align (PART=1 and the whole genomes'), e.g.
# '--preset distant --seed 14of22 --transitions 0';
# GPUS: the workflow's GPUs (default: every GPU of the machine, through profiles/multi-gpu); SLOTS: its
# jobs_per_gpu (default 1; docs/WORKFLOW.md's turns on the GPU: SLOTS=2); TURNS: its turns_per_gpu (jobs holding
# the GPU at once; default 1; the GPU's memory at its peak is printed); WARM=1: the warm command first
# (WARM=install: what `pip install` runs where CuPy finds a GPU);
# DRY=0: no dry run first (Snakemake's start alone); LIFT=1: after the workflow, reference points drawn in
# its one-to-one alignments (bench/liftover_check.py --save-points) and alignments.chain, xz-compressed in
# 15 MB pieces, to $OUT (cat lift_chain.xz.* | xz -d, then liftover_check.py --saved-points here).
# Each workflow run prints its rules' spans (bench/rule_spans.py) and compares its outputs' digests
# with the earlier runs' of other GPU counts.
set -uo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # usage: the comment above
    echo "usage: $(sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//')"; exit 0
fi
what=${1:-check}
. bench/common/device_setup.sh
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
gpus=${GPUS:-$(nvidia-smi -L | wc -l)}
# fewer GPUs than the machine has: only those are visible (a job binds to any free visible GPU)
if [ -z "${CUDA_VISIBLE_DEVICES:-}" ] && [ "$gpus" -lt "$(nvidia-smi -L | wc -l)" ]; then
    CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((gpus - 1))); export CUDA_VISIBLE_DEVICES
fi
engine=${ENGINE:-$'engine: {fast: true, max_freq: 20}\nbins: {size: 500000000}'}
[ "$engine" = none ] && engine="# the defaults"
slots=${SLOTS:-1}; engine="$engine"$'\n'"jobs_per_gpu: $slots"
[ -n "${TURNS:-}" ] && engine="$engine"$'\n'"turns_per_gpu: $TURNS"
peak() { /usr/bin/time -f "$1: %e s wall, %U user s, %M KB peak" "${@:2}"; }
install_warm() {  # what `pip install` runs after building the kernels (setup.py: kernels.warm_at_install)
    peak "the install's warm" python3 -c "import runpy, sys
print(runpy.run_path('gpu_kernels/kernels.py')['warm_at_install']('.', sys.executable))" 2>&1 | tail -2
}
workflow650() {  # the workflow on 2 x 6 x 50 Mbp heavy genomes, every default output; its jobs' logs to $OUT
    rm -rf /tmp/w650/results /tmp/w650/.snakemake
    python3 bench/workflow_heavy.py --chromosomes 6 --size 50 --backend cupy --cores "$(nproc)" --workdir /tmp/w650 --config "jobs_per_gpu: $slots" -- \
        --workflow-profile profiles/multi-gpu --resources gpu="$((gpus * slots))" 2>&1 | tee "$OUT/workflow_6x50.log" | tail -14
    tar czf "$OUT/logs_6x50.tgz" -C /tmp/w650/results logs 2>/dev/null
    du -sh /tmp/w650/results/*/*/* /tmp/w650/results/index 2>/dev/null | sort -h | tail -12 | tee -a "$OUT/workflow_6x50.log"
}
if [ "$what" = check ]; then
    [ "${TESTS:-1}" = 1 ] && python3 -m pytest -q -p no:cacheprovider tests/test_pipeline.py tests/test_gpu*.py -k "gpu or align or chain" 2>&1 | \
        tee "$OUT/gpu_tests.log" | tail -4
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp --warm-runs 1 --no-paf 2>&1 | tail -2
    a=$(ls /tmp/hp/*150*_a.fa | head -1); b=$(ls /tmp/hp/*150*_b.fa | head -1)
    for round in $(seq "${ROUNDS:-2}"); do
        peak "align 150 Mbp round $round" python3 -m gpu_kernels align "$a" "$b" --backend cupy --table /tmp/hp/al.parquet \
            -o /tmp/hp/al.paf 2>&1 | tail -2 | tee -a "$OUT/align150.log"
    done
    workflow650
    exit 0
fi
if [ "$what" = first ]; then  # the first align after install beside warm ones: a fresh kernel cache, the warm command
    python3 -c "import sys; sys.path.insert(0, 'bench'); from simulate import heavy_pair, write_fasta
import os; os.makedirs('/tmp/hp', exist_ok=True)
if not os.path.exists('/tmp/hp/heavy_150_b.fa'):
    a, b, am, bm = heavy_pair(150_000_000, 1, seed=11); write_fasta('/tmp/hp/heavy_150_a.fa', ['chr1'], a, am)
    write_fasta('/tmp/hp/heavy_150_b.fa', ['chr1'], b, bm)"
    CUPY_CACHE_DIR=$(mktemp -d /tmp/cupy-fresh-XXXX); export CUPY_CACHE_DIR
    [ "${WARM:-install}" = 1 ] && peak "warm command" python3 -m gpu_kernels warm 2>&1 | tail -2 | tee "$OUT/first.log"
    [ "${WARM:-install}" = install ] && install_warm | tee "$OUT/first.log"
    for round in $(seq "${ROUNDS:-3}"); do
        peak "align 150 Mbp after warm, run $round" python3 -m gpu_kernels align /tmp/hp/heavy_150_a.fa /tmp/hp/heavy_150_b.fa \
            --backend cupy -o /tmp/hp/al.paf -v 2> "$OUT/first_$round.log"
        tail -2 "$OUT/first_$round.log" | tee -a "$OUT/first.log"
    done
    if [ "${TRUTH:-0}" = 1 ]; then  # the same pair's truth: the default (fast mode chosen) beside --max-freq 0
        [ -f /tmp/hp/t150_truth.npz ] || python3 bench/simulate.py --model heavy --length 150e6 --chromosomes 1 \
            --seed 11 --truth --out /tmp/hp/t150 > /dev/null
        cmp -s /tmp/hp/t150_a.fa /tmp/hp/heavy_150_a.fa && echo "the truth's pair is the timed pair" | tee -a "$OUT/first.log"
        peak "align 150 Mbp --max-freq 0" python3 -m gpu_kernels align /tmp/hp/heavy_150_a.fa /tmp/hp/heavy_150_b.fa \
            --backend cupy --max-freq 0 -o /tmp/hp/al_exh.paf 2>&1 | tail -1 | tee -a "$OUT/first.log"
        python3 bench/score_alignments.py --truth /tmp/hp/t150_truth.npz --only tp:A:P default=/tmp/hp/al.paf+ \
            exhaustive=/tmp/hp/al_exh.paf+ 2>&1 | tee -a "$OUT/first.log"
    fi
    if [ "${STUDY:-0}" = 1 ]; then  # on a fresh cache again (the warm command first where WARM=1)
        CUPY_CACHE_DIR=$(mktemp -d /tmp/cupy-fresh-XXXX); export CUPY_CACHE_DIR
        [ "${WARM:-1}" = 1 ] && python3 -m gpu_kernels warm > /dev/null 2>&1
        python3 bench/studies/after_warm.py resources/Mhyopneumoniae_232.fa.gz resources/Mhyopneumoniae_7422.fa.gz \
            /tmp/hp/heavy_150_a.fa /tmp/hp/heavy_150_b.fa 2>&1 | tee "$OUT/after_warm.txt"
    fi
    exit 0
fi
if [ "$what" = sizes ]; then
    python3 -m pytest -q -p no:cacheprovider tests/test_pipeline.py tests/test_gpu*.py tests/test_sketch.py \
        -k "gpu or align or chain or sketch or estimate" 2>&1 | tee "$OUT/gpu_tests.log" | tail -3
    python3 bench/size_estimate.py --case heavy20 --backend cupy --cores "$(nproc)" 2>&1 | tee "$OUT/sizes_heavy20.txt"
    mkdir -p /tmp/hs
    [ -f /tmp/hs/close_b.fa ] || peak "simulated" python3 bench/human_sized.py --model close --out /tmp/hs/close 2>&1 | tail -1
    printf 'genomes:\n  A: /tmp/hs/close_a.fa\n  B: /tmp/hs/close_b.fa\nresults: /tmp/dry_results\n' > /tmp/dry.yaml
    for round in 1 2; do  # the first scans and sketches the genomes, the second reads them back
        peak "snakemake -n, round $round" python3 -m snakemake -n -q --cores "$(nproc)" --configfile /tmp/dry.yaml \
            > /dev/null 2> "$OUT/dry_$round.log"; grep -A4 "^estimated" "$OUT/dry_$round.log"
    done
    exit 0
fi
if [ "$what" = w650 ]; then
    workflow650
    exit 0
fi
model=$what
mkdir -p /tmp/hs
# the kernels CuPy compiles itself, compiled once before any timed run (as the README's install does)
[ "${WARM:-0}" = 1 ] && peak "warm command" python3 -m gpu_kernels warm 2>&1 | tail -1
[ "${WARM:-0}" = install ] && install_warm
[ -f "/tmp/hs/${model}_b.fa" ] || peak "simulated" python3 bench/human_sized.py --model "$model" --out "/tmp/hs/$model" \
    2>&1 | tee -a "$OUT/${model}.log"
df -h /tmp | tail -1
if [ "${PART:-0}" = 1 ]; then
    for side in a:7:9 b:7:12; do IFS=: read -r g lo hi <<< "$side"
        awk -v lo="$lo" -v hi="$hi" '/^>/ {n++} n >= lo && n <= hi' "/tmp/hs/${model}_$g.fa" > "/tmp/hs/part_$g.fa"
    done
    for round in $(seq "${ROUNDS:-2}"); do
        peak "align part round $round" timeout "${PART_LIMIT:-600}" python3 -m gpu_kernels align /tmp/hs/part_a.fa /tmp/hs/part_b.fa --backend cupy \
            --max-freq "${MAXFREQ:-20}" ${ALIGN_OPTS:-} -o /tmp/hs/part.paf -vv 2> "$OUT/part_$round.log"
        grep -v "DEBUG gpu_kernels.\(kernels\|native\)" "$OUT/part_$round.log" | tail -22
    done
fi
if [ "${ALIGN:-1}" = 1 ]; then
    peak "align whole ${model} genomes" timeout "${ALIGN_LIMIT:-400}" python3 -m gpu_kernels align "/tmp/hs/${model}_a.fa" \
        "/tmp/hs/${model}_b.fa" --backend cupy --max-freq "${MAXFREQ:-20}" ${ALIGN_OPTS:-} -o "/tmp/hs/${model}.paf" -v 2> "$OUT/align_${model}.log"
    grep -v DEBUG "$OUT/align_${model}.log" | grep -i "part \|alignments (\|assembled\|peak\|error" | tail -40
fi
if [ "${WORKFLOW:-1}" = 1 ]; then
    rm -rf "/tmp/wf_${model}/results" "/tmp/wf_${model}/.snakemake"  # a killed run's lock too
    if [ "${DRY:-1}" = 1 ]; then  # Snakemake's start alone (the genome scan and the job graph), results elsewhere
        rm -rf /tmp/dry_results
        printf 'genomes:\n  A: %s\n  B: %s\nresults: /tmp/dry_results\n%s\n' "/tmp/hs/${model}_a.fa" "/tmp/hs/${model}_b.fa" \
            "$engine" > /tmp/dry.yaml
        peak "snakemake --dry-run (scan and job graph)" python3 -m snakemake -n -q --cores "$(nproc)" --configfile /tmp/dry.yaml \
            > /dev/null 2> "$OUT/dry.log"; tail -1 "$OUT/dry.log"
    fi
    began=$(date +%s.%N)
    nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 500 > "$OUT/busy_${model}.csv" &
    sampler=$!
    # the disk the run takes at its peak, beside what the FASTA files take (df every second)
    used0=$(df -B1 --output=used /tmp | tail -1)
    (while true; do df -B1 --output=used /tmp | tail -1; sleep 1; done) > "$OUT/disk_${model}.txt" &
    disk_sampler=$!
    timeout "${WORKFLOW_LIMIT:-550}" python3 bench/workflow_heavy.py --fasta "/tmp/hs/${model}_a.fa" "/tmp/hs/${model}_b.fa" \
        --backend cupy --cores "$(nproc)" --workdir "/tmp/wf_${model}" --config "$engine" -- \
        --workflow-profile profiles/multi-gpu --resources gpu="$((gpus * slots))" 2>&1 | tee "$OUT/workflow_${model}.log" | tail -14
    ended=$(date +%s.%N)
    kill "$sampler" "$disk_sampler" 2>/dev/null
    fasta=$(cat "/tmp/hs/${model}_a.fa" "/tmp/hs/${model}_b.fa" | wc -c)
    sort -n "$OUT/disk_${model}.txt" | tail -1 | awk -v u="$used0" -v f="$fasta" '{printf "disk at its peak: %.1f GB over the start (%.2fx the FASTA, %.1f GB)\n", ($1 - u) / 1e9, ($1 - u) / f, f / 1e9}' | \
        tee -a "$OUT/workflow_${model}.log"
    python3 bench/gpu_busy.py "$OUT/busy_${model}.csv" "/tmp/wf_${model}/results/logs/compare" | tee -a "$OUT/workflow_${model}.log"
    awk -F', ' '$3 > peak {peak = $3} END {printf "GPU memory at its peak: %.1f GiB\n", peak / 1024}' "$OUT/busy_${model}.csv" | \
        tee -a "$OUT/workflow_${model}.log"
    awk -v a="$began" -v b="$ended" 'BEGIN {printf "snakemake: %.1f s from its command to its exit\n", b - a}' | \
        tee -a "$OUT/workflow_${model}.log"
    python3 bench/rule_spans.py "/tmp/wf_${model}/results/logs/benchmarks" --since "$began" | tee -a "$OUT/workflow_${model}.log"
    # the outputs' digests, kept beside the genomes for the next run's comparison (GPUS=1, 2, 4 in turn)
    (cd "/tmp/wf_${model}/results" && find . -type f -not -path './logs/*' | sort | xargs md5sum) > "/tmp/hs/md5_${model}_${gpus}.txt"
    cp "/tmp/hs/md5_${model}_${gpus}.txt" "$OUT/"
    for other in /tmp/hs/md5_"${model}"_*.txt; do
        [ "$other" = "/tmp/hs/md5_${model}_${gpus}.txt" ] && continue
        echo "outputs differing from $(basename "$other"): $(diff "$other" "/tmp/hs/md5_${model}_${gpus}.txt" | grep -c '^>') files:" \
            "$(diff "$other" "/tmp/hs/md5_${model}_${gpus}.txt" | grep '^>' | awk '{print $3}' | tr '\n' ' ')"
    done | tee -a "$OUT/workflow_${model}.log"
    tar czf "$OUT/logs_${model}.tgz" -C "/tmp/wf_${model}/results" logs 2>/dev/null
    if [ "${LIFT:-0}" = 1 ]; then
        chain=$(find "/tmp/wf_${model}/results" -name alignments.chain | head -1)
        peak "points drawn" python3 bench/liftover_check.py "$chain" "$(dirname "$chain")/alignments.paf" --points 10000 \
            --save-points "$OUT/lift_points.bed" 2>&1 | tee -a "$OUT/workflow_${model}.log"
        xz -T0 -6 -c "$chain" | split -b 15M - "$OUT/lift_chain.xz."
        ls -l "$chain" "$OUT"/lift_chain.xz.* | tee -a "$OUT/workflow_${model}.log"
    fi
    cp "$(ls -t /tmp/wf_${model}/.snakemake/log/*.log | head -1)" "$OUT/snakemake_${model}.log" 2>/dev/null
    du -sh "/tmp/wf_${model}/results"/*/*/* "/tmp/wf_${model}/results/index" 2>/dev/null | sort -h | tail -12 | \
        tee -a "$OUT/workflow_${model}.log"
fi
