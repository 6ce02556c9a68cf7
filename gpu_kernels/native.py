"""The compiled CPU code: the text row printer (`_format`, format.c), the hot loops of the NumPy
backend (`_cpu`: cpu.c with fasta.c, extend.c, words.c, seeds.c and matches.c) and the dotplot
raster (`_dots`: workflow/dots.c, beside the accumulator that calls it).

Both are C extensions built by the install command (setup.py reads SOURCES from here). A source
tree used without installing (a Snakemake conda environment runs the repository's scripts) builds
them once into ~/.cache/gpu-genome-compare, keyed by the sources and the Python.
"""
from __future__ import annotations

import functools
import importlib
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = {"_format": ["format.c", "format_cigar.c"], "_cpu": ["cpu.c", "sort.c", "fasta.c", "fasta_layout.c", "bytes.c", "twobit.c", "sketch.c", "extend.c", "sweep.c", "spaced.c", "words.c", "seeds.c", "matches.c", "chains.c", "placement.c", "backbone.c", "align.c", "align_text.c", "align_trim.c", "posterior.c", "pieces.c"],
           "_dots": ["workflow/dots.c"]}
HEADERS = ["cpu.h", "scoring.h", "extend.h", "spaced.h", "posterior.h", "cover.h"]
# the sequence codes the C loops test for, from kernels.py (read as a file: setup.py runs this one alone)
_SHARED = runpy.run_path(os.path.join(HERE, "kernels.py"))
# -ffp-contract=off: no product and sum fused into one rounding where the CPU has FMA (posterior.h's
# decoding must round as the device's, built with --fmad=false, does)
COMPILE_ARGS = ["-O3", "-ffp-contract=off"] + [f"-D{name}={value}" for name, value in _SHARED["C_DEFINES"].items()]


@functools.lru_cache(maxsize=None)
def module(name: str):
    """The compiled module gpu_kernels.<name>, from the install or else built into the cache."""
    try:
        return importlib.import_module(f"gpu_kernels.{name}")
    except ImportError:
        return _build(name)


def _build(name: str):
    # imported here: every start-up of the CPU path imports this file, and these cost 9 ms
    import hashlib
    import importlib.util
    import shutil
    import sysconfig
    import tempfile

    sources = [os.path.join(HERE, f) for f in SOURCES[name]]
    digest = hashlib.sha1((sys.version + " ".join(COMPILE_ARGS)).encode())
    for path in sources + [os.path.join(HERE, h) for h in HEADERS]:
        with open(path, "rb") as handle:
            digest.update(handle.read())
    folder = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "gpu-genome-compare",
                          digest.hexdigest()[:16])
    target = os.path.join(folder, name + sysconfig.get_config_var("EXT_SUFFIX"))
    if not os.path.exists(target):
        try:
            from setuptools import Distribution, Extension
            from setuptools.command.build_ext import build_ext

            os.makedirs(folder, exist_ok=True)
            build = tempfile.mkdtemp(dir=folder)  # jobs building at once each build their own, then rename
            extension = Extension(name, sources, include_dirs=[HERE], extra_compile_args=COMPILE_ARGS)
            command = build_ext(Distribution({"ext_modules": [extension]}))
            command.build_lib, command.build_temp = build, build
            command.ensure_finalized()
            command.run()
            os.replace(os.path.join(build, os.path.basename(target)), target)
            shutil.rmtree(build, ignore_errors=True)
        except Exception as error:  # no compiler, no headers, no setuptools
            from .errors import InputError

            raise InputError(f"the compiled CPU code ({name}) is missing and could not be built ({error}): install "
                             "with `pip install -e .`, which needs a C compiler") from None
    spec = importlib.util.spec_from_file_location(f"gpu_kernels.{name}", target)
    compiled = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compiled)
    return compiled


def threads() -> int:
    """Threads the compiled stages use: GPU_GENOME_COMPARE_THREADS, else the cores this process may run on
    (a Snakemake job sets the variable to its `threads`)."""
    value = os.environ.get("GPU_GENOME_COMPARE_THREADS", "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def cpu():
    """gpu_kernels._cpu."""
    return module("_cpu")
