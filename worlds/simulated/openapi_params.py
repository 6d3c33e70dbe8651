"""An OpenAPI operation's inputs as one flat argument object: path, query, header and cookie parameters (the path
item's, overridden per operation by name and location) and the JSON request body's top-level properties.

A non-object body becomes one argument, ``body``. Where two inputs share a name (a query ``id`` and a body
``id``), the later one is renamed ``<location>_<name>`` and its schema records the name on the wire
(``x-squall-wire-name``). Header parameters named Accept, Content-Type or Authorization are left out, as the
OpenAPI specification says they are ignored. The body's ``readOnly`` properties are left out (a server sets them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from worlds.simulated.problems import Problems, extend
from worlds.simulated.refs import RefResolver
from worlds.simulated.schema_convert import is_object, merge_all_of, to_json_schema, without_flagged

PARAMETER_LOCATIONS = ("path", "query", "header", "cookie")
IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})


@dataclass
class Argument:
    """One flat argument: its name, where it travels, its schema, whether it is required."""

    name: str
    location: str
    schema: dict[str, Any]
    required: bool
    example: Any = None
    has_example: bool = False
    where: str = ""
    """The pointer of its schema in the document, for problems with it."""


@dataclass
class Inputs:
    """An operation's arguments and its request body's documented examples (name -> body value)."""

    arguments: list[Argument] = field(default_factory=list)
    body_examples: dict[str, Any] = field(default_factory=dict)
    body_is_object: bool = True


def pick_media(content: Any) -> tuple[str, Any] | None:
    """The media type an importer reads: JSON first (``application/json``, ``*+json``), else the first one."""
    if not isinstance(content, dict) or not content:
        return None
    for media in content:
        if media.split(";")[0].strip().lower() == "application/json":
            return media, content[media]
    for media in content:
        if "json" in media.lower():
            return media, content[media]
    media = next(iter(content))
    return media, content[media]


def media_examples(resolver: RefResolver, media: dict[str, Any], where: str) -> dict[str, Any]:
    """A media type's (or parameter's) examples by name: ``example`` as ``""``, each of ``examples`` by its key."""
    found: dict[str, Any] = {}
    if "example" in media:
        found[""] = media["example"]
    examples = media.get("examples")
    if isinstance(examples, dict):
        for key, raw in examples.items():
            example, _ = resolver.deref(raw, extend(where, "examples", key))
            if isinstance(example, dict) and "value" in example:
                found[str(key)] = example["value"]
    return found


def operation_inputs(
    resolver: RefResolver,
    problems: Problems,
    shared: tuple[Any, str],
    own: tuple[Any, str],
    body: tuple[Any, str] | None,
) -> Inputs:
    """The inputs of one operation; ``shared``/``own``: the path item's and the operation's ``parameters`` with
    their pointers; ``body``: the ``requestBody`` and its pointer."""
    by_key: dict[tuple[str, str], Argument] = {}
    for raw_list, where in (shared, own):
        if raw_list is None:
            continue
        if not isinstance(raw_list, list):
            problems.add(where, "'parameters' must be a list")
            continue
        for index, raw in enumerate(raw_list):
            argument = _parameter(resolver, problems, raw, extend(where, index))
            if argument is not None:
                by_key[(argument.name, argument.location)] = argument  # the operation's overrides the path's
    inputs = Inputs(arguments=list(by_key.values()))
    if body is not None:
        _body(resolver, problems, body[0], body[1], inputs)
    return inputs


def _parameter(resolver: RefResolver, problems: Problems, raw: Any, where: str) -> Argument | None:
    param, where = resolver.deref(raw, where)
    if param is None:
        return None
    if not isinstance(param, dict):
        problems.add(where, "a parameter must be an object")
        return None
    name, location = param.get("name"), param.get("in")
    if not isinstance(name, str) or not name:
        problems.add(extend(where, "name"), "'name' must be a non-empty string")
        return None
    if location not in PARAMETER_LOCATIONS:
        problems.add(extend(where, "in"), f"'in' must be one of {', '.join(PARAMETER_LOCATIONS)}")
        return None
    if location == "header" and name.lower() in IGNORED_HEADERS:
        return None
    required = param.get("required", False)
    if not isinstance(required, bool):
        problems.add(extend(where, "required"), "'required' must be true or false")
        return None
    schema: Any = None
    if "schema" in param:
        schema = resolver.resolve(param["schema"], extend(where, "schema"))
    elif "content" in param:
        picked = pick_media(param["content"])
        if picked is not None and isinstance(picked[1], dict):
            schema = resolver.resolve(picked[1].get("schema", {}), extend(where, "content", picked[0], "schema"))
    if schema is None:
        problems.add(where, "a parameter needs a 'schema' or a 'content'")
        return None
    if not isinstance(schema, dict):
        problems.add(extend(where, "schema"), "a schema must be an object")
        return None
    schema = to_json_schema(schema)
    description = param.get("description")
    if isinstance(description, str) and description:
        schema = {**schema, "description": description}
    if param.get("deprecated") is True:
        schema = {**schema, "deprecated": True}
    examples = media_examples(resolver, param, where)
    if examples:
        schema = {**schema, "examples": [*schema.get("examples", []), *examples.values()]}
    first = next(iter(schema.get("examples") or []), None)
    has_example = bool(schema.get("examples"))
    schema_where = extend(where, "schema") if "schema" in param else extend(where, "content")
    return Argument(name, location, schema, required or location == "path", first, has_example, schema_where)


def _body(resolver: RefResolver, problems: Problems, raw: Any, where: str, inputs: Inputs) -> None:
    body, where = resolver.deref(raw, where)
    if body is None:
        return
    if not isinstance(body, dict):
        problems.add(where, "'requestBody' must be an object")
        return
    picked = pick_media(body.get("content"))
    if picked is None:
        problems.add(extend(where, "content"), "'content' must map at least one media type to its schema")
        return
    media_type, media = picked
    media_where = extend(where, "content", media_type)
    if not isinstance(media, dict):
        problems.add(media_where, "a media type must be an object")
        return
    schema = resolver.resolve(media.get("schema", {}), extend(media_where, "schema"))
    if not isinstance(schema, dict):
        problems.add(extend(media_where, "schema"), "a schema must be an object")
        return
    schema = without_flagged(merge_all_of(to_json_schema(schema)), "readOnly")
    body_required = body.get("required") is True
    inputs.body_examples = media_examples(resolver, media, media_where)
    properties = schema.get("properties")
    if is_object(schema) and isinstance(properties, dict) and properties:
        required: list[Any] = schema["required"] if isinstance(schema.get("required"), list) else []
        for name, sub in properties.items():
            sub_schema = sub if isinstance(sub, dict) else {}
            example = (sub_schema.get("examples") or [None])[0]
            required_here = body_required and name in required
            at = extend(media_where, "schema", "properties", name)
            inputs.arguments.append(
                Argument(name, "body", sub_schema, required_here, example, "examples" in sub_schema, at)
            )
        return
    inputs.body_is_object = False
    description = body.get("description")
    if isinstance(description, str) and description and "description" not in schema:
        schema = {**schema, "description": description}
    inputs.arguments.append(Argument("body", "body", schema, body_required, where=extend(media_where, "schema")))


def flat_schema(arguments: list[Argument]) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """(JSON Schema of the flat arguments, name -> location, wire name -> argument name of renamed body fields).

    Unknown arguments are refused (``additionalProperties: false``), as a strict server would."""
    properties: dict[str, Any] = {}
    locations: dict[str, str] = {}
    renamed: dict[str, str] = {}
    required: list[str] = []
    for argument in arguments:
        name = argument.name
        schema = argument.schema
        if name in properties:
            name = f"{argument.location}_{argument.name}"
            suffix = 2
            while name in properties:
                name = f"{argument.location}_{argument.name}_{suffix}"
                suffix += 1
            schema = {**schema, "x-squall-wire-name": argument.name}
            if argument.location == "body":
                renamed[argument.name] = name
        properties[name] = schema
        locations[name] = argument.location
        if argument.required:
            required.append(name)
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    parameters["additionalProperties"] = False
    return parameters, locations, renamed
