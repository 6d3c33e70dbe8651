"""BFCL's function docs (Gorilla's parameter schema) as squall ``ToolSpec``s.

Gorilla writes Python-flavoured types (``dict``, ``float``, ``tuple``, ``any``); squall's specs are JSON Schema, so
types are mapped recursively through ``properties`` and ``items``, everything else (descriptions, enums, defaults,
``required``) is kept. Dotted names (``math.factorial``) become ``math_factorial``, as BFCL itself rewrites them for
OpenAI-style models; gold calls use the rewritten names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from sim.core import ToolSpec

GORILLA_TO_JSON: MappingProxyType[str, str] = MappingProxyType(
    {
        "dict": "object",
        "object": "object",
        "float": "number",
        "number": "number",
        "integer": "integer",
        "tuple": "array",
        "array": "array",
        "list": "array",
        "string": "string",
        "boolean": "boolean",
        "bool": "boolean",
    }
)
"""Gorilla type -> JSON Schema type; ``any`` has no entry: its schema carries no ``type``."""
UNTYPED = "any"
PYTHON_HINT = " Note that the provided function is in Python 3 syntax."
"""What BFCL appends to every Python function's description before a model sees it."""


def openai_name(name: str) -> str:
    """A function name as OpenAI-style tool names allow it: BFCL's ``.`` -> ``_`` rewrite."""
    return re.sub(r"\.", "_", name)


def to_json_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """One Gorilla schema node as JSON Schema. Raises ValueError on a type squall does not map (Java's, JS's)."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            if value == UNTYPED:
                continue
            if value not in GORILLA_TO_JSON:
                raise ValueError(f"unsupported Gorilla type {value!r}")
            out["type"] = GORILLA_TO_JSON[value]
        elif key == "properties" and isinstance(value, Mapping):
            out["properties"] = {name: to_json_schema(node) for name, node in value.items()}
        elif key == "items" and isinstance(value, Mapping):
            out["items"] = to_json_schema(value)
        elif key == "required" and not isinstance(value, list):
            continue  # a per-property flag some docs carry: JSON Schema's ``required`` is the object's list
        else:
            out[key] = value
    return out


def parameters_schema(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """A function's whole ``parameters`` node: always an object schema with ``properties``."""
    schema = to_json_schema(parameters)
    schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema


def tool_spec(doc: Mapping[str, Any], *, hint: str = PYTHON_HINT) -> ToolSpec:
    """A BFCL function doc (``name``, ``description``, ``parameters``) as a ToolSpec with the rewritten name; the
    description gets BFCL's language ``hint`` as BFCL's models read it (``""``: none)."""
    name = str(doc["name"])
    try:
        parameters = parameters_schema(doc.get("parameters") or {})
    except ValueError as error:
        raise ValueError(f"function '{name}': {error}") from error
    return ToolSpec(name=openai_name(name), description=str(doc.get("description", "")) + hint, parameters=parameters)
