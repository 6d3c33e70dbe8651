"""A Discord-shaped OpenAPI 3.1 document, built in code: some 250 operations over a few dozen large, deeply nested,
mutually referencing component schemas (a message holds its author, its thread, the message it answers, embeds and
components of components; a guild holds members, roles, emojis and channels). Expanding every reference inline is
what once made each operation of Discord's real 1.2 MB document weigh up to 1.9 MB (``sim.bench.big_world``).

Deterministic: the same arguments give the same document, byte for byte.
"""

from __future__ import annotations

import random
from typing import Any

TAGS = (
    "Guilds", "Channels", "Messages", "Users", "Webhooks", "Emojis", "Stickers", "Roles", "Members", "Threads",
    "Invites", "Applications", "Commands", "Interactions", "Stages", "Events", "AutoModeration", "Polls",
)  # fmt: skip
METHODS = ("get", "post", "patch", "put", "delete")


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"oneOf": [{"type": "null"}, schema]}


def _enum(rng: random.Random, name: str) -> dict[str, Any]:
    values = [
        {"title": f"{name.upper()}_{value}", "const": value, "description": f"The {name} of kind {value}"}
        for value in range(rng.randint(4, 12))
    ]
    return {"type": "integer", "oneOf": values, "format": "int32"}


def _scalar(rng: random.Random, index: int) -> dict[str, Any]:
    kind = index % 5
    if kind == 0:
        return {"type": "string", "maxLength": rng.choice((32, 100, 152133)), "description": "Free text"}
    if kind == 1:
        return {"type": "integer", "minimum": 0, "maximum": 2**31 - 1, "format": "int32"}
    if kind == 2:
        return {"type": "boolean"}
    if kind == 3:
        return _nullable({"type": "string", "format": "date-time"})
    return ref("SnowflakeType")


def components(rng: random.Random, objects: int, levels: int, enums: int) -> dict[str, Any]:
    """Enums, and ``objects`` objects spread over ``levels`` levels: each refers to a few objects of deeper levels
    (so expanding multiplies) and one of a shallower level (a cycle, cut at its second visit when expanded)."""
    schemas: dict[str, Any] = {
        "SnowflakeType": {"type": "string", "pattern": "^(0|[1-9][0-9]*)$", "format": "snowflake"},
        "ErrorDetails": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/ErrorDetails"}},
        "Error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {"code": {"type": "integer"}, "message": {"type": "string"}, "errors": ref("ErrorDetails")},
        },
    }
    enum_names = [f"Kind{index}Type" for index in range(enums)]
    for name in enum_names:
        schemas[name] = _enum(rng, name)
    names = [f"Thing{index}Response" for index in range(objects)]
    level_of = {name: index * levels // objects for index, name in enumerate(names)}
    for name in names:
        level = level_of[name]
        deeper = [other for other in names if level_of[other] == level + 1]
        shallower = [other for other in names if level_of[other] < level]
        properties: dict[str, Any] = {"id": ref("SnowflakeType")}
        for index in range(rng.randint(8, 20)):
            properties[f"field_{index}"] = _scalar(rng, index)
        properties["kind"] = ref(rng.choice(enum_names))
        for index, other in enumerate(rng.sample(deeper, min(len(deeper), 3))):
            properties[f"part_{index}"] = ref(other) if index % 2 else {"type": "array", "items": ref(other)}
        if shallower and rng.random() < 0.3:
            properties["parent"] = _nullable(ref(rng.choice(shallower)))
        schemas[name] = {"type": "object", "required": ["id"], "properties": properties}
    return schemas


def big_spec(
    operations: int = 250, objects: int = 60, levels: int = 6, enums: int = 40, seed: int = 7
) -> dict[str, Any]:
    """The document: ``operations`` operations, their request and response bodies the objects of the top levels."""
    rng = random.Random(seed)
    schemas = components(rng, objects, levels, enums)
    top = [name for name in schemas if name.startswith("Thing")][: max(1, objects * 2 // levels)]
    paths: dict[str, Any] = {}
    for index in range(operations):
        tag = TAGS[index % len(TAGS)]
        method = METHODS[index % len(METHODS)]
        resource = tag.lower()
        path = f"/{resource}/{{{resource}_id}}/items{index // len(METHODS)}"
        body_name = rng.choice(top)
        response_name = rng.choice(top)
        operation: dict[str, Any] = {
            "operationId": f"{method}_{resource}_item_{index}",
            "tags": [tag],
            "summary": f"{method.upper()} one item of a {resource[:-1]}",
            "description": " ".join(f"Step {step}: the {resource[:-1]} item is read or changed." for step in range(20)),
            "parameters": [
                {"name": f"{resource}_id", "in": "path", "required": True, "schema": ref("SnowflakeType")},
                *(
                    {"name": f"filter_{n}", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}}
                    for n in range(8)
                ),
            ],
            "responses": {
                "200": {
                    "description": "The item",
                    "content": {"application/json": {"schema": ref(response_name)}},
                },
                "4XX": {"description": "Error", "content": {"application/json": {"schema": ref("Error")}}},
            },
        }
        if method in ("post", "patch", "put"):
            body = {"content": {"application/json": {"schema": ref(body_name)}}, "required": True}
            operation["requestBody"] = body
        paths.setdefault(path, {})[method] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "Discord-shaped API", "version": "10"},
        "paths": paths,
        "components": {"schemas": schemas},
    }
