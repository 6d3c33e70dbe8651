"""How a SQL world's tool arguments travel as a query string, and the OpenAPI document that says so.

One GET endpoint per function: ``/api/<function_name>?<param>=<value>``. Encoding choices:

- scalars (string, integer, number) are one query parameter each, written as plain text;
- arrays are the parameter repeated (``?ids=1&ids=2``: OpenAPI ``style: form, explode: true``, the default for
  query parameters, so generic clients need no configuration); an array given once with an empty value
  (``?ids=``) is the empty list, the one list that repetition cannot otherwise spell (so ``[""]``, a list of one
  empty string, also arrives as ``[]``: the one argument value that does not survive the trip);
- array items of type object or any are JSON text per value (a value that is not JSON stays a string);
- integers are 64-bit (what SQLite binds): the document bounds them, and a larger one arrives as text, which the
  checker refuses as the wrong type (400); a number that large is read as a float.

Decoding is best effort on purpose: text that does not parse as the declared type is handed on unchanged, so the
world's own argument checker rejects it with the same message an in-process call gets.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sim.core import ToolSpec

API_PREFIX = "/api/"
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
HINT_HEADER = "X-Squall-Hint"
_INTEGER = re.compile(r"-?[0-9]{1,30}")  # 30 digits: far past int64, short of Python's int-parsing limit
_NUMBER = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")


def _integer(text: str) -> int | None:
    """The 64-bit integer ``text`` spells (``5.0``: JSON Schema's integer too, as it is in-process), else None."""
    if _INTEGER.fullmatch(text):
        value = int(text)
    elif _NUMBER.fullmatch(text) and float(text).is_integer():
        value = int(float(text))
    else:
        return None
    return value if INT64_MIN <= value <= INT64_MAX else None


def _scalar(text: str, kind: str | None) -> Any:
    if kind == "integer":  # past 64 bits the text stays text: the checker refuses it, as the document says
        integer = _integer(text)
        return text if integer is None else integer
    if kind == "number" and _NUMBER.fullmatch(text):
        if _INTEGER.fullmatch(text) and INT64_MIN <= int(text) <= INT64_MAX:
            return int(text)  # past 64 bits SQLite cannot bind an int: a JSON number that large is read as a float
        value = float(text)
        return value if math.isfinite(value) else text
    if kind in ("object", "any", None):
        try:
            return json.loads(text)
        except ValueError:  # not JSON (or absurdly nested): a plain string
            return text
    return text


def decode_query(pairs: Sequence[tuple[str, str]], parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Tool arguments from query pairs, typed by the tool's JSON-schema ``parameters`` where the text allows.

    A scalar parameter given more than once keeps the list of its values, which the checker then rejects by
    name; an unknown parameter stays a string, which the checker names as unexpected."""
    grouped: dict[str, list[str]] = {}
    for key, value in pairs:
        grouped.setdefault(key, []).append(value)
    properties = parameters.get("properties", {})
    arguments: dict[str, Any] = {}
    for name, values in grouped.items():
        schema = properties.get(name)
        if not isinstance(schema, Mapping):
            arguments[name] = values[0] if len(values) == 1 else values
            continue
        kind = schema.get("type")
        if kind == "array":
            items = schema.get("items", {})
            item_kind = items.get("type", "any") if isinstance(items, Mapping) else "any"
            arguments[name] = [] if values == [""] else [_scalar(v, item_kind) for v in values]
        elif len(values) == 1:
            arguments[name] = _scalar(values[0], kind if isinstance(kind, str) else None)
        else:
            arguments[name] = values
    return arguments


def encode_query(arguments: Mapping[str, Any], parameters: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The query pairs ``decode_query`` turns back into ``arguments`` (the client side of the same rules)."""
    properties = parameters.get("properties", {})
    pairs: list[tuple[str, str]] = []
    for name, value in arguments.items():
        schema = properties.get(name, {})
        items = schema.get("items", {}) if isinstance(schema, Mapping) else {}
        item_kind = items.get("type", "any") if isinstance(items, Mapping) else "any"
        if isinstance(value, list | tuple):
            if not value:
                pairs.append((name, ""))
            pairs += [(name, _text(v, item_kind)) for v in value]
        else:
            pairs.append((name, _text(value, schema.get("type") if isinstance(schema, Mapping) else None)))
    return pairs


def _text(value: Any, kind: Any) -> str:
    if isinstance(value, str) and kind not in ("object", "any", None):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return json.dumps(value)
    return repr(value) if isinstance(value, float) else str(value)


def _parameter(name: str, schema: Mapping[str, Any], required: bool) -> dict[str, Any]:
    published: dict[str, Any] = _bounded(json.loads(json.dumps(schema)))
    if required and published.get("type") == "array":
        # Form style spells [] as no parameter at all, which a required parameter cannot be; `?name=` (our []) is
        # outside what OpenAPI can say, so the document asks for one item at least.
        published["minItems"] = max(1, int(published.get("minItems", 0)))
    entry: dict[str, Any] = {
        "name": name,
        "in": "query",
        "required": required,
        "description": str(schema.get("description", "")),
        "schema": published,
    }
    if schema.get("type") == "array":
        entry |= {"style": "form", "explode": True}
    return entry


def _bounded(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every integer bounded to what SQLite binds (64 bits, signed): a larger one is refused (400),
    so the document says it is invalid. Existing tighter bounds stay."""
    if schema.get("type") == "integer":
        schema["minimum"] = max(INT64_MIN, schema.get("minimum", INT64_MIN))
        schema["maximum"] = min(INT64_MAX, schema.get("maximum", INT64_MAX))
    items = schema.get("items")
    if isinstance(items, dict):
        schema["items"] = _bounded(items)
    return schema


_ERROR = {
    "type": "object",
    "required": ["error", "code", "status"],
    "properties": {
        "error": {"type": "string", "description": "What is wrong, naming the parameter."},
        "code": {"type": "string", "description": "Machine-readable reason, e.g. wrong_type, missing_argument."},
        "status": {"type": "string", "description": "ToolResult status: invalid_arguments, not_found, failed."},
        "parameter": {"type": ["string", "null"], "description": "The first parameter the error names, if any."},
    },
}


def openapi_document(title: str, description: str, specs: Sequence[ToolSpec]) -> dict[str, Any]:
    """OpenAPI 3.1 for the world's endpoints, generated from the same specs the world hands an agent."""
    error_ref = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    paths: dict[str, Any] = {}
    for spec in specs:
        required = set(spec.parameters.get("required", []))
        properties = spec.parameters.get("properties", {})
        paths[f"{API_PREFIX}{spec.name}"] = {
            "get": {
                "operationId": spec.name,
                "description": spec.description,
                "parameters": [_parameter(n, s, n in required) for n, s in properties.items()],
                "responses": {
                    "200": {
                        "description": "The query's rows as JSON records.",
                        "headers": {
                            HINT_HEADER: {
                                "description": "On an empty result: close values for string arguments (JSON text).",
                                "schema": {"type": "string"},
                            }
                        },
                        "content": {"application/json": {"schema": {"type": "array", "items": {"type": "object"}}}},
                    },
                    "400": {"description": "An argument is missing, unexpected or of the wrong type."} | error_ref,
                    "404": {"description": "No such endpoint."} | error_ref,
                    "414": {"description": "The request line is longer than 8,190 bytes."} | error_ref,
                    "422": {"description": "The query could not run with these values."} | error_ref,
                    "431": {"description": "A request header field is longer than 8,192 bytes."} | error_ref,
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": "1", "description": description},
        "paths": paths,
        "components": {"schemas": {"Error": _ERROR}},
    }
