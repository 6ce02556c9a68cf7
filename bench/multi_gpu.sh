#!/usr/bin/env bash
# Multi-GPU scaling on one host: the same all-vs-all run with 1 GPU, then with all of them.
#   bash bench/multi_gpu.sh [chromosomes] [Mbp per genome]
# Prints wall times, the speed-up, per-GPU job counts and whether the outputs are identical.
set -uo pipefail
chroms=${1:-8}; mbp=${2:-96}
root=$(pwd)
work=${WORK:-/tmp/multi}
rm -rf "$work" && mkdir -p "$work"
ngpu=$(nvidia-smi -L | wc -l)
python3 bench/simulate.py --length "${mbp}e6" --chromosomes "$chroms" --seed 7 --repeat-divergence 0.03 --out "$work/sim"
cat > "$work/config.yaml" <<CONF
genomes:
  simA: $work/sim_a.fa
  simB: $work/sim_b.fa
backend: cupy
bins:
  size: 1000   # every chromosome its own bin: one compare job per chromosome pair
outputs:
  max_pair_dotplots: 4
CONF
run() {  # run <dir> <gpus>
    mkdir -p "$1"; cp -r "$root/config" "$1/"
    nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 500 > "$1/gpu_util.csv" &
    local mon=$!
    local t0=$(date +%s.%N)
    python3 -m snakemake -s "$root/workflow/Snakefile" -d "$1" --workflow-profile "$root/profiles/multi-gpu" \
        --configfile "$work/config.yaml" --cores 16 --resources gpu="$2" --quiet rules > "$1/snakemake.log" 2>&1
    local rc=$?
    local t1=$(date +%s.%N)
    kill $mon
    echo "$2 GPU(s): rc $rc, wall $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s"
    echo "  compare jobs per GPU: $(grep -ho 'bound to GPU [0-9]*' "$1"/results/logs/compare -r | sort | uniq -c | tr '\n' ';')"
    echo "  GPU busy samples (>0 % utilization) per GPU: $(awk -F', ' '$2 > 0 {n[$1]++} END {for (g in n) printf "%s:%d ", g, n[g]}' "$1/gpu_util.csv")"
    tail -3 "$1/snakemake.log"
}
run "$work/one" 1
run "$work/all" "$ngpu"
python3 - "$work" <<'PY'
import sys, pathlib
sys.path.insert(0, "tests")
from wfhelpers import comparable
w = pathlib.Path(sys.argv[1])
a, b = comparable(w / "one"), comparable(w / "all")
print(f"outputs identical: {a == b} ({len(a)} files)")
PY
