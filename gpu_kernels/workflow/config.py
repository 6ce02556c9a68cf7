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
        if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base`: the keys given beside it override its
            continue
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


def genome_spellings(paths) -> dict:
    """The genome names of config files as written, keyed by what YAML reads them as: `001:`, `010:`
    and `0x1F:` are the numbers 1, 8 and 31 to YAML, `null:` and `~:` are None, and a name keeps its
    spelling only from the file's text (a name YAML reads as text is itself)."""
    spelled = {}
    for path in paths:
        try:
            with open(path) as handle:
                root = yaml.compose(handle, Loader=yaml.SafeLoader)
        except (OSError, yaml.YAMLError):
            continue  # check_config_file says what is wrong with it
        if not isinstance(root, yaml.MappingNode):
            continue
        for key, value in root.value:
            if key.value == "genomes" and isinstance(value, yaml.MappingNode):
                for name, _ in value.value:
                    if isinstance(name, yaml.ScalarNode):
                        read = yaml.safe_load(name.value) if not name.style else name.value
                        if not isinstance(read, str):
                            spelled[read] = name.value
    return spelled


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
    message = error.message
    if error.parent is not None and error.parent.validator == "oneOf":  # `auto` or a boolean, `auto` or a number
        kinds = [" or ".join(repr(v) for v in c["enum"]) if "enum" in c else f"{c.get('type')}"
                 for c in error.parent.validator_value]
        message = f"{error.instance!r} is not {' or '.join(kinds)}"
    return f"{where} {path}: {message}"


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
    if "oneOf" in schema and isinstance(value, str):  # `auto` or a number (bins.size), `auto` or a boolean
        for choice in schema["oneOf"]:
            if choice.get("type") == "string" and value in choice.get("enum", [value]):
                return value
        for choice in schema["oneOf"]:
            coerced = _coerce(value, choice)
            if coerced is not value:
                return coerced
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


def comparison_pairs(genomes: list, comparisons: dict) -> list[tuple[str, str]]:
    """(query genome, reference genome) pairs to compare, from the genomes' names in config order and
    the config's `comparisons` section (its defaults filled); a plan that names no pair, or a genome
    not listed, is refused (InputError)."""
    if comparisons["mode"] == "pairs":
        if comparisons.get("reference") is not None:
            raise InputError("comparisons.reference is for all-vs-all; in pairs mode each pair names its reference")
        pairs = [(p["query"], p["reference"]) for p in comparisons["pairs"]]
        for q, r in pairs:
            for g in (q, r):
                if g not in genomes:
                    raise InputError(f"comparison {q} vs {r}: genome {g} is not listed under genomes")
        if not pairs:
            raise InputError("comparisons: mode is pairs but no pairs are listed")
        return pairs
    start = 0 if comparisons["self"] else 1
    pairs = [(genomes[i], genomes[j]) for i in range(len(genomes)) for j in range(i + start, len(genomes))]
    if not pairs:
        raise InputError("all-vs-all over a single genome needs comparisons: self: true")
    reference = comparisons.get("reference")
    if reference is not None:
        if str(reference) not in genomes:
            raise InputError(f"comparisons.reference: {reference} is not listed under genomes")
        pairs = [(r, q) if q == str(reference) and r != q else (q, r) for q, r in pairs]
    return pairs
