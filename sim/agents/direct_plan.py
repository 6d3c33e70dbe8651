"""The direct-invocation plan: the whole call sequence of a turn written in one reply, as the API-styles study's
non-agentic runs write it (seed 002, appendix F), and how a later call names an earlier call's output.

The format, a JSON list: ``[{"name": "<tool>", "arguments": {...}, "label": "<output label>"}, ...]`` (also inside
a fenced block, or as one ``<tool_call>{...}</tool_call>`` per call, Qwen's form). ``arguments`` may be called
``parameters``; ``label`` is optional (an unlabelled output cannot be referred to).

References: an argument whose whole value is ``"$LABEL$"`` takes the output of the call labelled LABEL;
``"$LABEL.field$"`` takes that field of the output, or of each of its records (a list of the values). The value
is then fitted to the parameter's JSON type, since the model cannot see the output's shape: a list parameter
takes a list of one-field records as their values and a single value as a one-item list; a single-value parameter
takes a one-item list as its item. An output that is an object holding ``results`` reads as those results (how the
SQL worlds return an empty result with a hint beside it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_REFERENCE = re.compile(r"^\$([A-Za-z_][\w-]*)(?:\.([^$]+))?\$$")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_ARGUMENT_KEYS = ("arguments", "parameters", "args")


@dataclass(frozen=True)
class PlannedCall:
    """One call of a plan, its arguments as written (references unresolved)."""

    name: str
    arguments: dict[str, Any]
    label: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, **({"label": self.label} if self.label else {})}


@dataclass(frozen=True)
class Plan:
    """What a reply planned: its calls (none: the reply is an answer in words, or ``[]``)."""

    calls: tuple[PlannedCall, ...]
    text: str = ""
    """The reply's words beside the plan (the whole reply when it holds no plan)."""


@dataclass(frozen=True)
class PlanError:
    """A reply that tried to write a plan the parser cannot use."""

    message: str
    raw: str = ""


def render_plan(calls: list[PlannedCall]) -> str:
    """A plan as the format wants it written."""
    return json.dumps([c.as_json() for c in calls], ensure_ascii=False)


def parse_plan(text: str) -> Plan | PlanError:
    """The plan a reply holds. Never raises: a broken plan is a PlanError, a reply with no attempt an answer."""
    stripped = text.strip()
    tagged = _TOOL_CALL.findall(stripped)
    if tagged:
        return _calls([_loads(body) for body in tagged], stripped, _TOOL_CALL.sub("", stripped))
    fenced = _FENCE.search(stripped)
    body = fenced.group(1).strip() if fenced else stripped
    start = body.find("[")
    if start < 0:
        if body.startswith("{"):  # a single call written without the list around it
            return _calls([_loads(body)], body, "")
        return Plan((), stripped)
    decoded, end = _decode_from(body, start)
    if decoded is _BROKEN:
        return PlanError("the call list is not valid JSON", body[start : start + 300])
    rest = (body[:start] + body[end:]).strip() if not fenced else _FENCE.sub("", stripped).strip()
    if not isinstance(decoded, list):
        return PlanError("the plan must be a JSON list of calls", body[start : start + 300])
    return _calls(decoded, body, rest)


_BROKEN = object()


def _loads(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return _BROKEN


def _decode_from(body: str, start: int) -> tuple[Any, int]:
    try:
        value, end = json.JSONDecoder().raw_decode(body, start)
    except ValueError:
        return _BROKEN, start
    return value, end


def _calls(items: list[Any], raw: str, rest: str) -> Plan | PlanError:
    calls: list[PlannedCall] = []
    for n, item in enumerate(items, start=1):
        if item is _BROKEN:
            return PlanError(f"call {n} is not valid JSON", raw[:300])
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip():
            return PlanError(f'call {n} is not an object with a "name"', raw[:300])
        arguments: Any = next((item[k] for k in _ARGUMENT_KEYS if k in item), {})
        if isinstance(arguments, str):  # arguments sent as a JSON string
            arguments = _loads(arguments)
        if not isinstance(arguments, dict):
            return PlanError(f'call {n} ({item["name"]}): "arguments" must be a JSON object', raw[:300])
        label = item.get("label")
        calls.append(PlannedCall(item["name"].strip(), arguments, label if isinstance(label, str) else None))
    return Plan(tuple(calls), rest.strip())


def references(calls: tuple[PlannedCall, ...]) -> set[str]:
    """The labels later calls refer to."""
    found: set[str] = set()
    for call in calls:
        for value in call.arguments.values():
            match = _REFERENCE.match(value) if isinstance(value, str) else None
            if match:
                found.add(match.group(1))
    return found


def resolve(
    call: PlannedCall, outputs: Mapping[str, Any], parameters: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The call's arguments with references replaced by earlier outputs (``outputs``: by label) fitted to
    ``parameters`` (the tool's JSON schema), and the references that named no output (left as written: the tool
    refuses them)."""
    properties: dict[str, Any] = parameters.get("properties") or {}
    resolved: dict[str, Any] = {}
    missing: list[str] = []
    for name, value in call.arguments.items():
        match = _REFERENCE.match(value) if isinstance(value, str) else None
        if match is None:
            resolved[name] = value
            continue
        label, path = match.group(1), match.group(2)
        if label not in outputs:
            missing.append(value)
            resolved[name] = value
            continue
        got = _pick(_records(outputs[label]), path)
        if got is _BROKEN:
            missing.append(value)
            resolved[name] = value
            continue
        schema = properties.get(name)
        resolved[name] = _fit(got, schema if isinstance(schema, dict) else {})
    return resolved, missing


def _records(output: Any) -> Any:
    if isinstance(output, dict) and "results" in output:
        return output["results"]
    return output


def _pick(output: Any, path: str | None) -> Any:
    """The output, or its field ``path``: of an object, or of each record of a list."""
    if path is None:
        return output
    if isinstance(output, dict):
        return output.get(path, _BROKEN)
    if isinstance(output, list) and all(isinstance(r, dict) and path in r for r in output):
        return [r[path] for r in output]
    return _BROKEN


def _fit(value: Any, schema: dict[str, Any]) -> Any:
    """The value in the parameter's shape (see the module doc)."""
    kinds = schema.get("type")
    wants_list = kinds == "array" or (isinstance(kinds, list) and kinds == ["array"])
    if wants_list:
        if isinstance(value, list):
            if value and all(isinstance(r, dict) and len(r) == 1 for r in value):
                return [next(iter(r.values())) for r in value]
            return value
        return [value]
    if schema and isinstance(value, list) and len(value) == 1:
        item = value[0]
        return next(iter(item.values())) if isinstance(item, dict) and len(item) == 1 else item
    if schema and isinstance(value, dict) and len(value) == 1:
        return next(iter(value.values()))
    return value
