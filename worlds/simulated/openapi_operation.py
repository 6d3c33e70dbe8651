"""One OpenAPI operation as an ``ApiOperation``: its arguments (``openapi_params``), success response and examples
(``openapi_responses``), documentation and flags. Problems go to the operation's own ``Problems``: the importer
skips an operation with any (or, with ``--strict``, refuses the document).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import ValidationError

from worlds.simulated.openapi_params import flat_schema, operation_inputs
from worlds.simulated.openapi_responses import pair_examples, success_response
from worlds.simulated.operations import WRITE_METHODS, ApiOperation
from worlds.simulated.problems import Problems, extend
from worlds.simulated.ref_files import split_where
from worlds.simulated.refs import RefResolver
from worlds.simulated.schema_convert import to_json_schema
from worlds.simulated.shared_schemas import with_defs

MAX_NAME = 64
WRITES_EXTENSION = "x-squall-writes"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def sanitise(text: str) -> str:
    """A tool name from any text: runs of other characters (and of ``_``) as one ``_``, none at the ends, 64 at
    most (``get /pets/{petId}`` -> ``get_pets_petId``)."""
    return re.sub("_{2,}", "_", _UNSAFE.sub("_", text)).strip("_")[:MAX_NAME].rstrip("_")


def source_of(file: Path, where: str) -> str:
    """A place as operations.json names it: the spec's name only (the folder it came from is not shared), or
    the path of another file of the spec relative to the spec's folder."""
    label, pointer = split_where(where)
    return f"{label or file.name}#{pointer}"


class SharedSchemas:
    """The document's shared schemas as JSON Schema 2020-12, each converted and checked once (``refs``)."""

    def __init__(self, resolver: RefResolver) -> None:
        self.resolver = resolver
        self.schemas: dict[str, Any] = {}
        self.problems: dict[str, str | None] = {}

    def converted(self, names: set[str]) -> dict[str, Any]:
        """Those of ``names`` converted (and checked, see ``problem``), by name."""
        for name in names - self.schemas.keys():
            self.schemas[name] = to_json_schema(self.resolver.defs[name])
            self.problems[name] = _schema_problem(self.schemas[name])
        return {name: self.schemas[name] for name in names}


def build_operation(
    shared_schemas: SharedSchemas,
    problems: Problems,
    file: Path,
    raw_path: str,
    method: str,
    raw: dict[str, Any],
    where: str,
    shared: tuple[Any, str],
) -> ApiOperation | None:
    """The operation ``raw`` at ``where``; None when ``problems`` (the resolver's too, see ``begin``) has any. Its
    schemas refer to the shared ones (``shared_schemas``) without carrying them (``ApiSpec`` attaches them)."""
    resolver = shared_schemas.resolver
    before = len(problems)
    body = (raw["requestBody"], extend(where, "requestBody")) if "requestBody" in raw else None
    inputs = operation_inputs(resolver, problems, shared, (raw.get("parameters"), extend(where, "parameters")), body)
    parameters, locations, renamed = flat_schema(inputs.arguments)
    success = success_response(resolver, problems, raw.get("responses"), extend(where, "responses"))
    writes = raw.get(WRITES_EXTENSION, method in WRITE_METHODS)
    if not isinstance(writes, bool):
        problems.add(extend(where, WRITES_EXTENSION), f"'{WRITES_EXTENSION}' must be true or false")
    tags = raw.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        problems.add(extend(where, "tags"), "'tags' must be a list of strings")
    defs = shared_schemas.converted(resolver.used)
    checks = [(argument.where, argument.schema) for argument in inputs.arguments]
    for schema_where, schema in [*checks, (extend(success.where, "schema"), success.schema)]:
        if schema is not None and (error := _schema_problem(schema)) is not None:
            problems.add(schema_where, f"not a valid schema: {error}")
    for name in sorted(defs):
        if (error := shared_schemas.problems[name]) is not None:
            problems.add(resolver.def_places[name], f"not a valid schema: {error}")
    if len(problems) > before:
        return None
    checked = with_defs(parameters, defs, resolver.graph)  # the examples are checked as a model's call would be
    examples, requests, responses = pair_examples(inputs, renamed, checked, success, source_of(file, success.where))
    if requests:
        parameters = {**parameters, "examples": requests}
    response_schema = success.schema
    summary: str = raw["summary"] if isinstance(raw.get("summary"), str) else ""
    description = _description(summary, raw.get("description"), raw.get("deprecated") is True)
    if responses and response_schema is not None:
        response_schema = {**response_schema, "examples": [*response_schema.get("examples", []), *responses]}
    elif responses:
        description += f"\n\nExample response: {json.dumps(responses[0], ensure_ascii=False)[:1000]}"
    name = sanitise(raw["operationId"]) if isinstance(raw.get("operationId"), str) else ""
    try:
        return ApiOperation(
            name=name or sanitise(f"{method}_{raw_path}") or method,
            method=method,  # one of METHODS
            path=raw_path,
            summary=summary.strip(),
            description=description,
            parameters=parameters,
            locations=locations,  # values are ParameterLocation
            response_schema=response_schema,
            examples=tuple(examples),
            writes=bool(writes),
            tags=tuple(tags),
            source=source_of(file, where),
        )
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        problems.add(where, f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}")
        return None


def _description(summary: str, description: Any, deprecated: bool) -> str:
    parts = [summary.strip()] if summary.strip() else []
    if isinstance(description, str) and description.strip() and description.strip() != summary.strip():
        parts.append(description.strip())
    text = "\n\n".join(parts)
    return f"Deprecated. {text}".strip() if deprecated else text


def _schema_problem(schema: dict[str, Any]) -> str | None:
    """Why ``schema`` is not valid JSON Schema 2020-12, or None. With jsonschema-rs installed (it comes with the
    dev tools), its meta-check, some 500 times faster than jsonschema's on large specs; else jsonschema's."""
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - the same verdict, slower
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as error:
            place = "/".join(str(part) for part in error.path)
            return f"{error.message}" + (f" (at {place})" if place else "")
        return None
    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as error:
        place = "/".join(str(part) for part in error.instance_path)
        return str(error).splitlines()[0] + (f" (at {place})" if place else "")
    except jsonschema_rs.ReferencingError as error:
        return str(error).splitlines()[0]
    return None
