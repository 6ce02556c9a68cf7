"""Config checks the workflow runs before any job: schema errors and duplicate keys as one line each."""
from __future__ import annotations

import jsonschema
import yaml

from ..errors import InputError


class _StrictLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key repeated in one mapping (PyYAML keeps the last silently)."""


def _mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise InputError(f"line {key_node.start_mark.line + 1}: key '{key}' appears twice "
                             "(two genomes with the same name?)")
        seen.add(key)
    return loader.construct_mapping(node, deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def check_config_file(path: str) -> None:
    """Raise InputError when a config file repeats a key in one mapping."""
    try:
        with open(path) as handle:
            yaml.load(handle, Loader=_StrictLoader)
    except InputError as error:
        raise InputError(error.problem, path) from None
    except yaml.YAMLError as error:
        raise InputError(f"not valid YAML: {' '.join(str(error).split())}", path) from None


MAX_VALUES = 100_000  # a config is a few hundred values; a sweep of many genomes a few thousand


def expanded_size_error(config, limit: int = MAX_VALUES) -> str | None:
    """One line where the config holds more than limit values once YAML aliases are expanded (nested
    aliases make a few hundred bytes stand for billions of values, and any check that prints or walks
    them exhausts memory); counted with an early stop, so a bomb costs `limit` steps."""
    count, stack = 0, [config]
    while stack:
        item = stack.pop()
        count += 1
        if count > limit:
            return (f"config: more than {limit:,} values once its YAML aliases (*name) are expanded: nested "
                    "aliases? write the values out")
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return None


def schema_error(config: dict, schema_path: str, section: str | None = None, where: str = "config") -> str | None:
    """The most relevant schema violation as one line, or None.

    section: check config against that top-level section's schema only (a sweep's parameter set
    against `engine`, so a set gets the same checks as the engine section)."""
    with open(schema_path) as handle:
        schema = yaml.safe_load(handle)
    if section is not None:
        schema = schema["properties"][section]
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if error is None:
        return None
    path = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    return f"{where} {path}: {error.message}"


def coerce_overrides(config: dict, schema_path: str) -> None:
    """Give strings the type the schema asks for, in place, where they read as one: Snakemake's
    `--config 'engine={k: 20}'` merges k into the engine section as the string '20'."""
    with open(schema_path) as handle:
        schema = yaml.safe_load(handle)
    _coerce(config, schema)


_TYPES = {"integer": int, "number": (int, float), "boolean": bool}


def _coerce(value, schema: dict):
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key, item in value.items():
            if key in properties:
                value[key] = _coerce(item, properties[key])
        return value
    wanted = _TYPES.get(schema.get("type"))
    if isinstance(value, str) and wanted is not None:
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        if isinstance(parsed, wanted) and not (wanted is not bool and isinstance(parsed, bool)):
            return parsed
    return value
