"""GPU whole-genome comparison engine: exact seed-and-extend HSPs on NumPy or CuPy."""
from .engine import Result, compare
from .errors import InputError
from .params import Params

__all__ = ["compare", "Params", "Result", "InputError", "__version__"]


def __getattr__(name: str):
    """__version__, looked up on first use (importlib.metadata costs 50 ms of every start-up)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gpu-genome-compare")
    except PackageNotFoundError:  # run from a source tree that was not installed
        return "0+unknown"
