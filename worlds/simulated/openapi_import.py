"""An OpenAPI 3.0/3.1 document (JSON or YAML) as an ``ApiSpec``: one operation per path and method.

Names: the ``operationId`` sanitised to ``[A-Za-z0-9_-]`` (64 characters at most), or ``<method>_<path>``
(``get_pets_petId``) where there is none; two operations whose names sanitise alike get ``_2``, ``_3``. Arguments:
``openapi_params``. Response and examples: ``openapi_responses``. ``writes``: the operation's ``x-squall-writes``
(true/false) where given, else whether the method is a write (``WRITE_METHODS``). Every problem is collected with
its pointer and reported together (``SpecError``); nothing is returned from a document with any.
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
from worlds.simulated.operations import WRITE_METHODS, ApiOperation, ApiSpec
from worlds.simulated.problems import Problems, extend, pointer
from worlds.simulated.refs import RefResolver
from worlds.simulated.spec_files import load_document

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_NAME = 64
WRITES_EXTENSION = "x-squall-writes"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def sanitise(text: str) -> str:
    """A tool name from any text: runs of other characters (and of ``_``) as one ``_``, none at the ends, 64 at
    most (``get /pets/{petId}`` -> ``get_pets_petId``)."""
    return re.sub("_{2,}", "_", _UNSAFE.sub("_", text)).strip("_")[:MAX_NAME].rstrip("_")


def import_openapi(path: Path, world: str) -> ApiSpec:
    """The operations of the document at ``path``. Raises SpecError listing every problem."""
    path = Path(path)
    document = load_document(path)
    problems = Problems(str(path))
    if not isinstance(document, dict):
        problems.add("", "an OpenAPI document must be an object (with 'openapi', 'info' and 'paths')")
        problems.raise_if_any()
    _check_version(document, problems)
    info = document.get("info") if isinstance(document.get("info"), dict) else {}
    paths = document.get("paths")
    if not isinstance(paths, dict) or not paths:
        problems.add(pointer("paths"), "'paths' must be an object with at least one path")
        problems.raise_if_any()
    resolver = RefResolver(document, problems)
    operations: list[ApiOperation] = []
    seen_ids: dict[str, str] = {}
    for raw_path, raw_item in paths.items():
        item_where = pointer("paths", raw_path)
        if not raw_path.startswith("/"):
            problems.add(item_where, "a path must start with '/'")
            continue
        item, resolved_where = resolver.deref(raw_item, item_where)
        if item is None:
            continue
        if not isinstance(item, dict):
            problems.add(item_where, "a path item must be an object")
            continue
        shared = (item.get("parameters"), extend(resolved_where, "parameters"))
        for method in METHODS:
            if method not in item:
                continue
            where = extend(resolved_where, method)
            raw = item[method]
            if not isinstance(raw, dict):
                problems.add(where, "an operation must be an object")
                continue
            op_id = raw.get("operationId")
            if op_id is not None and (not isinstance(op_id, str) or not op_id):
                problems.add(extend(where, "operationId"), "'operationId' must be a non-empty string")
                continue
            if isinstance(op_id, str):
                if op_id in seen_ids:
                    problems.add(
                        extend(where, "operationId"), f"'{op_id}' is also the operationId of {seen_ids[op_id]}"
                    )
                    continue
                seen_ids[op_id] = f"#{where}"
            operation = _operation(resolver, problems, path, raw_path, method, raw, where, shared)
            if operation is not None:
                operations.append(operation)
    if not operations and not problems:
        problems.add(pointer("paths"), "no operations: no path has get, put, post, delete, patch, ... under it")
    problems.raise_if_any()
    return ApiSpec(
        name=world,
        title=str(info.get("title", "")),
        version=str(info.get("version", "")),
        source="openapi",
        operations=tuple(_unique_names(operations)),
    )


def _check_version(document: dict[str, Any], problems: Problems) -> None:
    if "swagger" in document:
        problems.add(pointer("swagger"), "Swagger 2.0 is not supported: convert the document to OpenAPI 3 first")
        return
    version = document.get("openapi")
    if not isinstance(version, str) or not re.fullmatch(r"3\.[01](\.\d+)?(-.*)?", version):
        problems.add(pointer("openapi"), "'openapi' must be a 3.0.x or 3.1.x version string, such as \"3.1.0\"")


def _operation(
    resolver: RefResolver,
    problems: Problems,
    file: Path,
    raw_path: str,
    method: str,
    raw: dict[str, Any],
    where: str,
    shared: tuple[Any, str],
) -> ApiOperation | None:
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
    checks = [(argument.where, argument.schema) for argument in inputs.arguments]
    for schema_where, schema in [*checks, (extend(success.where, "schema"), success.schema)]:
        if schema is not None and (error := _schema_problem(schema)) is not None:
            problems.add(schema_where, f"not a valid schema: {error}")
    if len(problems) > before:
        return None
    source = f"{file.name}#{where}"  # the file's name only: operations.json is shared, the folder it came from not
    examples, requests, responses = pair_examples(inputs, renamed, parameters, success, f"{file.name}#{success.where}")
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
            source=source,
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


def _unique_names(operations: list[ApiOperation]) -> list[ApiOperation]:
    """Names that sanitise alike (``pets.list`` and ``pets_list``) made unique with a suffix, spec order."""
    taken: set[str] = set()
    unique: list[ApiOperation] = []
    for operation in operations:
        name, number = operation.name, 2
        while name in taken:
            tail = f"_{number}"
            name = operation.name[: MAX_NAME - len(tail)] + tail
            number += 1
        taken.add(name)
        unique.append(operation if name == operation.name else operation.model_copy(update={"name": name}))
    return unique
