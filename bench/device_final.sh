#!/usr/bin/env bash
# One device call for the record: GPU tests, the GPU benchmark, exact-match modes on the GPU,
# 20,000 simulated long reads on the GPU, and the workflow with backend auto on a GPU host.
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
bash bench/device_run.sh tests 2>&1 | tail -4
python3 bench/gpu_pair.py --sizes 5 50 150 --runs 3 --budget-check 2>&1 | tee "$OUT/gpu_pair.log" | tail -32
export PYTHONPATH=/tmp/site:$(pwd)
python3 bench/matches_cpu.py --backend cupy --sim-length 150e6 --lengths 50 100 --no-mummer --workdir /tmp/m 2>&1 | tee "$OUT/matches_gpu.log"
(cd bench && python3 simulate_reads.py --out /tmp/reads) && ls -la /tmp/reads_reads.fq
/usr/bin/time -f "%e s wall, %M KB peak host memory: 20,000 reads, GPU mems -l 20" \
    python3 -m gpu_kernels mems /tmp/reads_reads.fq /tmp/reads_genome.fa -l 20 --backend cupy -o /tmp/reads_gpu.txt
python3 - <<'PY'
import hashlib
lines = sorted(l.strip() for l in open("/tmp/reads_gpu.txt") if l.strip())
print("reads output:", len(lines), "lines, sha256 of sorted lines", hashlib.sha256("\n".join(lines).encode()).hexdigest())
PY
bash bench/device_run.sh workflow 2>&1 | tail -3
