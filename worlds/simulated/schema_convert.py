"""OpenAPI schema objects (3.0's dialect, or 3.1's JSON Schema 2020-12) as plain JSON Schema 2020-12.

The simulated world checks arguments and responses with a 2020-12 validator, so 3.0's own keywords are rewritten:
``nullable: true`` adds ``"null"`` to the type, boolean ``exclusiveMinimum``/``exclusiveMaximum`` become the
numeric form, and ``example`` (both versions; deprecated in 3.1) becomes ``examples: [value]``. Walks only schema
positions, so a property *named* ``example`` or ``nullable`` is left alone.
"""

from __future__ import annotations

from typing import Any

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_ONE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)


def to_json_schema(schema: Any) -> Any:
    """A converted copy of one (already dereferenced) schema; non-dict values (``true``) as they are."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [to_json_schema(sub) for sub in value]
        elif key == "items" and isinstance(value, list):  # draft-4 tuple form
            out["prefixItems"] = [to_json_schema(sub) for sub in value]
        elif key in _SCHEMA_ONE:
            out[key] = to_json_schema(value)
        elif key not in ("nullable", "example", "exclusiveMinimum", "exclusiveMaximum"):
            out[key] = value
    if schema.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif isinstance(kind, list) and "null" not in kind:
            out["type"] = [*kind, "null"]
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        flag = schema.get(exclusive)
        if flag is True and bound in out:
            out[exclusive] = out.pop(bound)
        elif flag is not None and not isinstance(flag, bool):
            out[exclusive] = flag
    if "example" in schema:
        out["examples"] = [*(out.get("examples") or []), schema["example"]]
    return out


def without_flagged(schema: dict[str, Any], flag: str) -> dict[str, Any]:
    """An object schema without its top-level properties marked ``flag`` (``readOnly`` ones are not sent in a
    request; ``writeOnly`` ones are not returned)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    dropped = {name for name, sub in properties.items() if isinstance(sub, dict) and sub.get(flag) is True}
    if not dropped:
        return schema
    kept = {name: sub for name, sub in properties.items() if name not in dropped}
    out = {**schema, "properties": kept}
    if isinstance(schema.get("required"), list):
        out["required"] = [name for name in schema["required"] if name not in dropped]
    return out


def merge_all_of(schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema whose ``allOf`` parts are objects, as one object (properties and required merged), so a
    request body composed of parts still becomes flat arguments; other schemas as they are."""
    parts = schema.get("allOf")
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        return schema
    merged_parts = [merge_all_of(part) for part in parts]
    if not all(_is_object(part) for part in merged_parts):
        return schema
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    required: list[str] = list(schema.get("required") or [])
    for part in merged_parts:
        properties.update(part.get("properties") or {})
        required.extend(r for r in part.get("required") or [] if r not in required)
    rest = {k: v for k, v in schema.items() if k not in ("allOf", "properties", "required")}
    return {**rest, "type": "object", "properties": properties, **({"required": required} if required else {})}


def _is_object(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "object" or (
        "type" not in schema and isinstance(schema.get("properties"), dict) and not schema.get("oneOf")
    )


def is_object(schema: Any) -> bool:
    """Whether a (converted, merged) schema describes a JSON object with named properties."""
    return isinstance(schema, dict) and _is_object(schema) and isinstance(schema.get("properties", {}), dict)
