#!/usr/bin/env bash
# One device call: install carried wheels, GPU tests, the GPU benchmark, the workflow on a GPU host.
#   bash bench/device_run.sh [tests|bench|workflow|all] [bench args...]
set -uo pipefail
what=${1:-all}; shift || true
export PYTHONUNBUFFERED=1
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | grep -v -i warning | tail -3
    export PYTHONPATH=/tmp/site:$(pwd)
    export PATH=/tmp/site/bin:$PATH
fi
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__)"
if [ "$what" = tests ] || [ "$what" = all ]; then
    python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -25
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
    python3 bench/gpu_pair.py "$@" 2>&1 | tee "$OUT/gpu_bench.log"
fi
if [ "$what" = workflow ] || [ "$what" = all ]; then
    rm -rf /tmp/wf && mkdir -p /tmp/wf && cp -r config resources /tmp/wf/
    (cd /tmp/wf && python3 -m snakemake -s "$OLDPWD/workflow/Snakefile" --cores 4 2>&1 | tail -3)
    cat /tmp/wf/results/default/*/stats.tsv | tee "$OUT/workflow_stats.tsv"
fi
