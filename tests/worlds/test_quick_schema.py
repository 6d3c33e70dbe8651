"""The quick schema check says yes only where jsonschema finds no error: every world's tools, many arguments."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from worlds.common.quick_schema import quick_check
from worlds.registry import known_worlds, load_world

ODD_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 5, 5.0, 2.5, 0.5, 10.25, 1e400, -1e400, math.nan, 10**400, "", "x", "0000", "12345",
    "a1b2", [], [1], ["x"], [1.0, 2], {}, {"a": 1},
]  # fmt: skip


def _near(schema: dict[str, Any], rng: random.Random) -> Any:
    """A value for a parameter: often one its schema hints at (an enum's, a bound's neighbour), else any odd one."""
    pick = rng.random()
    if "enum" in schema and pick < 0.4:
        return rng.choice([*schema["enum"], "not_an_option"])
    bounds = [schema[k] for k in ("minimum", "maximum") if k in schema]
    if bounds and pick < 0.5:
        edge = rng.choice(bounds)
        return rng.choice([edge, edge - 1, edge + 1, edge + 0.5, float(edge), edge - 0.25])
    if schema.get("type") == "array" and pick < 0.6:
        return [_near(schema.get("items", {}), rng) for _ in range(rng.randrange(3))]
    if schema.get("type") == "object" and pick < 0.6:
        return _arguments(schema, rng)
    if schema.get("type") == "string" and pick < 0.6:
        return rng.choice(["living_room", "1234", "12a4", "x" * 3, "2024-01-01"])
    return rng.choice(ODD_VALUES)


def _arguments(schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    properties = schema.get("properties", {})
    out = {name: _near(sub, rng) for name, sub in properties.items() if rng.random() < 0.85}
    if rng.random() < 0.1:
        out["unexpected"] = 1
    return out


def _schemas() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for world in known_worlds():
        for spec in load_world(world).tool_specs():
            found.append((f"{world}.{spec.name}", spec.parameters))
    return found


@pytest.mark.parametrize(("name", "schema"), _schemas(), ids=lambda v: v if isinstance(v, str) else "")
def test_quick_yes_only_where_jsonschema_finds_nothing(name: str, schema: dict[str, Any]) -> None:
    check = quick_check(schema)
    if check is None:
        return  # a schema of another shape: jsonschema alone decides
    validator = Draft202012Validator(schema)
    rng = random.Random(name)
    for _ in range(200):
        arguments = _arguments(schema, rng)
        try:
            valid = not list(validator.iter_errors(arguments))
        except (ValueError, OverflowError):
            valid = False  # jsonschema raises: the quick check must not have said yes
        if check(arguments):
            assert valid, (name, arguments)


def test_plain_schemas_get_a_quick_check_and_others_none() -> None:
    plain = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["n"],
        "additionalProperties": False,
    }
    check = quick_check(plain)
    assert check is not None
    assert check({"n": 3, "tags": ["a"]})
    assert not check({"n": -1}) and not check({"n": True}) and not check({}) and not check({"n": 1, "x": 2})
    assert not check({"n": 3.0})  # an integral float is jsonschema's to accept
    assert quick_check({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}}) is None
    assert quick_check({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}) is None
