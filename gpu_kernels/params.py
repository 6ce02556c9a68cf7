"""Engine parameters, grouped by the stage that reads them, validated once.

The command line, the workflow config (`engine:` keys) and the tests all use the same flat names
(`k`, `min_len`, `xdrop`, ...); `Params(**flat)` sorts them into the stage groups, and each stage
function receives its group: `params.seeding.k` is the `k` of `config/config.yaml` and the `k`
argument of the kernels.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from .errors import InputError
from .kernels import TANDEM_UNIT

MAX_TANDEM = 10_000  # the longest block_tandem: a piece's ends are scanned as far on either side


@dataclass(frozen=True)
class Seeding:
    """Words and seeds: word length, fast mode and strands."""

    k: int = field(default=32, metadata={"help": "word length, 8..32"})
    max_freq: int = field(default=0, metadata={"help": "fast mode: skip words more frequent than this in their record (0: exhaustive; not given, 20 for a pair of more than 1 Gbp or one mostly of repeat copies' HSPs)"})
    strands: str = field(default="both", metadata={"help": "forward, reverse or both"})
    seed: str = field(default="exact", metadata={"help": "exact (k-mers), 12of19 or 14of22 (LASTZ's spaced seeds: distant genomes) or a 0/1 pattern"})
    transitions: int = field(default=1, metadata={"help": "spaced seeds: transitions (A-G, C-T) a seed holds, 0 or 1"})
    soft_mask: bool = field(default=False, metadata={"help": "spaced seeds: no seed holds a lowercase (soft-masked) base of the FASTA files; alignments still run through them"})

    def __post_init__(self) -> None:
        if self.seed != "exact":
            from .spaced import seed_pattern
            seed_pattern(self.seed)
        if self.soft_mask and self.seed == "exact":
            raise InputError("soft_mask applies to spaced seeds: give --seed 12of19 (or --preset distant) with it")
        if self.transitions not in (0, 1):
            raise InputError(f"transitions = {self.transitions} is not 0 or 1")
        if not 8 <= self.k <= 32:
            raise InputError(f"k = {self.k} is outside 8..32")
        if self.max_freq < 0:
            raise InputError(f"max_freq = {self.max_freq} is negative")
        if self.strands not in ("forward", "reverse", "both"):
            raise InputError(f"strands = {self.strands!r} is not forward, reverse or both")


@dataclass(frozen=True)
class Extension:
    """Ungapped extension: scoring, the X-drop and the identity an HSP end must keep."""

    match: int = field(default=1, metadata={"help": "score of a match"})
    mismatch: int = field(default=-1, metadata={"help": "score of a mismatch"})
    n_score: int = field(default=-1, metadata={"help": "score of any position holding a non-ACGT code"})
    xdrop: int = field(default=50, metadata={"help": "stop a side's walk this far below the side's best score (0: off)"})
    min_identity: float = field(default=80.0, metadata={"help": "identity a side's end must keep (half the seed counted), percent"})
    hsp_xdrop: int = field(default=910, metadata={"help": "spaced seeds: stop a side's walk this far below its best HOXD70 score"})
    hsp_threshold: int = field(default=3000, metadata={"help": "spaced seeds: HSPs scoring less (HOXD70) are dropped"})
    entropy: int = field(default=1, metadata={"help": "spaced seeds: 1 scales an HSP's score down on low-complexity bases, 0 does not"})

    def __post_init__(self) -> None:
        if self.match <= 0:
            raise InputError(f"match score = {self.match} must be positive")
        if self.mismatch >= 0 or self.n_score > 0:
            raise InputError("mismatch score must be negative and the N score not positive")
        if max(self.match, -self.mismatch, -self.n_score) > 255:
            raise InputError("scores must lie within -255..255")
        if self.xdrop < 0:
            raise InputError(f"xdrop = {self.xdrop} is negative")
        if self.hsp_xdrop < 1 or self.hsp_threshold < 0:
            raise InputError("hsp_xdrop must be positive and hsp_threshold not negative")
        if self.entropy not in (0, 1):
            raise InputError(f"entropy = {self.entropy} is not 0 or 1")
        if not 0 <= self.min_identity <= 100:
            raise InputError(f"min_identity = {self.min_identity} is outside 0..100")
        if 0 < self.min_identity < 1:  # a fraction, as PAF's de:f and many tools give it, would keep nearly everything
            raise InputError(f"min_identity = {self.min_identity:g} is a percent (0..100), not a fraction: for "
                             f"{100 * self.min_identity:g} % give {100 * self.min_identity:g}")


@dataclass(frozen=True)
class Reporting:
    """Which HSPs are reported."""

    min_len: int = field(default=64, metadata={"help": "shortest HSP reported"})

    def __post_init__(self) -> None:
        if self.min_len < 0:
            raise InputError(f"min_len = {self.min_len} is negative")


@dataclass(frozen=True)
class Tiling:
    """How a pair is cut into tiles whose seeds fit in memory."""

    tile_bytes: int = field(default=0, metadata={"help": "memory budget of the seeds held at once: a GPU tile's, a CPU batch's (0: half the free GPU memory, 256 MiB on the CPU)"})
    tile_len: int = field(default=0, metadata={"help": "longest side of a tile in bases (0: no limit; tests use small tiles)"})
    part_bases: int = field(default=500_000_000, metadata={"help": "most bases of either genome compared at once: a larger pair is compared in parts of whole records and assembled (pipeline.py), with the same outputs (a part of two 500 Mbp sides needs about 40 GB of GPU memory)"})

    def __post_init__(self) -> None:
        if self.tile_bytes and self.tile_bytes < 1 << 16:
            raise InputError(f"tile_bytes = {self.tile_bytes} is below 64 KiB")
        if self.tile_len < 0:
            raise InputError(f"tile_len = {self.tile_len} is negative")
        if self.part_bases < 1:
            raise InputError(f"part_bases = {self.part_bases} must be at least 1")


@dataclass(frozen=True)
class Matching:
    """The exact-match modes (mode mem or mum) instead of seed and extend (mode hsp)."""

    mode: str = field(default="hsp", metadata={"help": "hsp (seed and extend), mem (maximal exact matches) or mum (maximal unique matches)"})
    min_match: int = field(default=20, metadata={"help": "shortest match of the mem and mum modes"})

    def __post_init__(self) -> None:
        if self.mode not in ("hsp", "mem", "mum"):
            raise InputError(f"mode = {self.mode!r} is not hsp, mem or mum")
        if self.min_match < 1:
            raise InputError(f"min_match = {self.min_match} must be at least 1")


@dataclass(frozen=True)
class Chaining:
    """Chains of HSPs and their one-to-one backbone (docs/DEFINITIONS.md "What a chain is")."""

    max_gap: int = field(default=10_000, metadata={"help": "most bases between two consecutive HSPs of a chain, on either genome"})
    max_shift: int = field(default=5_000, metadata={"help": "most a chain's diagonal moves between two HSPs (the longest indel bridged)"})
    chain_gap_open: int = field(default=5, metadata={"help": "cost of a diagonal shift (an indel) between two HSPs"})
    chain_gap_extend: int = field(default=1, metadata={"help": "cost of each base a shift moves the diagonal by"})
    chain_gap_base: int = field(default=1, metadata={"help": "hundredths of a score point a base of the gap costs (unaligned bases)"})
    min_chain_score: int = field(default=300, metadata={"help": "chains scoring less are dropped (a lone repeat hit scores 50-300)"})
    block_drop: int = field(default=7, metadata={"help": "a chain block is cut where its columns' score drops this far (0: never)"})
    block_mismatch: int = field(default=-2, metadata={"help": "a mismatch's score in that reading (a match scores `match`)"})
    block_tandem: int = field(default=16, metadata={"help": "tandem runs this long at a block piece's ends are left out (0: never)"})

    def __post_init__(self) -> None:
        for name in ("max_gap", "chain_gap_open", "chain_gap_extend", "chain_gap_base", "min_chain_score",
                     "block_drop", "block_tandem"):
            if getattr(self, name) < 0:
                raise InputError(f"{name} = {getattr(self, name)} is negative")
        if self.block_mismatch >= 0:
            raise InputError(f"block_mismatch = {self.block_mismatch} must be negative")
        if 0 < self.block_tandem < 2 * TANDEM_UNIT:
            raise InputError(f"block_tandem = {self.block_tandem} must be 0 or at least {2 * TANDEM_UNIT}")
        if self.block_tandem > MAX_TANDEM:  # each piece's ends are scanned that far: a longer one would crawl
            raise InputError(f"block_tandem = {self.block_tandem} is above {MAX_TANDEM} (a run that long is a "
                             "satellite array: 0 keeps every piece's ends)")
        if self.max_shift < 1:
            raise InputError(f"max_shift = {self.max_shift} must be at least 1")


@dataclass(frozen=True)
class Aligning:
    """Gapped alignments of chains (docs/DEFINITIONS.md "What an alignment is")."""

    align_match: int = field(default=2, metadata={"help": "score of an identical ACGT column"})
    align_mismatch: int = field(default=3, metadata={"help": "cost of any other column of two bases"})
    gap_open: int = field(default=6, metadata={"help": "cost of opening a gap (a run of I or D columns), besides its columns'"})
    gap_extend: int = field(default=2, metadata={"help": "cost of each column of a gap"})
    band: int = field(default=8, metadata={"help": "diagonals searched on either side of a gap's two ends' diagonals"})
    min_anchor: int = field(default=12, metadata={"help": "shortest run of identical columns of an HSP kept as an anchor"})
    gamma: float = field(default=0.0, metadata={"help": "the gaps between anchors decoded again by their posteriors under a pair HMM fitted to the pair's first fills: the gamma-centroid columns (0: off; inf: the most expected correct pairs; under 1 leaves the pairs of probability under 1 / (gamma + 1) unaligned)"})
    zdrop: int = field(default=400, metadata={"help": "an alignment is split at a gap whose fill scores under -zdrop, and where its running score with the drop scores falls zdrop below its best"})
    drop_mismatch: int = field(default=5, metadata={"help": "the drop scores' cost of a mismatch (a match scores 1): with drop_gap, where homology ends (0 and 0: never)"})
    drop_gap: int = field(default=6, metadata={"help": "the drop scores' cost of a gap column"})
    split_indel: int = field(default=50, metadata={"help": "an alignment is also split at a gap between anchors that moves the diagonal this many bases or more, as nucmer ends its alignments at long indels (0: never)"})
    end_xdrop: int = field(default=200, metadata={"help": "each alignment's ends extended (a cut's up to the next piece) until a row scores this far below the best (0: off)"})
    min_align_score: int = field(default=100, metadata={"help": "alignments scoring less are dropped"})
    secondary: bool = field(default=False, metadata={"help": "align the chains outside the one-to-one backbone too (tp:A:S rows; default: the backbone only, as minimap2's asm presets report mostly primary alignments)"})

    def __post_init__(self) -> None:
        for name in ("align_match", "align_mismatch", "gap_extend", "min_anchor"):
            if getattr(self, name) < 1:
                raise InputError(f"{name} = {getattr(self, name)} must be at least 1")
        for name in ("gap_open", "band", "zdrop", "end_xdrop", "min_align_score", "drop_mismatch", "drop_gap",
                     "split_indel"):
            if getattr(self, name) < 0:
                raise InputError(f"{name} = {getattr(self, name)} is negative")
        if max(self.align_match, self.align_mismatch, self.gap_open, self.gap_extend) > 255:
            raise InputError("alignment scores must lie within 0..255")
        if self.band > 10_000:
            raise InputError(f"band = {self.band} is above 10000")
        if not self.gamma >= 0:
            raise InputError(f"gamma = {self.gamma} must be 0 (off) or more")


@dataclass(frozen=True)
class Preset:
    """A set of defaults for a kind of comparison (PRESETS)."""

    preset: str = field(default="close", metadata={"help": "close (the defaults: genomes 90 percent identical or more) or distant (spaced seeds and scores for 70 to 90 percent; a parameter given keeps its value, the others take the preset's)"})

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise InputError(f"preset = {self.preset!r} is not one of {', '.join(PRESETS)}")


# A preset's values take the place of the parameters not given (one given at its default, as `--gamma
# 0`, keeps it): chosen by measurement on simulated pairs of 82, 77 and 73 % identity, single-base and
# geometric indels, beside LASTZ and LAST (README, Distant genomes).
PRESETS: dict[str, dict] = {
    "close": {},
    "distant": {"seed": "12of19", "max_freq": 200, "min_chain_score": 40, "drop_mismatch": 0, "drop_gap": 0,
                "align_mismatch": 2, "gap_open": 6, "band": 32, "gamma": 8.0, "max_shift": 2_000},
}


# parameters the command line does not take (tests set them; the exact-match modes have commands of their own)
HIDDEN = {"tile_len", "mode", "min_match"}

GROUPS = {"preset": Preset, "seeding": Seeding, "extension": Extension, "reporting": Reporting, "tiling": Tiling, "matching": Matching,
          "chaining": Chaining, "aligning": Aligning}
# flat name -> group name
GROUP_OF = {f.name: group for group, cls in GROUPS.items() for f in fields(cls)}


INT_LIMIT = 2**31 - 1  # the compiled stages and kernels take the integer parameters as 32-bit ints
WIDE = {"tile_bytes", "part_bases"}  # counts kept in Python


def _as_declared(name: str, value):
    """A value of the type its field declares: an integral float (a YAML `32.0`) as an int; an int too
    large for the kernels, or a float with a fraction where an int is asked for, refused in one line."""
    kind = GROUPS[GROUP_OF[name]].__dataclass_fields__[name].type
    if kind == "int" and not isinstance(value, bool):
        if isinstance(value, float):
            if not value.is_integer():
                raise InputError(f"{name} = {value:g} is not a whole number")
            value = int(value)
        if isinstance(value, int) and abs(value) > INT_LIMIT and name not in WIDE:
            raise InputError(f"{name} = {value} is out of range (at most {INT_LIMIT})")
    return value


class Params:
    """Parameters of one comparison: Params(k=20, xdrop=50) puts each name in its stage group."""

    __slots__ = tuple(GROUPS)

    def __init__(self, **values):
        unknown = sorted(set(values) - set(GROUP_OF))
        if unknown:
            raise InputError(f"unknown engine parameter {unknown[0]!r}")
        values = {name: _as_declared(name, value) for name, value in values.items()}
        preset = PRESETS.get(values.get("preset", "close"), {})
        for name, value in preset.items():
            values.setdefault(name, value)
        for group, cls in GROUPS.items():
            own = {name: value for name, value in values.items() if GROUP_OF[name] == group}
            object.__setattr__(self, group, cls(**own))
        if self.tiling.tile_len and self.tiling.tile_len < self.seeding.k:
            raise InputError(f"tile_len = {self.tiling.tile_len} is shorter than k")

    preset: Preset
    seeding: Seeding
    extension: Extension
    reporting: Reporting
    tiling: Tiling
    matching: Matching
    chaining: Chaining
    aligning: Aligning

    def __setattr__(self, name, value):
        raise AttributeError("Params are frozen")

    def __eq__(self, other) -> bool:
        return isinstance(other, Params) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().items()))

    def __repr__(self) -> str:
        return "Params(" + ", ".join(f"{key}={value!r}" for key, value in self.as_dict().items()) + ")"

    def as_dict(self) -> dict:
        """Every parameter under its flat name (for logs, stats and Snakemake params)."""
        out: dict = {}
        for group in GROUPS:
            out.update(asdict(getattr(self, group)))
        return out

    def replace(self, **values) -> "Params":
        """A copy with some parameters changed."""
        return Params(**{**self.as_dict(), **values})


# options the spaced seeds' HSPs do not read: their words are the pattern's, their HSPs scored with HOXD70 and
# kept by hsp_xdrop and hsp_threshold
NOT_SPACED = ("k", "min_len", "min_identity", "match", "mismatch", "xdrop")


def given_params(given: dict, option=lambda name: f"--{name.replace('_', '-')}") -> Params:
    """Params of the values a user gave (a preset's take the place of the others). An option the spaced
    seeds do not read, given with them (--seed, the distant preset), is refused in one line rather than
    recorded as applied. option: how the user names a parameter (a command's option, a config key)."""
    params = Params(**given)
    unread = [name for name in NOT_SPACED if name in given]
    if params.seeding.seed != "exact" and unread:
        raise InputError(f"{', '.join(option(name) for name in unread)}: not used with spaced seeds (seed "
                         f"{params.seeding.seed}); their HSPs are scored with HOXD70 and kept by hsp_xdrop and "
                         f"hsp_threshold: leave {'them' if len(unread) > 1 else 'it'} out, or use exact seeds")
    return params

