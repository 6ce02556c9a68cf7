"""The CUDA kernel files (`*.cu`): the constants they are compiled with, and their build ahead of time.

Every `.cu` file is compiled with the numbers below as `-D` macros, so Python and CUDA never copy a
number by hand. `setup.py` builds each file with nvcc at install, where nvcc is on the PATH, into a
fatbin (machine code for Ampere, Hopper and Blackwell, and PTX for later GPUs) in
`gpu_kernels/cubins/`, named by a digest of the source and the options: an edited source never
gets an old binary. `arrays.kernel` loads that fatbin when it is there, and otherwise compiles the
source with NVRTC through CuPy (cached by CuPy on disk), so a node of a cluster whose install had
nvcc compiles nothing per job.

This file imports nothing from the package (nor NumPy): setup.py runs it on its own.
"""
from __future__ import annotations

import os

HERE = os.path.dirname(os.path.abspath(__file__))
CUBINS = os.path.join(HERE, "cubins")

# Sequence codes the kernels test for (encode.py builds its tables from these).
N_CODE = 4            # any letter other than ACGT
BORDER = 5            # between and around records; never inside one
# Border codes around every record: >= k keeps seeds of two records from looking adjacent to the
# diagonal filter, and >= one extension chunk (PER_LANE * 32) lets the GPU read a whole chunk past a
# record end without leaving the array.
GAP = 128

BLOCK = 256           # threads a block of the one-thread-per-item kernels (words, groups, seeds, scan)
WARP = 32             # lanes of a warp: align_fill and align_posterior make a gap's rows 32 at once, a lane a row
SCAN_ITEMS = 4        # values a thread of scan.cu scans: a block covers BLOCK * SCAN_ITEMS values
SELECT_ITEMS = 16     # rows a thread of select.cu tests: a block selects from BLOCK * SELECT_ITEMS rows
EXTEND_THREADS = 128  # threads a block of extend.cu (4 warps)
PER_LANE = 4          # bases a lane of extend.cu reads per chunk: a chunk is 32 * PER_LANE bases
MEM_LIGHT = 64        # candidate pairs a query word's own thread walks in matches.cu; more, and blocks share them
MEM_CHUNK = 4096      # candidate pairs of such a word one block of matches.cu walks
DELTA_BLOCK = 128     # Parquet DELTA_BINARY_PACKED: deltas a block (pages.py and pages.cu)
MINIBLOCKS = 4        # miniblocks a block
TANDEM_UNIT = 6       # chains' blocks: the longest unit of a tandem run (docs/DEFINITIONS.md "What a chain is", 6)
TANDEM_FLANK = 10     # and the columns at a piece's ends in which one is looked for
SPACED_WALK = 64      # bases a side spaced.cu's first pass walks a seed; a longer walk is a second pass's
SPACED_LONG = -2      # the score that first pass leaves a seed whose walk went further

assert 32 * PER_LANE <= GAP

DEFINES = {"BORDER": BORDER, "N_CODE": N_CODE, "BLOCK": BLOCK, "WARP": WARP, "SCAN_ITEMS": SCAN_ITEMS, "SELECT_ITEMS": SELECT_ITEMS,
           "PER_LANE": PER_LANE, "MEM_LIGHT": MEM_LIGHT, "MEM_CHUNK": MEM_CHUNK, "DELTA_BLOCK": DELTA_BLOCK,
           "MINIBLOCKS": MINIBLOCKS, "TANDEM_UNIT": TANDEM_UNIT, "TANDEM_FLANK": TANDEM_FLANK,
           "SPACED_WALK": SPACED_WALK, "SPACED_LONG": SPACED_LONG}
# The ones the compiled CPU code (cpu.h) reads too: native.py passes them to the C compiler.
C_DEFINES = {"BORDER": BORDER, "N_CODE": N_CODE, "TANDEM_UNIT": TANDEM_UNIT, "TANDEM_FLANK": TANDEM_FLANK}

# Machine code for sm_80 (also runs on sm_86/89), sm_90, sm_100 and sm_120, those the nvcc at hand
# knows, and PTX of the newest of them that the driver compiles for anything later. extend.cu needs
# sm_80 (__reduce_max_sync).
ARCHS = (80, 90, 100, 120)


def gencode(nvcc: str) -> list[str]:
    """nvcc's -gencode options for the ARCHS this nvcc supports (sm_80 and sm_90 where it cannot say)."""
    import subprocess

    try:
        listed = subprocess.run([nvcc, "--list-gpu-arch"], capture_output=True, text=True, check=True).stdout.split()
        archs = [a for a in ARCHS if f"compute_{a}" in listed] or [80]
    except (OSError, subprocess.CalledProcessError):
        archs = [80, 90]
    options = []
    for a in archs:
        code = f"[sm_{a},compute_{a}]" if a == archs[-1] else f"sm_{a}"
        options += ["-gencode", f"arch=compute_{a},code={code}"]
    return options


def nvcc_options() -> list[str]:
    """The compiler options every kernel file is built with, by NVRTC or nvcc. --fmad=false: a product
    and a sum are rounded apart, as the host's C does (posterior.h's decoding is the same on both)."""
    return ["-std=c++17", "--fmad=false"] + [f"-D{name}={value}" for name, value in DEFINES.items()]


def files() -> list[str]:
    """The kernel files, by name."""
    return sorted(f for f in os.listdir(HERE) if f.endswith(".cu"))


def source(file: str) -> str:
    """The text of gpu_kernels/<file>, each `#include "name.h"` of a header here replaced by its text
    (scoring.h, shared with the C twin): NVRTC then needs no include path, and a fatbin's digest
    changes with the headers it reads."""
    import re

    with open(os.path.join(HERE, file)) as handle:
        text = handle.read()
    return re.sub(r'^#include "([\w.]+\.h)"$', lambda m: source(m.group(1))
                  if os.path.exists(os.path.join(HERE, m.group(1))) else m.group(0), text, flags=re.M)


def fatbin_name(file: str) -> str:
    """The prebuilt file of a kernel file as it is now: its stem and a digest of source and options."""
    import hashlib  # here, not at the top: every start-up of the CPU path imports this file

    digest = hashlib.sha256("\0".join([source(file), *nvcc_options()]).encode()).hexdigest()[:16]
    return f"{file[:-3]}.{digest}.fatbin"


def prebuilt(file: str) -> str | None:
    """The path of the fatbin built at install for the file's current source, or None."""
    path = os.path.join(CUBINS, fatbin_name(file))
    return path if os.path.exists(path) else None


def build_all(out: str = CUBINS, nvcc: str | None = None, threads: int = 0) -> list[str]:
    """Every kernel file compiled by nvcc into `out` (on several threads); the paths written. Nothing
    is built, and [] returned, where nvcc is not found. A failing compilation raises."""
    import shutil
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    nvcc = nvcc or shutil.which("nvcc")
    if not nvcc:
        return []
    os.makedirs(out, exist_ok=True)
    archs = gencode(nvcc)

    def build(file: str) -> str:
        target = os.path.join(out, fatbin_name(file))
        partial = target + ".partial"  # renamed when complete: an interrupted build leaves no fatbin
        done = subprocess.run([nvcc, *archs, *nvcc_options(), "-I", HERE, "-fatbin", "-o", partial,
                               os.path.join(HERE, file)],
                              capture_output=True, text=True)
        if done.returncode:
            if os.path.exists(partial):
                os.remove(partial)
            raise RuntimeError(f"nvcc could not build {file}:\n{done.stderr.strip()}")
        os.replace(partial, target)
        for old in os.listdir(out):  # builds of earlier sources of the file
            if old.startswith(file[:-3] + ".") and old.endswith(".fatbin") and old != os.path.basename(target):
                os.remove(os.path.join(out, old))
        return target

    with ThreadPoolExecutor(threads or min(8, os.cpu_count() or 1)) as pool:
        return list(pool.map(build, files()))


def warm_at_install(package_root: str, python: str, timeout: float = 900) -> str:
    """CuPy's own kernels (its sorts' helpers, scans, reductions, casts) compiled into its kernel cache by
    `python -m gpu_kernels warm`, run by `python` with the package at package_root, where that
    environment's CuPy finds a GPU: the first run after install then loads them rather than compiling
    them one by one. pip's build isolation is undone for the command (it would hide CuPy). Nothing is
    run, and why is returned, where there is no GPU or the environment cannot run the command yet (its
    dependencies installed after the build); a line for the install's log is returned either way.
    GPU_GENOME_COMPARE_WARM=0 skips it."""
    import subprocess

    if os.environ.get("GPU_GENOME_COMPARE_WARM", "1") == "0":
        return "CuPy's kernels not compiled at install (GPU_GENOME_COMPARE_WARM=0)"
    env = dict(os.environ)
    paths = env.get("PYTHONPATH", "").split(os.pathsep)
    if any("pip-build-env" in p for p in paths):  # pip's isolated build: its folders and its no-user-site left out
        paths = [p for p in paths if "pip-build-env" not in p]
        env.pop("PYTHONNOUSERSITE", None)
    env["PYTHONPATH"] = os.pathsep.join([os.path.abspath(package_root), *[p for p in paths if p]])
    probe = subprocess.run([python, "-c", "import cupy, pyarrow; assert cupy.cuda.runtime.getDeviceCount() > 0"],
                           env=env, capture_output=True, text=True)
    if probe.returncode:
        return "no GPU that CuPy finds (or no CuPy or pyarrow yet): CuPy's kernels not compiled at install"
    try:
        done = subprocess.run([python, "-m", "gpu_kernels", "warm"], env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"warning: CuPy's kernels not compiled at install (the warm command took over {timeout:.0f} s)"
    last = (done.stderr.strip().splitlines() or ["no message"])[-1]
    if done.returncode:
        return f"warning: CuPy's kernels not compiled at install ({last}): the first GPU run compiles them"
    return f"CuPy's kernels for this GPU: {last}"


if __name__ == "__main__":
    for path in build_all():
        print(path)
