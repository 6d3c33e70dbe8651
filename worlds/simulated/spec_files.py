"""Reading an API description file (JSON or YAML) as plain JSON values, within squall's input limits.

A key given twice in one object is refused, naming both lines: JSON and YAML parsers keep the last one silently,
so a second ``get:`` under a path (or a second ``/pets:``) would drop an operation without a word.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sim.core.bounded_read import DATA_LIMIT, InputFileError, read_text
from sim.core.structured import load_yaml, parse_json
from worlds.simulated.problems import SpecError, extend


def load_document(path: Path) -> Any:
    """The parsed file: JSON when it ends in ``.json`` or starts with ``{``, else YAML. Raises SpecError (one line
    naming the file, and the line for a syntax error)."""
    try:
        text = read_text(path, DATA_LIMIT)
        is_json = path.suffix.lower() == ".json" or text.lstrip().startswith("{")
        value = parse_json(text, path) if is_json else plain_json(load_yaml(text, path))
    except InputFileError as error:
        raise SpecError([str(error)]) from None
    if is_json and not _json_repeats_a_key(text):
        return value  # the YAML node tree, for the lines of a repeated key, costs seconds on a big spec
    duplicates = duplicate_keys(text, str(path))
    if duplicates:
        raise SpecError(duplicates)
    return value


def _json_repeats_a_key(text: str) -> bool:
    """Whether some object of the (already parsed) JSON ``text`` gives a key twice."""
    repeated = False

    def pairs(items: list[tuple[str, Any]]) -> None:
        nonlocal repeated
        repeated = repeated or len({key for key, _ in items}) < len(items)

    json.loads(text, object_pairs_hook=pairs)
    return repeated


def duplicate_keys(text: str, file: str) -> list[str]:
    """One line per key given twice in one mapping (``api.yaml#/paths/~1pets: key 'get' appears twice (lines 4
    and 9)``), in line order. Reads the text's node tree again (libyaml where installed: fast); a text that
    tree cannot be composed from (JSON PyYAML reads otherwise) is not checked."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        root = yaml.compose(text, Loader=loader)
    except yaml.YAMLError:
        return []
    found: list[tuple[int, str]] = []
    visited: set[int] = set()
    pending: list[tuple[Node | None, str]] = [(root, "")]
    while pending:
        node, where = pending.pop()
        if node is None or id(node) in visited:  # an alias is checked where it is defined
            continue
        visited.add(id(node))
        if isinstance(node, MappingNode):
            first: dict[str, tuple[int, int]] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, ScalarNode):
                    continue
                key, mark = str(key_node.value), key_node.start_mark
                line, column = mark.line + 1, mark.column + 1
                if key in first and key != "<<":
                    at = f"lines {first[key][0]} and {line}" if first[key][0] != line else f"line {line}"
                    columns = f", columns {first[key][1]} and {column}" if first[key][0] == line else ""
                    found.append((line, f"{file}#{where}: key '{key}' appears twice ({at}{columns})"))
                first.setdefault(key, (line, column))
                pending.append((value_node, extend(where, key)))
        elif isinstance(node, SequenceNode):
            pending.extend((item, extend(where, index)) for index, item in enumerate(node.value))
    return [line for _, line in sorted(found)]


def plain_json(value: Any) -> Any:
    """YAML's extra types as JSON ones: keys as strings (an unquoted ``200:`` is an int), dates as ISO text,
    binary as text, so the spec's values survive being written to operations.json."""
    if isinstance(value, dict):
        return {_key(key): plain_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain_json(item) for item in value]
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, set):  # YAML's !!set
        return sorted(str(item) for item in value)
    return value


def _key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, datetime.date | datetime.datetime):
        return key.isoformat()
    return str(key)
