"""The stressor's own answers to calls of synthetic tools: deterministic, honest for what the tool claims, and
never touching the world (a synthetic tool has no world state to read or change).

Arguments are checked against the tool's schema first, as a real API would: a call with a missing or unknown
argument, or a value of the wrong type, is refused as invalid arguments.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from jsonschema import Draft202012Validator

from sim.core import ToolCall, ToolResult, ToolSpec, failure
from sim.core.frozen import thaw
from worlds.stressors.expand.templates import Candidate


def stable_code(*parts: Any, digits: int = 8) -> str:
    """A short hex code derived from its parts: the same in every process (unlike ``hash``)."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:digits]


def argument_problem(spec: ToolSpec, arguments: dict[str, Any]) -> str | None:
    """What is wrong with the arguments for ``spec``, or None."""
    schema = thaw(spec.parameters)
    known = schema.get("properties", {})
    unknown = sorted(a for a in arguments if a not in known)
    if unknown:
        return f"unknown argument {', '.join(unknown)}"
    errors = sorted(Draft202012Validator(schema).iter_errors(arguments), key=lambda e: list(e.path))
    if errors:
        where = ".".join(str(p) for p in errors[0].path)
        return f"{where}: {errors[0].message}" if where else errors[0].message
    return None


def synthetic_answer(call: ToolCall, candidate: Candidate, source: ToolSpec | None, issued: int) -> ToolResult:
    """The result of one call to a synthetic tool. ``issued``: ids handed out so far this episode, so a repeated
    call still gets a new id; ``source``: the original tool as the agent reads it (for ``help``)."""
    problem = argument_problem(candidate.spec, call.arguments)
    if problem is not None:
        return failure(call, "invalid_arguments", "bad_arguments", f"{call.name}: {problem}.")
    args = dict(call.arguments)
    answer = candidate.answer
    code = stable_code(call.name, args, issued)
    content: dict[str, Any]
    if answer.kind == "ack":
        content = {**args, f"{answer.key}_id": f"{answer.key}_{code}", "status": answer.status}
    elif answer.kind == "preview":
        content = {"preview_of": candidate.source, "arguments": args, "applied": False, "note": "Nothing was changed."}
    elif answer.kind == "neutral":
        content = {"status": "ok"}
    elif answer.kind == "listing":
        content = {**args, answer.key or "items": [], "count": 0}
    elif answer.kind == "export":
        fmt = str(args.get("format", "csv"))
        content = {
            "export_id": f"export_{code}",
            "format": fmt,
            "download_url": f"https://exports.example.com/{code}.{fmt}",
            "expires_in_hours": 24,
        }
    else:  # help: the source's own documentation, as the agent reads it
        if source is None:
            return failure(call, "not_found", "not_found", f"{call.name}: no documentation for {candidate.source}.")
        content = {"function": source.name, "description": source.description, "parameters": thaw(source.parameters)}
    return ToolResult(call_id=call.id, status="success", content=content)
