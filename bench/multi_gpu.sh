#!/usr/bin/env bash
# Multi-GPU scaling on one host: after an untimed warm-up run, the same all-vs-all run with 1 GPU, then with all of them (or with each
# count in GPU_COUNTS, e.g. GPU_COUNTS="1 2 4": the first that many devices visible), then with all of
# them and one bin pair per compare job (bins.group_size 1000: the job shape before groups).
#   [GPU_COUNTS="1 2 4"] bash bench/multi_gpu.sh [chromosomes] [Mbp per genome]
# Prints wall times, the speed-up, per-GPU job counts, the GPU busy fraction (half-second samples
# above 0 % utilization), each compare job's time outside compare() (start-up, loading, writing),
# and whether the outputs are identical.
set -uo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # usage: the comment above
    echo "usage: $(sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//')"; exit 0
fi
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
run() {  # run <dir> <gpus> [snakemake options]
    local dir=$1 gpus=$2; shift 2
    mkdir -p "$dir"; cp -r "$root/config" "$dir/"
    nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 500 > "$dir/gpu_util.csv" &
    local mon=$!
    local t0=$(date +%s.%N)
    python3 -m snakemake -s "$root/workflow/Snakefile" -d "$dir" --workflow-profile "$root/profiles/multi-gpu" \
        --configfile "$work/config.yaml" --cores 16 --resources gpu="$gpus" --quiet rules "$@" > "$dir/snakemake.log" 2>&1
    local rc=$?
    local t1=$(date +%s.%N)
    kill $mon
    echo "$(basename "$dir"), $gpus GPU(s): rc $rc, wall $(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s"
    case "$(basename "$dir")" in pairs|warm-up) ;; *) echo "$gpus $(awk "BEGIN {print $t1 - $t0}") $rc" >> "$work/walls.txt" ;; esac
    echo "  compare jobs per GPU: $(grep -ho 'bound to GPU [0-9]*' "$dir"/results/logs/compare -r | sort | uniq -c | tr '\n' ';')"
    echo "  GPU busy samples (>0 % utilization) per GPU: $(awk -F', ' '{t[$1]++} $2 > 0 {n[$1]++} END {for (g in t) printf "%s: %d of %d (%.0f %%) ", g, n[g], t[g], 100 * n[g] / t[g]}' "$dir/gpu_util.csv")"
    python3 - "$dir" <<'PY'
import csv, glob, os, sys
# a compare job's wall time (Snakemake's benchmark) less the compare() time of its bin pairs (their stats)
root = sys.argv[1]
jobs = glob.glob(os.path.join(root, "results/logs/benchmarks/compare/**/*.tsv"), recursive=True)
walls = [float(next(csv.DictReader(open(p), delimiter="\t"))["s"]) for p in jobs]
inside = [float(r["total_s"]) for p in glob.glob(os.path.join(root, "results/*/*/bins/*/*.stats.tsv"))
          for r in csv.DictReader(open(p), delimiter="\t")]
if jobs:
    print(f"  compare jobs: {len(jobs)}, wall {sum(walls):.1f} s summed, compare() {sum(inside):.1f} s, "
          f"outside compare() {(sum(walls) - sum(inside)) / len(jobs):.2f} s a job")
sys.path.insert(0, "bench")
from common.wfbench import print_rules, rule_times  # noqa: E402
print_rules(rule_times(os.path.join(root, "results")))  # where the rest of the wall time goes
PY
    tail -3 "$dir/snakemake.log"
}
# A first run on a fresh machine compiles CuPy's kernels into its cache (about 15 s); every timed run
# below finds them there, as every run after an install's first does (WARM_UP=0: no warm-up run).
[ "${WARM_UP:-1}" = 0 ] || CUDA_VISIBLE_DEVICES=0 run "$work/warm-up" 1
for n in ${GPU_COUNTS:-1 $ngpu}; do
    if [ "$n" -gt "$ngpu" ]; then echo "$n GPUs asked for, $ngpu here: left out"; continue; fi
    CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((n - 1))) run "$work/gpus$n" "$n"
done
run "$work/pairs" "$ngpu" --config "bins={size: 1000, group_size: 1000}"
python3 - "$work" <<'PY'
import sys, pathlib
sys.path.insert(0, "bench")
from common.wfbench import final_outputs as comparable
w = pathlib.Path(sys.argv[1])
runs = [line.split() for line in (w / "walls.txt").read_text().splitlines()]
one = next((float(wall) for gpus, wall, rc in runs if gpus == "1"), None)
print("GPUs  wall s  speed-up over one GPU  rc")
for gpus, wall, rc in runs:
    print(f"{gpus:>4} {float(wall):7.1f} {one / float(wall) if one else float('nan'):21.2f}  {rc}")
first = comparable(w / f"gpus{runs[0][0]}")
final = lambda outputs: {k: v for k, v in outputs.items() if "/bins/" not in k}  # compare jobs' folders differ
for gpus, _, _ in runs[1:]:
    print(f"outputs identical: {runs[0][0]} GPU(s) = {gpus} GPUs {first == comparable(w / f'gpus{gpus}')}")
print(f"outputs identical: = one bin pair a job {final(first) == final(comparable(w / 'pairs'))} ({len(first)} files)")
PY
