"""An OpenAPI operation's success response (schema and examples), and its documented exchanges.

The success response is the lowest 2xx status listed (``200`` before ``201`` before ``2XX``); its JSON media
type's schema is the operation's ``response_schema`` (``writeOnly`` properties left out: a server never returns
them), None when it has no content (``204``). Examples become ``ApiExample``s only where arguments and response
can be paired honestly: a response example named like a request body example (``examples`` keys), or the unnamed
ones, with the parameters' own examples filling the rest. A pair counts only if its arguments are valid against
the operation's argument schema; unpaired examples stay documented in the schemas' ``examples``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from worlds.simulated.openapi_params import Inputs, media_examples, pick_media
from worlds.simulated.operations import ApiExample
from worlds.simulated.problems import Problems, extend
from worlds.simulated.refs import RefResolver
from worlds.simulated.schema_convert import to_json_schema, without_flagged

_SUCCESS = re.compile(r"2(\d\d|XX)", re.IGNORECASE)


@dataclass
class Success:
    """The success response: its schema (None: none given), examples by name, and the pointer of its media type."""

    schema: dict[str, Any] | None = None
    examples: dict[str, Any] = field(default_factory=dict)
    where: str = ""


def success_response(resolver: RefResolver, problems: Problems, responses: Any, where: str) -> Success:
    if responses is None:
        return Success()
    if not isinstance(responses, dict):
        problems.add(where, "'responses' must be an object")
        return Success()
    codes = sorted((code for code in responses if _SUCCESS.fullmatch(str(code))), key=lambda c: str(c).upper())
    if not codes:
        return Success()
    code = codes[0]
    response, response_where = resolver.deref(responses[code], extend(where, code))
    if response is None:
        return Success()
    if not isinstance(response, dict):
        problems.add(response_where, "a response must be an object")
        return Success()
    if "content" not in response:
        return Success()
    picked = pick_media(response["content"])
    if picked is None:
        problems.add(extend(response_where, "content"), "'content' must map media types to their schemas")
        return Success()
    media_type, media = picked
    media_where = extend(response_where, "content", media_type)
    if not isinstance(media, dict):
        problems.add(media_where, "a media type must be an object")
        return Success()
    examples = media_examples(resolver, media, media_where)
    if "schema" not in media:
        return Success(None, examples, media_where)
    schema = resolver.resolve(media["schema"], extend(media_where, "schema"))
    if not isinstance(schema, dict):
        problems.add(extend(media_where, "schema"), "a schema must be an object")
        return Success()
    return Success(without_flagged(to_json_schema(schema), "writeOnly"), examples, media_where)


def pair_examples(
    inputs: Inputs, renamed: dict[str, str], parameters: dict[str, Any], success: Success, source: str
) -> tuple[list[ApiExample], list[Any], list[Any]]:
    """(paired exchanges, unpaired request argument sets, unpaired responses); ``source``: the success media
    type's place (``api.yaml#/paths/~1pets/get/responses/200/content/application~1json``)."""
    validator = Draft202012Validator(parameters)
    defaults = {a.name: a.example for a in inputs.arguments if a.has_example and a.location != "body"}
    request_sets = {key: _arguments(value, inputs, renamed) for key, value in inputs.body_examples.items()}
    paired: list[ApiExample] = []
    used: set[str] = set()
    unpaired_responses: list[Any] = []
    for key, response in success.examples.items():
        body_key = key if key in request_sets else ("" if "" in request_sets else next(iter(request_sets), None))
        arguments = {**defaults, **(request_sets[body_key] if body_key is not None else {})}
        if not validator.is_valid(arguments):
            unpaired_responses.append(response)
            continue
        where = f"{source}/example" if key == "" else f"{source}{extend('', 'examples', key)}"
        paired.append(ApiExample(arguments=arguments, response=response, source=where))
        if body_key is not None:
            used.add(body_key)
    unpaired_requests = [value for key, value in request_sets.items() if key not in used]
    return paired, unpaired_requests, unpaired_responses


def _arguments(body: Any, inputs: Inputs, renamed: dict[str, str]) -> dict[str, Any]:
    """A request body example as flat arguments (an object body's fields by argument name, else ``body``)."""
    if inputs.body_is_object and isinstance(body, dict):
        return {renamed.get(str(key), str(key)): value for key, value in body.items()}
    return {"body": body}
