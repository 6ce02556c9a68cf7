"""Engine parameters, validated once, shared by the command line, the workflow and the tests."""
from __future__ import annotations

from dataclasses import dataclass, asdict, fields

from .errors import InputError


@dataclass(frozen=True)
class Params:
    """Parameters of one comparison (see DESIGN.md, "The engine")."""

    k: int = 32                 # word length, 8..32
    min_len: int = 64           # shortest HSP reported
    min_identity: float = 80.0  # lowest identity reported, percent
    match: int = 1              # score of a match
    mismatch: int = -1          # score of a mismatch
    n_score: int = -1           # score of any position holding a non-ACGT code
    xdrop: int = 0              # also stop a walk this far below its best score (0: off, GECKO's rule only)
    max_freq: int = 0           # fast mode: skip words seen more often than this on either side (0: exhaustive)
    tile_bytes: int = 0         # memory budget of one tile's seeds (0: 1 GiB on the CPU, half the free GPU memory)
    tile_len: int = 0           # longest side of a tile in bases (0: no limit; tests use small tiles)
    strands: str = "both"       # forward, reverse or both
    mode: str = "hsp"           # hsp (seed and extend), mem (maximal exact matches) or mum (maximal unique matches)
    min_match: int = 20         # shortest match of the mem and mum modes

    def __post_init__(self) -> None:
        if not 8 <= self.k <= 32:
            raise InputError(f"k = {self.k} is outside 8..32")
        if not 0 <= self.min_identity <= 100:
            raise InputError(f"min_identity = {self.min_identity} is outside 0..100")
        if self.min_len < 0:
            raise InputError(f"min_len = {self.min_len} is negative")
        if self.match <= 0:
            raise InputError(f"match score = {self.match} must be positive")
        if self.mismatch >= 0 or self.n_score > 0:
            raise InputError("mismatch score must be negative and the N score not positive")
        if max(self.match, -self.mismatch, -self.n_score) > 255:
            raise InputError("scores must lie within -255..255")
        if self.xdrop < 0:
            raise InputError(f"xdrop = {self.xdrop} is negative")
        if self.max_freq < 0:
            raise InputError(f"max_freq = {self.max_freq} is negative")
        if self.tile_bytes and self.tile_bytes < 1 << 16:
            raise InputError(f"tile_bytes = {self.tile_bytes} is below 64 KiB")
        if self.tile_len and self.tile_len < self.k:
            raise InputError(f"tile_len = {self.tile_len} is shorter than k")
        if self.mode not in ("hsp", "mem", "mum"):
            raise InputError(f"mode = {self.mode!r} is not hsp, mem or mum")
        if self.min_match < 1:
            raise InputError(f"min_match = {self.min_match} must be at least 1")
        if self.strands not in ("forward", "reverse", "both"):
            raise InputError(f"strands = {self.strands!r} is not forward, reverse or both")

    def as_dict(self) -> dict:
        """The parameters as a plain dict (for logs and stats)."""
        return asdict(self)

    @classmethod
    def from_mapping(cls, values: dict) -> "Params":
        """Build from a mapping, ignoring keys that are not parameters."""
        names = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in values.items() if key in names and value is not None})
