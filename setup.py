"""The compiled CPU code, built by `pip install -e .` (needs a C compiler and Python's headers).
Everything else about the package is in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("gpu_kernels._format", ["gpu_kernels/format.c"], extra_compile_args=["-O3"])])
