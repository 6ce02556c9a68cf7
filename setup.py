"""The compiled code, built by `pip install -e .`: the C extensions of the CPU path (needs a C
compiler and Python's headers; modules and sources listed in gpu_kernels/native.py) and, where nvcc
is on the PATH, the CUDA kernels as fatbins (gpu_kernels/kernels.py), so a GPU run compiles none of
its own kernels; and where CuPy finds a GPU, CuPy's own kernels compiled into its cache by the warm
command (kernels.warm_at_install), so the first run after install compiles nothing either. Everything
else about the package is in pyproject.toml."""
import os
import runpy
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

native = runpy.run_path("gpu_kernels/native.py")
kernels = runpy.run_path("gpu_kernels/kernels.py")


class BuildWithKernels(build_ext):
    """build_ext, then the .cu files by nvcc into gpu_kernels/cubins (of the source tree for an
    editable install, of the build for a wheel)."""

    def run(self):
        super().run()
        root = "" if self.inplace else self.build_lib
        try:
            built = kernels["build_all"](os.path.join(root, "gpu_kernels", "cubins"))
        except RuntimeError as error:  # an nvcc that cannot build them: the GPU compiles them on first use
            print(f"warning: CUDA kernels not built ahead of time: {error}")
            return
        print(f"CUDA kernels built ahead of time: {len(built)}" if built else "nvcc not found: CUDA kernels "
              "will be compiled on first use")
        print(kernels["warm_at_install"](root or ".", sys.executable))


setup(ext_modules=[Extension(f"gpu_kernels.{name}", [f"gpu_kernels/{f}" for f in files], include_dirs=["gpu_kernels"],
                             extra_compile_args=native["COMPILE_ARGS"])
                   for name, files in native["SOURCES"].items()],
      cmdclass={"build_ext": BuildWithKernels})
