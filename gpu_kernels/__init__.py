"""GPU whole-genome comparison engine: exact seed-and-extend HSPs on NumPy or CuPy."""
from .engine import Result, compare
from .errors import InputError
from .params import Params

__all__ = ["compare", "Params", "Result", "InputError"]
