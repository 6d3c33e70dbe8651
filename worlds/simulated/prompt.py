"""What the model that plays an API is shown: StableToolBench's virtual-server prompt, with more to go on.

StableToolBench shows the documentation, up to five cached examples (2,048 characters) and the input, and asks
for ``{"error": "", "response": ...}``. Here the model also sees the response schema it must satisfy, the spec's
own examples, the request as the service would receive it (path, query, headers, body), and what earlier write
calls of the episode did, so a created item can be read back. It answers with an HTTP status and a body, so a
lookup of something that does not exist can be a realistic 404 rather than an invented record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sim.core import ChatMessage
from worlds.simulated.cache import CachedResponse
from worlds.simulated.canonical import canonical_json
from worlds.simulated.operations import ApiOperation

EXAMPLE_LIMIT = 5
"""Cached exchanges shown at most (StableToolBench's number)."""
EXAMPLE_CHARS = 2_048
"""Characters of cached exchanges shown at most (StableToolBench's budget)."""
SCHEMA_CHARS = 6_000
MEMORY_CHARS = 4_000

SYSTEM = """\
You are the server of the HTTP API "{title}". You receive one request for one of its operations and answer it \
exactly as the real service would, consistent with its documentation, its response schema, earlier answers and \
the changes earlier requests of this session made.
Answer with one JSON object and nothing else: {{"status": <HTTP status code>, "body": <response body>}}.
- A success (2xx) body must validate against the operation's response schema; invent plausible, specific values \
(ids, names, dates) where the request does not fix them, and keep them consistent with earlier answers.
- A request for something that does not exist gets status 404 with a body {{"message": "..."}}; a request the \
service would reject gets 400 or 409 with a message. Never answer 5xx.
- No comments, no markdown, no text outside the JSON object."""

RETRY = """\
Your answer was not usable: {problem}
Answer again with only the JSON object {{"status": ..., "body": ...}}."""


def request_view(operation: ApiOperation, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The HTTP request the arguments make: the path filled in, and query, headers and body apart."""
    path = operation.path
    parts: dict[str, dict[str, Any]] = {}
    properties = operation.parameters.get("properties", {})
    for name, value in arguments.items():
        where = operation.locations.get(name, "body")
        wire = properties.get(name, {}).get("x-squall-wire-name", name)  # the importer renamed a clash
        if where == "path":
            path = path.replace("{" + wire + "}", str(value))
        else:
            parts.setdefault(where, {})[wire] = value
    return {"method": operation.method.upper(), "path": path, **{k: parts[k] for k in sorted(parts)}}


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + " …(cut)"


def _examples(cached: Sequence[CachedResponse]) -> list[str]:
    """Up to EXAMPLE_LIMIT earlier answers within EXAMPLE_CHARS, stateless ones first (they hold in any session)."""
    shown: list[str] = []
    used = 0
    for entry in sorted(cached, key=lambda e: (e.state != "", canonical_json(e.arguments))):
        text = f"arguments {canonical_json(entry.arguments)} -> {canonical_json(entry.response)}"
        if len(shown) >= EXAMPLE_LIMIT or used + len(text) > EXAMPLE_CHARS:
            break
        shown.append(text)
        used += len(text)
    return shown


def messages(
    title: str,
    operation: ApiOperation,
    arguments: Mapping[str, Any],
    cached: Sequence[CachedResponse],
    memory: Sequence[tuple[str, Any, Any]],
) -> list[ChatMessage]:
    """The request's messages: system rules, then one user message that starts ``Operation: NAME``."""
    lines = [f"Operation: {operation.name}", f"{operation.method.upper()} {operation.path}"]
    if operation.description or operation.summary:
        lines += ["", "Documentation:", operation.description or operation.summary]
    lines += ["", "Parameters (JSON Schema):", _clip(canonical_json(operation.parameters), SCHEMA_CHARS)]
    if operation.response_schema is not None:
        lines += [
            "",
            "Success response body (JSON Schema):",
            _clip(canonical_json(operation.response_schema), SCHEMA_CHARS),
        ]
    documented = [
        f"arguments {canonical_json(e.arguments)} -> {canonical_json(e.response)}" for e in operation.examples
    ]
    if documented:
        lines += ["", "Documented examples:", *(_clip(t, EXAMPLE_CHARS) for t in documented[:EXAMPLE_LIMIT])]
    earlier = _examples(cached)
    if earlier:
        lines += ["", "Earlier answers of this operation:", *earlier]
    if memory:
        changes = [f"{name} {canonical_json(args)} -> {canonical_json(response)}" for name, args, response in memory]
        lines += [
            "",
            "Changes earlier requests of this session made (oldest first):",
            _clip("\n".join(changes), MEMORY_CHARS),
        ]
    lines += ["", "Request:", json.dumps(request_view(operation, arguments), sort_keys=True, ensure_ascii=False)]
    return [
        ChatMessage(role="system", content=SYSTEM.format(title=title or "service")),
        ChatMessage(role="user", content="\n".join(lines)),
    ]


def retry_messages(previous: list[ChatMessage], answer: str, problem: str) -> list[ChatMessage]:
    return [
        *previous,
        ChatMessage(role="assistant", content=answer),
        ChatMessage(role="user", content=RETRY.format(problem=problem)),
    ]
