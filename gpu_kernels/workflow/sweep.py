"""Parameter sets of a run: the engine section alone, or named sets and a grid expanded to named sets."""
from __future__ import annotations

import re
from itertools import product

from ..errors import InputError
from ..params import Params, given_params

# a set's name is a directory under results: letters, digits, '_', '-' and '.', starting with a letter or a
# digit (the schema's pattern and the workflow's wildcard say the same)
SET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
# names the run's own files take beside the sets' directories
RESERVED = {"summary.tsv", "summary.png", "index", "logs"}


def _value_name(value) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def param_sets(engine: dict, sweep: dict | None) -> dict[str, dict]:
    """Name -> the engine section with the set's overrides; 'default' when no sweep is configured. Two
    sets of one name (a named set and a grid point, or grid values 80 and 80.0) and a name that is not
    a plain directory name, or is one of the run's own files, are refused (InputError)."""
    sweep = sweep or {}
    sets: dict[str, dict] = {}

    def add(name: str, values: dict, what: str) -> None:
        if name in sets:
            raise InputError(f"sweep set {name!r} ({what}) has the name of another set; rename one")
        if not SET_NAME.fullmatch(name) or name in RESERVED:
            raise InputError(f"sweep set {name!r} ({what}): a set's name is a directory under results: use "
                             f"letters, digits, '_', '-' and '.', starting with a letter or a digit, not "
                             f"{', '.join(sorted(RESERVED))}")
        sets[name] = values

    for name, overrides in (sweep.get("sets") or {}).items():
        add(str(name), {**engine, **overrides}, "a named set")
    grid = sweep.get("grid") or {}
    if grid:
        keys = list(grid)
        for combo in product(*(grid[key] for key in keys)):
            name = "_".join(f"{key}{_value_name(value)}" for key, value in zip(keys, combo))
            add(name, {**engine, **dict(zip(keys, combo))}, "of the grid")
    return sets or {"default": dict(engine)}


def override_set(engine: dict, overridden) -> tuple[str, dict]:
    """(name, engine section) of the one set of a run whose engine keys `overridden` were given on the
    command line (`--config 'engine={k: 20}'`): named from them as grid sets are (k20), so it never
    writes over the `default` set's results."""
    name = "_".join(f"{key}{_value_name(engine[key])}" for key in overridden if key in engine) or "default"
    if not SET_NAME.fullmatch(name) or name in RESERVED:
        raise InputError(f"engine override {name!r}: its set's name is a directory under results: use letters, "
                         "digits, '_', '-' and '.'")
    return name, dict(engine)


def engine_params(engine: dict, given=None) -> Params:
    """Params from one set's engine section (the config's `fast: true` turns `max_freq` on; `auto`
    leaves the set exhaustive and sizing.pair_params turns it on pair by pair). given: the keys the
    user's config set (None: all); the others, the schema's defaults, give way to a preset's values."""
    values = {key: value for key, value in engine.items() if value is not None and key != "fast"
              and (given is None or key in given)}
    if engine.get("fast") is True:
        values["max_freq"] = engine["max_freq"]
    else:
        values.pop("max_freq", None)
    return given_params(values, lambda name: f"engine.{name}") if given is not None else Params(**values)
