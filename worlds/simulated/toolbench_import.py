"""ToolBench/StableToolBench tool files as an ``ApiSpec``: one operation per API of each tool's ``api_list``.

A tool file (``toolenv/tools/<Category>/<tool>.json``) has ``tool_name``, ``tool_description``, optionally
``standardized_name``, and ``api_list`` entries with ``name``, ``url``, ``method``, ``description``,
``required_parameters``/``optional_parameters`` (each ``name``, ``type``, ``description``, ``default``) and
``template_response``; a query's ``api_list`` entry says the same with ``api_name``/``api_description`` and
``tool_name``/``category_name``, and is read the same way (``api_operation``).

Names: ``toolbench_names``. Parameter types: ``NUMBER`` -> number, ``BOOLEAN`` -> boolean, anything else
string, as ToolBench maps them except that ToolBench says ``integer`` for NUMBER (unchecked there; a strict
check here would refuse ``40.7``). A non-empty ``default`` is the parameter's example value (``examples``), not a
JSON Schema default: the API does not promise it. Locations: a parameter named in the url's ``{placeholder}`` is
``path``; the others ``query`` for GET/HEAD/DELETE, else ``body``. ``template_response`` (a template of type names:
``{"data": [{"id": "int"}]}``) gives the response schema (types nullable below the top, properties optional,
extra ones allowed: a template is a sketch) and one ``ApiExample`` (source ``template_response``) whose arguments
are the documented defaults where those make a valid call, else none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from pydantic import ValidationError

from worlds.simulated.operations import WRITE_METHODS, ApiExample, ApiOperation
from worlds.simulated.problems import Problems, extend
from worlds.simulated.toolbench_names import function_name, parameter_name, standardize

TYPES = {"NUMBER": "number", "BOOLEAN": "boolean"}
TEMPLATE_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "NoneType": "null",
    "list": "array",
    "dict": "object",
}
READ_METHODS = frozenset({"get", "head", "delete"})  # whose ToolBench parameters travel in the query string
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
DESCRIPTION_MAX = 256  # ToolBench's cut of an API description in the function's description


def api_operation(
    entry: Any, where: str, problems: Problems, tool: tuple[str, str], category: str | None, file: str
) -> ApiOperation | None:
    """One API entry (a tool file's or a query's) as an operation; ``tool``: (tool_name, standard tool name)."""
    if not isinstance(entry, dict):
        problems.add(where, "an API entry must be an object")
        return None
    key = "name" if "name" in entry else "api_name"
    api_name = entry.get(key)
    if not isinstance(api_name, str) or not api_name.strip():
        problems.add(extend(where, key), "the API's name must be a non-empty string")
        return None
    method = entry.get("method", "GET")
    if not isinstance(method, str) or method.lower() not in HTTP_METHODS:
        problems.add(extend(where, "method"), f"'method' must be one of {', '.join(m.upper() for m in HTTP_METHODS)}")
        return None
    method = method.lower()
    url: str = entry["url"] if isinstance(entry.get("url"), str) and entry["url"] else api_name
    name = function_name(api_name, tool[1])
    text = entry.get("description", entry.get("api_description", "")) or ""
    if not isinstance(text, str):
        problems.add(extend(where, "description"), "the description must be a string")
        return None
    parameters = _parameters(entry, where, problems, method, url)
    if parameters is None:
        return None
    schema, locations, defaults = parameters
    description = f'This is the subfunction for tool "{tool[1]}", you can use this tool.'
    if text.strip():
        description += (
            f' The description of this function is: "{text.strip().replace(api_name, name)[:DESCRIPTION_MAX]}"'
        )
    template = entry.get("template_response")
    response_schema = template_schema(template, top=True) if template not in (None, {}, [], "") else None
    examples: tuple[ApiExample, ...] = ()
    if response_schema is not None:
        arguments = defaults if Draft202012Validator(schema).is_valid(defaults) else {}
        examples = (ApiExample(arguments=arguments, response=template, source="template_response"),)
    try:
        operation = ApiOperation(
            name=name,
            method=method,  # checked against HTTP_METHODS
            path=url,
            summary=api_name,
            description=description,
            parameters=schema,
            locations=locations,  # path, query or body
            response_schema=response_schema,
            examples=examples,
            writes=method in WRITE_METHODS,
            tags=(category,) if category else (),
            source=f"{file}#{where}",
        )
    except ValidationError as error:  # a value the contract refuses that the checks above let through
        first = error.errors(include_url=False)[0]
        problems.add(where, f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}")
        return None
    return operation


def _parameters(
    entry: dict[str, Any], where: str, problems: Problems, method: str, url: str
) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]] | None:
    """(flat schema, locations, documented defaults as arguments); None after a problem."""
    placeholders = {parameter_name(raw): raw for raw in (part.split("}")[0] for part in url.split("{")[1:])}
    properties: dict[str, Any] = {}
    locations: dict[str, str] = {}
    required: list[str] = []
    defaults: dict[str, Any] = {}
    before = len(problems)
    for group in ("required_parameters", "optional_parameters"):
        raw = entry.get(group) or []
        if not isinstance(raw, list):
            problems.add(extend(where, group), f"'{group}' must be a list")
            continue
        for index, param in enumerate(raw):
            at = extend(where, group, index)
            if not isinstance(param, dict) or not isinstance(param.get("name"), str) or not param["name"].strip():
                problems.add(at, "a parameter must be an object with a non-empty 'name'")
                continue
            kind = param.get("type", "STRING")
            if not isinstance(kind, str):
                problems.add(extend(at, "type"), "'type' must be a string such as STRING, NUMBER or BOOLEAN")
                continue
            name = parameter_name(param["name"]) or "param"
            schema: dict[str, Any] = {"type": TYPES.get(kind.upper(), "string")}
            if isinstance(param.get("description"), str) and param["description"]:
                schema["description"] = param["description"]
            example = _coerce(param.get("default"), schema["type"])
            if example is not None:
                schema["examples"] = [example]
                defaults[name] = example
            wire = placeholders.get(name, param["name"])
            if wire != name:  # standardized ("id" -> "is_id"): the simulator's request view fills in the url's name
                schema["x-squall-wire-name"] = wire
            properties[name] = schema  # a later parameter of the same name replaces an earlier one, as in ToolBench
            locations[name] = "path" if name in placeholders else "query" if method in READ_METHODS else "body"
            if group == "required_parameters" and name not in required:
                required.append(name)
    if len(problems) > before:
        return None
    flat: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        flat["required"] = required
    flat["additionalProperties"] = False
    return flat, locations, defaults


def _coerce(value: Any, kind: str) -> Any:
    """A documented default as a value of the parameter's type; None when there is none or it does not read so."""
    if value is None or str(value) == "":
        return None
    if kind == "string":
        return value if isinstance(value, str) else str(value)
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        return {"true": True, "false": False}.get(str(value).strip().lower())
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return int(number) if number.is_integer() and "." not in str(value) else number


def template_schema(template: Any, top: bool = False) -> dict[str, Any]:
    """The JSON Schema a ``template_response`` sketches: type names (``"str"``) as types, literals by their type."""
    if isinstance(template, dict):
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {str(key): template_schema(value) for key, value in template.items()},
        }
    elif isinstance(template, list):
        schema = {"type": "array", **({"items": template_schema(template[0])} if template else {})}
    elif isinstance(template, str):
        schema = {"type": TEMPLATE_TYPES.get(template, "string")}
    elif isinstance(template, bool):
        schema = {"type": "boolean"}
    elif isinstance(template, int):
        schema = {"type": "integer"}
    elif isinstance(template, float):
        schema = {"type": "number"}
    else:
        return {}
    if not top and schema["type"] != "null":
        schema["type"] = [schema["type"], "null"]
    return schema


def standard_tool_name(tool: dict[str, Any], file: Path) -> str:
    """The tool's standard name: ``standardized_name`` where the file has one, else its standardized tool name."""
    given = tool.get("standardized_name")
    if isinstance(given, str) and given.strip():
        return given.strip()
    return standardize(str(tool.get("tool_name") or file.stem))
