"""The installed release's version, looked up on first use (importlib.metadata costs 50 ms of every
start-up): what `--version`, the package's `__version__` and the VCF header say."""
from __future__ import annotations

import functools


@functools.cache
def version() -> str:
    from importlib.metadata import PackageNotFoundError, version as installed

    try:
        return installed("gpu-genome-compare")
    except PackageNotFoundError:  # run from a source tree that was not installed
        return "0+unknown"
