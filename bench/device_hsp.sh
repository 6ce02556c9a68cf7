#!/usr/bin/env bash
# Device calls for the HSP path and the extension rule:
#   bash bench/device_hsp.sh engine     # GPU tests, the command line on the heavy 150 Mbp pair, stage tables
#   bash bench/device_hsp.sh workflow   # the workflow on 2 x 3 x 30 Mbp heavy genomes, backend cupy
#   bash bench/device_hsp.sh profile    # what a fresh machine compiles, where the warm run goes, disk speed
#   bash bench/device_hsp.sh path       # the command line on the heavy 150 Mbp pair, then the workflow
#   bash bench/device_hsp.sh outputs    # GPU tests with the formats and plots suites, then the workflow
# Logs go to $OUT so a run cut off still returns them.
set -uo pipefail
what=${1:-engine}
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | grep -v -i warning | tail -3
    export PYTHONPATH=/tmp/site:$(pwd)
    export PATH=/tmp/site/bin:$PATH
fi
# The compiled CPU code, as `pip install -e .` would build it.
python3 - <<'PY'
import subprocess, sysconfig
subprocess.run(["gcc", "-O3", "-shared", "-fPIC", "-I" + sysconfig.get_paths()["include"], "gpu_kernels/format.c",
                "-o", "gpu_kernels/_format" + sysconfig.get_config_var("EXT_SUFFIX")], check=True)
PY
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
nproc
if [ "$what" = engine ]; then
    python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu.py tests/test_formats.py tests/test_layout.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -5
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp 2>&1 | tee "$OUT/hsp_path.log"
    python3 bench/gpu_pair.py --sizes 5 50 --heavy 150 --runs 2 --workdir /tmp/hp 2>&1 | tee "$OUT/gpu_pair.log" | tail -45
fi
if [ "$what" = path ]; then
    python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu.py tests/test_formats.py tests/test_plots.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -5
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp 2>&1 | tee "$OUT/hsp_path.log"
    python3 bench/workflow_heavy.py --chromosomes 3 --size 30 --backend cupy --cores 16 -- --resources gpu=1 2>&1 | tee "$OUT/workflow.log"
fi
if [ "$what" = outputs ]; then
    python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu.py tests/test_formats.py tests/test_plots.py \
        tests/test_coverage.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -5
    python3 bench/workflow_heavy.py --chromosomes 3 --size 30 --backend cupy --cores 16 -- --resources gpu=1 2>&1 | tee "$OUT/workflow.log"
fi
if [ "$what" = workflow ]; then
    python3 bench/workflow_heavy.py --chromosomes 3 --size 30 --backend cupy --cores 16 -- --resources gpu=1 2>&1 | tee "$OUT/workflow.log"
fi
if [ "$what" = profile ]; then
    python3 bench/kernel_compile.py 2>&1 | tee "$OUT/compile.log"
    python3 - <<'PY'
import os, sys
sys.path.insert(0, "bench")
from simulate import heavy_pair, write_fasta
os.makedirs("/tmp/hp", exist_ok=True)
first, second, fm, sm = heavy_pair(150_000_000, 1, seed=11)
write_fasta("/tmp/hp/heavy_150_a.fa", ["chr1"], first, fm)
write_fasta("/tmp/hp/heavy_150_b.fa", ["chr1"], second, sm)
PY
    for run in 1 2; do  # the first fills the default kernel cache
        python3 bench/hsp_profile.py /tmp/hp/heavy_150_a.fa /tmp/hp/heavy_150_b.fa 2>&1 | tee "$OUT/hsp_profile.log"
    done
    python3 bench/workflow_heavy.py --chromosomes 3 --size 30 --backend cupy --cores 16 -- --resources gpu=1 2>&1 | tee "$OUT/workflow.log"
fi
