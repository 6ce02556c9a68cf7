# Sourced by the device scripts (bench/device_hsp.sh, bench/device_whole.sh): the carried wheels
# installed, the compiled CPU code built as `pip install -e .` builds it (the modules and sources of
# gpu_kernels/native.py) here and in OLD_ROOT (another checkout, for side-by-side runs), and the CUDA
# sources built ahead of time.
export PYTHONUNBUFFERED=1
# a caller that sourced this already in the same tree (its exports inherited) is not built again
[ "${DEVICE_SETUP_DONE:-}" = "$(pwd)" ] && return 0
# An install compiles the package's bytecode once; a machine that forbids writing it makes every run
# compile the sources again (about 0.3 s), which users do not pay (bench/measure.py does the same).
unset PYTHONDONTWRITEBYTECODE
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | grep -v -i warning | tail -3
    # their bytecode compiled as pip compiles it for a user (the first snakemake run would compile it)
    python3 -m compileall -q -j 0 /tmp/site > /dev/null 2>&1
    export PYTHONPATH=/tmp/site:$(pwd)
    export PATH=/tmp/site/bin:$PATH
    [ -d .whl/bin ] && export PATH=$(pwd)/.whl/bin:$PATH  # peer tools carried beside the wheels (minimap2)
fi
for root in . ${OLD_ROOT:-}; do (cd "$root" && python3 - <<'PY'
import runpy, subprocess, sysconfig
native = runpy.run_path("gpu_kernels/native.py")
for name, files in native["SOURCES"].items():
    subprocess.run(["gcc", *native.get("COMPILE_ARGS", ["-O3"]), "-shared", "-fPIC", "-pthread", "-Igpu_kernels",
                    "-I" + sysconfig.get_paths()["include"],
                    *[f"gpu_kernels/{f}" for f in files], "-o", f"gpu_kernels/{name}" + sysconfig.get_config_var("EXT_SUFFIX")],
                   check=True)
PY
); done
python3 gpu_kernels/kernels.py | wc -l | xargs echo "CUDA kernel files built ahead of time by $(nvcc --version | tail -1):"
export DEVICE_SETUP_DONE=$(pwd)
