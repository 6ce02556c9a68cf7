"""GPU whole-genome comparison engine: exact seed-and-extend HSPs on NumPy or CuPy."""
from importlib.metadata import PackageNotFoundError, version as _version

from .engine import Result, compare
from .errors import InputError
from .params import Params

try:
    __version__ = _version("gpu-genome-compare")
except PackageNotFoundError:  # run from a source tree that was not installed
    __version__ = "0+unknown"

__all__ = ["compare", "Params", "Result", "InputError", "__version__"]
