"""Checks call arguments against a tool's JSON schema and says, by parameter name, what is wrong.

Shared by every world: a wrong argument reads the same whichever world the agent is in.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from worlds.common.quick_schema import quick_check

_CODES = MappingProxyType(
    {
        "required": "missing_argument",
        "additionalProperties": "unexpected_argument",
        "type": "wrong_type",
        "minimum": "out_of_range",
        "maximum": "out_of_range",
        "exclusiveMinimum": "out_of_range",
        "exclusiveMaximum": "out_of_range",
        "multipleOf": "out_of_range",
    }
)


_CHECKED_SCHEMAS: set[str] = set()
"""Canonical JSON of schemas that passed ``check_schema``: a process builds the same world's toolkit again and again
(a pack per run, per ``load_world``, per test), and the meta-schema walk is most of a toolkit's build."""
_MAX_CHECKED = 10_000


def _check_schema_once(schema: dict[str, Any]) -> None:
    """``Draft202012Validator.check_schema``, skipped for a schema equal to one already checked. Only a schema that
    is plain JSON (its canonical text reads back equal: no tuples, no non-string keys) is remembered."""
    try:
        key = json.dumps(schema, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        key = None
    if key is not None and key in _CHECKED_SCHEMAS:
        return
    Draft202012Validator.check_schema(schema)
    if key is not None and len(_CHECKED_SCHEMAS) < _MAX_CHECKED and json.loads(key) == schema:
        _CHECKED_SCHEMAS.add(key)


class ArgumentChecker:
    """One compiled validator per tool schema; build once per world."""

    def __init__(self, schema: dict[str, Any]) -> None:
        _check_schema_once(schema)
        self._schema = schema
        self._validator = Draft202012Validator(schema)
        self._plainly_valid = quick_check(schema)

    @property
    def schema(self) -> dict[str, Any]:
        """The tool's argument schema (read it, never change it)."""
        return self._schema

    def problems(self, arguments: dict[str, Any]) -> tuple[str, str] | None:
        """(error code, message) for the first problem, every problem named in the message; None when valid."""
        if self._plainly_valid is not None and self._plainly_valid(arguments):
            return None  # what jsonschema would find (see worlds.common.quick_schema), without its walk
        errors = sorted(self._validator.iter_errors(arguments), key=_order)
        if not errors:
            return None
        messages = list(dict.fromkeys(self._describe(e, arguments) for e in errors))
        return _CODES.get(str(errors[0].validator), "invalid_value"), " ".join(messages)

    def normalised(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Valid arguments with integral floats (``5.0``) as ints where the schema says integer: JSON Schema
        accepts ``5.0`` as an integer, but a tool slicing with it would crash, and a state storing it would
        hash apart from the gold's ``5``."""
        properties = self._schema.get("properties", {})
        fixed = dict(arguments)
        for name, value in arguments.items():
            schema = properties.get(name, {})
            if isinstance(value, float) and schema.get("type") == "integer":
                fixed[name] = int(value)
            elif isinstance(value, list) and schema.get("items", {}).get("type") == "integer":
                fixed[name] = [int(v) if isinstance(v, float) else v for v in value]
        return fixed

    def _describe(self, error: ValidationError, arguments: dict[str, Any]) -> str:
        properties = self._schema.get("properties", {})
        if len(error.absolute_path) > 1 or (
            error.absolute_path and error.validator in ("required", "additionalProperties")
        ):
            return f"Parameter '{_where(error)}': {error.message}."  # inside a parameter: name the exact spot
        if error.validator == "required":
            missing = [p for p in self._schema.get("required", []) if p not in arguments]
            return "Missing required parameter(s): " + ", ".join(f"'{p}'" for p in missing) + "."
        if error.validator == "additionalProperties":
            extra = sorted(set(arguments) - set(properties))
            valid = ", ".join(properties) or "none"
            return f"Unexpected parameter(s): {', '.join(repr(p) for p in extra)}; valid parameters: {valid}."
        if error.path:
            return f"Parameter '{error.path[0]}': {error.message}."
        return f"Arguments: {error.message}."


def _where(error: ValidationError) -> str:
    """``items[0].qty`` for a problem inside a parameter's value."""
    text = ""
    for part in error.absolute_path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _order(error: ValidationError) -> tuple[int, str]:
    """Structural problems (missing/extra parameters) first, then by parameter name, for stable messages."""
    structural = error.validator in ("required", "additionalProperties")
    return (0 if structural else 1, str(error.path[0]) if error.path else "")
