"""GPU whole-genome comparison engine: exact seed-and-extend HSPs on NumPy or CuPy."""
import os
import sys

# No stage uses BLAS, and OpenBLAS starts a thread per core when NumPy is imported: 0.1 CPU s of
# every start-up on 2 cores, more on more. One thread, unless NumPy is loaded already or the
# variable is set.
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .engine import Result, compare  # noqa: E402
from .errors import InputError  # noqa: E402
from .params import Params  # noqa: E402

__all__ = ["compare", "Params", "Result", "InputError", "__version__"]


def __getattr__(name: str):
    """__version__, looked up on first use (release.py)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .release import version

    return version()
