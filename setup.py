"""The compiled CPU code, built by `pip install -e .` (needs a C compiler and Python's headers):
the modules and their sources are listed in gpu_kernels/native.py. Everything else about the
package is in pyproject.toml."""
import runpy

from setuptools import Extension, setup

native = runpy.run_path("gpu_kernels/native.py")
setup(ext_modules=[Extension(f"gpu_kernels.{name}", [f"gpu_kernels/{f}" for f in files], include_dirs=["gpu_kernels"],
                             extra_compile_args=native["COMPILE_ARGS"])
                   for name, files in native["SOURCES"].items()])
