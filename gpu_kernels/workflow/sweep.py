"""Parameter sets of a run: the engine section alone, or named sets and a grid expanded to named sets."""
from __future__ import annotations

from itertools import product

from ..params import Params


def _value_name(value) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def param_sets(engine: dict, sweep: dict | None) -> dict[str, dict]:
    """Name -> the engine section with the set's overrides; 'default' when no sweep is configured."""
    sweep = sweep or {}
    sets: dict[str, dict] = {}
    for name, overrides in (sweep.get("sets") or {}).items():
        sets[name] = {**engine, **overrides}
    grid = sweep.get("grid") or {}
    if grid:
        keys = list(grid)
        for combo in product(*(grid[key] for key in keys)):
            name = "_".join(f"{key}{_value_name(value)}" for key, value in zip(keys, combo))
            sets[name] = {**engine, **dict(zip(keys, combo))}
    return sets or {"default": dict(engine)}


def engine_params(engine: dict) -> Params:
    """Params from one set's engine section (the config's `fast` turns `max_freq` on)."""
    values = {key: value for key, value in engine.items() if value is not None}
    values["max_freq"] = values.get("max_freq", 0) if values.pop("fast", False) else 0
    return Params(**values)
