"""A generated OpenAPI document of 250 operations (25 tagged resources x 10), each list taking 20 documented query
parameters: whole, its schemas are far over any draft prompt's bound, as Twilio's and Discord's are."""

from __future__ import annotations

from typing import Any

VERBS = ("list", "get", "create", "update", "delete", "archive", "restore", "count", "export", "history")
FILTERS = 16
OBJECT = {"application/json": {"schema": {"type": "object"}}}


def _query(name: str, schema: dict[str, Any], doc: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "schema": schema, "description": doc}


def _operation(resource: str, verb: str) -> tuple[str, str, dict[str, Any]]:
    item = f"/{resource}/{{id}}"
    path, method = {
        "list": (f"/{resource}", "get"),
        "get": (item, "get"),
        "create": (f"/{resource}", "post"),
        "update": (item, "patch"),
        "delete": (item, "delete"),
        "archive": (f"{item}/archive", "post"),
        "restore": (f"{item}/restore", "post"),
        "count": (f"/{resource}/count", "get"),
        "export": (f"/{resource}/export", "get"),
        "history": (f"{item}/history", "get"),
    }[verb]
    parameters: list[dict[str, Any]] = []
    if "{id}" in path:
        parameters.append({"name": "id", "in": "path", "required": True, "schema": {"type": "string"}})
    if verb in ("list", "count", "export"):
        parameters += [
            _query("status", {"type": "string", "enum": ["active", "archived"]}, "Only items in this status."),
            _query("limit", {"type": "integer", "default": 50}, "Items per page, at most 500."),
            _query("offset", {"type": "integer"}, "Items to skip."),
        ]
        parameters += [
            _query(
                f"filter_{k}",
                {"type": "string"},
                f"Filter number {k} of the {resource} collection: matches items whose field {k} equals the value "
                "given, compared case-insensitively after trimming, and combined with every other filter given.",
            )
            for k in range(FILTERS)
        ]
    operation: dict[str, Any] = {
        "operationId": f"{verb}_{resource}",
        "tags": [resource],
        "summary": f"{verb.capitalize()} {resource} items",
        "description": f"{verb.capitalize()} the {resource} items of the account. " * 4,
        "parameters": parameters,
        "responses": {"200": {"description": "ok", "content": OBJECT}},
    }
    if method in ("post", "patch") and verb in ("create", "update"):
        body = {"type": "object", "properties": {"name": {"type": "string"}, "notes": {"type": "string"}}}
        operation["requestBody"] = {"content": {"application/json": {"schema": body}}}
    return path, method, operation


def many_operations_spec(resources: int = 25) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for r in range(resources):
        for verb in VERBS:
            path, method, operation = _operation(f"r{r:02d}", verb)
            paths.setdefault(path, {})[method] = operation
    return {"openapi": "3.0.3", "info": {"title": "Many", "version": "1"}, "paths": paths}
