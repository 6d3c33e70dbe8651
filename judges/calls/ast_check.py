"""AST checker in the leaderboard's style: every error of every call the agent attempted, in a closed taxonomy.

Per played goal that has gold calls, the agent's attempted calls (failed ones too: the call's form is judged,
not its outcome; a retry of an identical call is the same call; calls the user's change of mind superseded, and
calls a stressor refused — a drifted name, a limitation, an injected failure: no agent could know before — are
left out) are checked against the toolkit's schemas and the goal's best gold path (the one with the fewest
errors). Codes are ``ast:<reason>``, one per error found:

- ``hallucinated_function``: a function outside the toolkit the agent had at that goal;
- ``instruction_format``: a call the agent's output could not be read as (unparseable, arguments not JSON);
- ``wrong_function``: a call that acts (not a lookup) to a function no accepted path of the goal calls;
- ``wrong_count``: the gold path calls a function N times, the agent a different number of distinct times;
- ``missing_required``: a required parameter (of the schema) not given;
- ``unexpected_param``: a parameter the schema does not have;
- ``type_error``: a value of another JSON type than the schema's, or outside its allowed values (enum);
- ``value_error:<type>``: the value differs from the gold's (by the run's argument matcher), or a parameter the
  gold gives is missing; ``<type>`` is the gold value's JSON type (string, number, boolean, array, object, null).

A goal passes when none of its calls has an error; the score is the share of passing goals. Lookups the gold
does not make are exploration, not errors.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from judges.calls.arg_match import ArgMatcher
from judges.calls.decline import INVENTED_CODES
from judges.common.shared_views import of_object
from judges.common.trace_view import (
    agent_events,
    arguments_json,
    failed,
    goal_superseded,
    no_world_calls,
    played,
    score_for,
    specs,
    tools_at,
    unscoreable,
)
from judges.names import JudgeName
from sim.core import EpisodeResult, Goal, GoldCall, Score, ToolCall, ToolSpec
from sim.core.task import free_in

REASONS = (
    "hallucinated_function",
    "instruction_format",
    "wrong_function",
    "wrong_count",
    "missing_required",
    "unexpected_param",
    "type_error",
    "value_error",
)
FORMAT_CODES = ("agent:parse_error", "agent:invalid_arguments")
_JSON_TYPES = {"string": str, "boolean": bool, "array": list, "object": dict}


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "string"


def _whole(value: float) -> bool:
    return math.isfinite(value) and value == int(value)  # NaN and Infinity parse as JSON numbers in Python


def _type_ok(value: Any, schema: Mapping[str, Any]) -> bool:
    if "enum" in schema and value not in schema["enum"]:
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    if not kinds:
        return True
    for k in kinds:
        if k == "null" and value is None:
            return True
        if k == "integer" and isinstance(value, int | float) and not isinstance(value, bool) and _whole(value):
            return True
        if k == "number" and isinstance(value, int | float) and not isinstance(value, bool):
            return True
        if k in _JSON_TYPES and isinstance(value, _JSON_TYPES[k]) and not (k != "boolean" and isinstance(value, bool)):
            return True
    return False


def schema_errors(call: ToolCall, spec: ToolSpec) -> list[str]:
    """Errors of a call against its function's schema, whatever the gold."""
    properties: Mapping[str, Any] = spec.parameters.get("properties", {}) or {}
    errors = [f"ast:missing_required:{p}" for p in spec.parameters.get("required", []) if p not in call.arguments]
    for name, value in call.arguments.items():
        if name not in properties:
            errors.append(f"ast:unexpected_param:{name}")
        elif not _type_ok(value, properties[name]):
            errors.append(f"ast:type_error:{name}")
    return errors


def _gold_errors(
    call: ToolCall, gold: GoldCall, spec: ToolSpec | None, matcher: ArgMatcher, free: frozenset[str]
) -> list[str]:
    schema = spec.parameters if spec is not None else None
    ok, deductions = matcher.match(call.arguments, gold.arguments, schema, gold.name, gold.accepted, free)
    errors = []
    for code in [] if ok else deductions:
        area, _, rest = code.partition(":")
        reason, _, name = rest.partition(":")
        if area == "args" and reason in ("value", "missing") and name in gold.arguments:
            errors.append(f"ast:value_error:{json_type(gold.arguments[name])}:{name}")
    return errors


def _gold_agrees(error: str, call: ToolCall, gold: GoldCall) -> bool:
    """A schema error the gold call makes too (a drifted server takes a parameter the docs do not list)."""
    reason, _, name = error.removeprefix("ast:").partition(":")
    if reason == "missing_required":
        return name not in gold.arguments
    if reason == "unexpected_param":
        return name in gold.arguments
    return name in gold.arguments and call.arguments.get(name) == gold.arguments[name]


def _key(call: ToolCall) -> tuple[str, str]:
    return call.name, arguments_json(call)


def check_goal(
    result: EpisodeResult, goal: int, matcher: ArgMatcher
) -> tuple[list[tuple[str, list[str]]], list[str]] | None:
    """(per distinct attempted call: its name and errors; errors of the goal as a whole) against the best gold
    path; None when the goal has no gold call to check against."""
    task_goal = result.task.goals[goal]
    paths, anywhere = of_object(task_goal, "ast.paths", lambda: _gold_paths(task_goal))
    if not paths or task_goal.outcome == "decline":
        return None
    events = agent_events(result, goal)
    dropped = goal_superseded(result, goal)
    read_only = {ev.call.id: bool(ev.read_only) for ev in events if ev.kind == "tool_call" and ev.call}
    toolkit = tools_at(result, goal)
    tool_specs = specs(result)
    # A call a stressor refused (a drifted name, a limitation, an injected failure) followed the docs the agent had:
    # what it did next is judged, not the call no agent could have known would fail.
    refused = {
        ev.call.id
        for ev in events
        if ev.kind == "tool_result" and ev.call and ev.result and not ev.result.ok and ev.scenarios
    }
    skipped = dropped | refused
    calls: dict[tuple[str, str], ToolCall] = {}
    for ev in events:
        if ev.kind == "tool_call" and ev.call is not None and ev.call.id not in skipped:
            calls.setdefault(_key(ev.call), ev.call)
    # Calls the runtime refused before they reached the world: invented functions, unreadable output.
    formats = [
        "ast:hallucinated_function" if ev.code in INVENTED_CODES else "ast:instruction_format"
        for ev in events
        if ev.kind == "error" and ev.code and (ev.code in INVENTED_CODES or ev.code.startswith(FORMAT_CODES))
    ]
    best: tuple[list[tuple[str, list[str]]], list[str]] | None = None
    for path in paths:
        per_call, whole = _against_path(
            list(calls.values()), path, read_only, toolkit, tool_specs, matcher, anywhere, task_goal.free_arguments
        )
        whole = formats + whole
        total = sum(len(e) for _, e in per_call) + len(whole)
        if best is None or total < sum(len(e) for _, e in best[0]) + len(best[1]):
            best = (per_call, whole)
    return best


def _gold_paths(goal: Goal) -> tuple[list[list[GoldCall]], set[str]]:
    """The goal's paths with a core call, and every function any path names (a backup path's first choice is no
    wrong function): once per goal object (``judges.common.shared_views``)."""
    paths = goal.paths()
    return [p for p in paths if any(g.role == "core" for g in p)], {g.name for p in paths for g in p}


def _against_path(
    calls: list[ToolCall],
    path: list[GoldCall],
    read_only: dict[str, bool],
    toolkit: set[str],
    specs: dict[str, ToolSpec],
    matcher: ArgMatcher,
    anywhere: set[str],
    free_arguments: Sequence[str],
) -> tuple[list[tuple[str, list[str]]], list[str]]:
    core = [g for g in path if g.role == "core"]
    named = {g.name for g in path}
    # Each gold call goes to the agent's call of that function closest to it (fewest errors): a wrong try and a
    # right one make a wrong count, not a wrong value.
    options = sorted(
        (len(errs), i, j, errs)
        for i, call in enumerate(calls)
        for j, gold in enumerate(core)
        if gold.name == call.name
        for errs in [_gold_errors(call, gold, specs.get(gold.name), matcher, free_in(free_arguments, gold.name))]
    )
    paired: dict[int, tuple[GoldCall, list[str]]] = {}
    taken: set[int] = set()
    for _, i, j, errs in options:
        if i not in paired and j not in taken:
            paired[i] = (core[j], errs)
            taken.add(j)
    per_call: list[tuple[str, list[str]]] = []
    for i, call in enumerate(calls):
        if call.name not in named and (call.name not in toolkit or call.name not in specs):
            per_call.append((call.name, ["ast:hallucinated_function"]))
            continue
        gold, errors = paired.get(i, (None, []))
        spec = specs.get(call.name)
        if spec is not None:  # the docs the agent read; where the gold's form differs (drift), the gold's wins
            errors = [e for e in schema_errors(call, spec) if gold is None or not _gold_agrees(e, call, gold)] + errors
        if call.name not in anywhere and not read_only.get(call.id, False):
            errors.append("ast:wrong_function")
        per_call.append((call.name, errors))
    core_names = {g.name for g in core}
    made = _tally(c.name for c in calls if c.name in core_names)
    wanted = _tally(g.name for g in core)
    whole = [f"ast:wrong_count:{name}" for name in sorted(wanted) if made.get(name, 0) != wanted[name]]
    return per_call, whole


def _tally(items: Iterable[str]) -> dict[str, int]:
    """How often each item came: ``Counter(items)`` as a plain dict, without Counter's per-call overhead (a few
    microseconds, several times an episode, over a handful of items)."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


def reason_of(code: str) -> str:
    """The taxonomy reason of a code (``ast:value_error:string:city`` -> ``value_error:string``)."""
    parts = code.split(":")
    return ":".join(parts[1:3]) if parts[1] == "value_error" else parts[1]


class AstChecker:
    """Share of goals whose every attempted call is free of AST errors; every error listed."""

    name = JudgeName.AST

    def __init__(self, matcher: ArgMatcher) -> None:
        self.matcher = matcher

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        if (not_applicable := no_world_calls(result, self.name)) is not None:
            return not_applicable
        await self.matcher.prepare(result)  # a judge model's verdicts on value pairs (llm mode), asked once
        verdicts = {}
        for goal in range(len(result.task.goals)):
            if played(result, goal) and (checked := check_goal(result, goal, self.matcher)) is not None:
                verdicts[goal] = checked
        if not verdicts:
            return score_for(result, self.name, value=None)
        clean = {g: not any(e for _, e in calls) and not whole for g, (calls, whole) in verdicts.items()}
        errors = [
            f"goal{g}:{code}"
            for g, (calls, whole) in verdicts.items()
            for code in [*whole, *(e for _, es in calls for e in es)]
        ]
        reasons = _tally(reason_of(e.partition(":")[2]) for e in errors)
        return score_for(
            result,
            self.name,
            value=sum(clean.values()) / len(clean),
            per_goal=[(1.0 if clean[g] else 0.0) if g in clean else None for g in range(len(result.task.goals))],
            errors=errors,
            details={
                "calls": sum(len(calls) for calls, _ in verdicts.values()),
                "reasons": dict(sorted(reasons.items())),
            },
        )
