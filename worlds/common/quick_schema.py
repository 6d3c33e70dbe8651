"""A quick yes for arguments that plainly satisfy a tool's schema, before jsonschema is asked.

Tool schemas are small and flat (an object of strings, numbers, enums, simple arrays), and almost every call an agent
makes satisfies its schema, yet jsonschema's ``iter_errors`` walks the schema through its general machinery each
time: most of a tool call's CPU. ``quick_check(schema)`` compiles a schema of the plain shape into a predicate that
answers True only when jsonschema (Draft 2020-12) would find no error; False means "not sure": the caller asks
jsonschema, which also words the problems. A schema using any keyword outside the plain shape compiles to None.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

_ANNOTATIONS = frozenset({"description", "title", "default", "examples"})
"""Keywords that never make a value invalid."""
_SCALAR_KEYS = frozenset({"type", "enum", "minimum", "maximum", "multipleOf", "pattern"}) | _ANNOTATIONS
_ARRAY_KEYS = frozenset({"type", "items", "minItems", "maxItems"}) | _ANNOTATIONS
_OBJECT_KEYS = frozenset({"type", "properties", "required", "additionalProperties"}) | _ANNOTATIONS


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    # A float with an integral value is an integer to JSON Schema: left to jsonschema (the quick check says "not sure").
    return isinstance(value, int) and not isinstance(value, bool)


_TYPES: Mapping[str, Check] = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
}


def quick_check(schema: Mapping[str, Any]) -> Check | None:
    """The predicate for an object schema of plain parameters; None when the schema is not of that shape."""
    try:
        return _object(schema)
    except _NotPlain:
        return None


class _NotPlain(Exception):
    """The schema uses something the quick check does not decide."""


def _object(schema: Mapping[str, Any]) -> Check:
    if schema.get("type") != "object" or not set(schema) <= _OBJECT_KEYS:
        raise _NotPlain
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if (
        not isinstance(properties, Mapping)
        or not isinstance(required, list)
        or not all(isinstance(r, str) for r in required)
    ):
        raise _NotPlain
    closed = schema.get("additionalProperties", True)
    if closed not in (True, False):
        raise _NotPlain
    checks = {name: _value(sub) for name, sub in properties.items()}
    needed = tuple(required)

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        for name in needed:
            if name not in value:
                return False
        for name, item in value.items():
            item_check = checks.get(name)
            if item_check is None:
                if closed is False:
                    return False
            elif not item_check(item):
                return False
        return True

    return check


def _value(schema: Any) -> Check:
    if not isinstance(schema, Mapping):
        raise _NotPlain
    kind = schema.get("type")
    if kind == "object":
        return _object(schema)
    if kind == "array":
        return _array(schema)
    if not isinstance(kind, str) or kind not in _TYPES or not set(schema) <= _SCALAR_KEYS:
        raise _NotPlain
    checks = [_TYPES[kind]]
    if "enum" in schema:
        options = schema["enum"]
        if kind != "string" or not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise _NotPlain  # jsonschema's enum equality has its own rules for numbers and booleans
        allowed = frozenset(options)
        checks.append(lambda v: v in allowed)
    if "pattern" in schema:
        if kind != "string" or not isinstance(schema["pattern"], str):
            raise _NotPlain
        search = re.compile(schema["pattern"]).search  # jsonschema searches, unanchored
        checks.append(lambda v: search(v) is not None)
    for key, fails in (("minimum", _below), ("maximum", _above)):
        if key in schema:
            if kind not in ("integer", "number") or not _is_number(schema[key]):
                raise _NotPlain
            checks.append(_bound(fails, schema[key]))
    if "multipleOf" in schema:
        if kind not in ("integer", "number") or not _is_number(schema["multipleOf"]):
            raise _NotPlain
        checks.append(_multiple_of(schema["multipleOf"]))
    return lambda v: all(c(v) for c in checks)


def _below(value: Any, limit: Any) -> bool:
    return bool(value < limit)


def _above(value: Any, limit: Any) -> bool:
    return bool(value > limit)


def _bound(fails: Callable[[Any, Any], bool], limit: Any) -> Check:
    return lambda v: not fails(v, limit)


def _multiple_of(step: Any) -> Check:
    """jsonschema's test where it cannot overflow: a float step by float division, an int step by remainder."""

    def check(value: Any) -> bool:
        try:
            if isinstance(step, float):
                quotient = value / step
                if quotient != quotient or quotient in (float("inf"), float("-inf")):
                    return False  # nan, or an overflow jsonschema settles another way: not sure
                return bool(int(quotient) == quotient)
            return not value % step
        except (OverflowError, ZeroDivisionError):
            return False

    return check


def _array(schema: Mapping[str, Any]) -> Check:
    if not set(schema) <= _ARRAY_KEYS:
        raise _NotPlain
    items = _value(schema["items"]) if "items" in schema else None
    low, high = schema.get("minItems", 0), schema.get("maxItems")
    if not _is_integer(low) or not (high is None or _is_integer(high)):
        raise _NotPlain

    def check(value: Any) -> bool:
        if not isinstance(value, list) or len(value) < low or (high is not None and len(value) > high):
            return False
        return items is None or all(items(v) for v in value)

    return check
