"""Failure-stage taxonomy: for every goal core API accuracy judges wrong, the first stage that went wrong.

Along a solution path, the first core call core API accuracy does not find right decides, by what the agent did
with that tool in the goal:
- ``search``: the tool was not in the agent's toolkit at that goal (``EpisodeResult.tools_at``: an endpoint that
  moved, until its 410 named the new one, a function missing this goal, one only a tool search finds) and the
  agent never called it;
- ``identification``: the tool was available and the agent never called it (a state-changing call of a tool
  the path does not have, instead, counts here too);
- ``chaining``: it called the tool but its calls failed for a missing or out-of-order prerequisite or an id
  that should have come from a lookup (the worlds' codes below), or a successful call carried a wrong value
  an earlier tool result had shown;
- ``tool_use``: right tool, wrong arguments or format (``args:*`` deductions, ``invalid_arguments`` and other
  refusals of the arguments given);
- ``execution``: right tool, refused for reasons outside the call (outage, rate limit, timeout, an injected
  failure), never got through;
- ``not_played``: the conversation ended before the goal.
A core call the agent never made, after a support step of the path failed in that turn (and never succeeded),
takes that step's stage: the agent stopped there. A goal with alternative paths is judged on the path the agent
was on: the one whose tools it called most, then the one it got furthest along, then the primary. Deductions
come from ``judges.calls.core_api`` (each gold call judged on its own), never re-derived here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property

from judges.calls.arg_match import ArgMatcher
from judges.calls.core_api import Schemas, agent_calls, judge_turns, path_errors
from judges.calls.failure_stage_summary import STAGES
from judges.common.episode_memo import memo
from judges.common.trace_view import (
    agent_events,
    failed,
    no_world_calls,
    played,
    schemas,
    score_for,
    tools_at,
    unscoreable,
)
from judges.names import JudgeName
from sim.core import EpisodeResult, Goal, GoldCall, Score, ToolCall

CHAINING_CODES = frozenset(
    {"not_looked_up", "prerequisite_missing", "device_off", "thermostat_off", "call_active", "empty_cart"}
)
"""Refusals that name a step missing before the call (worlds' ``ToolError`` codes, the dependency stressor's)."""
EXECUTION_STATUSES = frozenset({"unavailable", "rate_limited", "timeout"})
EXECUTION_STRESSORS = frozenset({"failure", "outage"})
"""Stressor types whose refusals are the infrastructure's, not the call's (scenario names are '<type>.<slug>')."""
_RESULT_JSON = json.JSONEncoder(default=str, ensure_ascii=False)
"""``json.dumps(value, default=str, ensure_ascii=False)``, without building an encoder per call."""
MIN_CARRIED = 4
"""Shortest string value checked for having come from an earlier result: shorter ones match by chance."""


def _failure_kind(status: str, code: str | None, scenarios: list[str]) -> str:
    """The stage a failed call of a needed tool points at."""
    if code in CHAINING_CODES or (code is not None and code.startswith("unknown_") and code != "unknown_tool"):
        return "chaining"
    kinds = {name.partition(".")[0] for name in scenarios}
    if "limitation" in kinds:
        return "tool_use"  # a policy refusal whose workaround on the same tool the agent did not take
    if status in EXECUTION_STATUSES or kinds & EXECUTION_STRESSORS:
        return "execution"
    return "tool_use"


class _TurnTrace:
    """What the agent did in one goal, by tool name; what it had been shown and told by then (``seen``, ``said``:
    built only where a wrong value is checked for having come from an earlier result, which few goals need)."""

    def __init__(self, result: EpisodeResult, turn: int) -> None:
        self.called: set[str] = set()
        self.succeeded: set[str] = set()
        self.codes: dict[str, list[str]] = {}  # failed results: 'chaining' | 'tool_use' | 'execution'
        self._result, self._turn = result, turn
        for ev in agent_events(result, turn):  # the goal's own events, replayed gold left out
            if ev.kind == "tool_call" and ev.call is not None:
                self.called.add(ev.call.name)
            elif ev.kind == "tool_result" and ev.result is not None and ev.call is not None:
                if ev.result.ok:
                    self.succeeded.add(ev.call.name)
                else:
                    kind = _failure_kind(ev.result.status, ev.result.error_code, ev.scenarios)
                    self.codes.setdefault(ev.call.name, []).append(kind)

    @cached_property
    def seen(self) -> str:
        """Earlier successful tool results, as JSON: where a carried-over value would come from."""
        result = self._result
        texts = memo(result, "failure_stage.results", dict[int, str])  # each result's JSON, once an episode
        seen = []
        for ev in result.events:
            if ev.kind == "tool_result" and ev.result is not None and ev.call is not None and ev.result.ok:
                if ev.goal_index > self._turn:
                    continue
                text = texts.get(id(ev))  # the result's own events: alive, and their ids theirs, while it is judged
                if text is None:
                    text = texts[id(ev)] = _RESULT_JSON.encode(ev.result.content)
                seen.append(text)
        return "\n".join(seen)

    @cached_property
    def said(self) -> str:
        """The user's messages so far."""
        turn = self._turn
        events = self._result.events
        said = [ev.content for ev in events if ev.kind == "user_message" and ev.content and ev.goal_index <= turn]
        return "\n".join(said)


def _carried(key: str, gold: GoldCall, trace: _TurnTrace) -> bool:
    """Whether a wrong value of ``key`` should have come from an earlier call: its gold value was in an earlier
    result and the user never said it."""
    value = gold.arguments.get(key)
    return isinstance(value, str) and len(value) >= MIN_CARRIED and value in trace.seen and value not in trace.said


@dataclass
class _Turn:
    """One wrong goal, with what judging a gold call against the agent's calls needs."""

    goal: Goal
    calls: list[tuple[ToolCall, bool]]
    schemas: Schemas
    matcher: ArgMatcher
    toolkit: set[str]
    trace: _TurnTrace

    def errors(self, path: list[GoldCall], others: list[GoldCall] | None = None) -> list[str]:
        """core_api's deductions for ``path`` alone, leaving out the agent's calls that are right for ``others``
        (a tool the path calls twice: the call made for one is not a wrong call of the other)."""
        calls = [c for c in self.calls if not any(self._same(c[0], o) for o in others or ())]
        return path_errors(path, calls, self.schemas, self.matcher, self.goal.free_arguments)

    def _same(self, call: ToolCall, gold: GoldCall) -> bool:
        return call.name == gold.name and self.matcher.matches(
            call.arguments,
            gold.arguments,
            self.schemas.get(gold.name),
            gold.name,
            gold.accepted,
            self.goal.free_in(gold.name),
        )


def _failed_step(step: GoldCall, t: _Turn) -> str | None:
    """The stage of a support step that went wrong in the goal: called and never through, or not findable."""
    kinds = t.trace.codes.get(step.name)
    if kinds and step.name not in t.trace.succeeded:
        return min(kinds, key=STAGES.index)
    if step.name not in t.toolkit and step.name not in t.trace.called:
        return "search"
    return None


def _called_stage(gold: GoldCall, errors: list[str], t: _Turn) -> str:
    """The stage of a gold call the agent made but never got right."""
    if errors[0].startswith("core:missing:"):
        kinds = t.trace.codes.get(gold.name)
        # No failure: its successful calls were another gold call of the same tool; this one it never made.
        return min(kinds, key=STAGES.index) if kinds else "identification"
    carried = any(_carried(e.split(":", 2)[2], gold, t.trace) for e in errors if e.startswith("args:value:"))
    return "chaining" if carried else "tool_use"


def _path_stage(path: list[GoldCall], t: _Turn) -> tuple[str, int]:
    """The stage on this path, and how many of its core calls were right before it went wrong."""
    right = 0
    for k, gold in enumerate(path):
        if gold.role != "core":
            continue
        twins = [g for g in path if g is not gold and g.role == "core" and g.name == gold.name]
        errors = [e for e in t.errors([gold], twins) if not e.startswith("core:extra:")]
        if not errors:
            right += 1
            continue
        if gold.name in t.trace.called:
            return _called_stage(gold, errors, t), right
        steps = (_failed_step(s, t) for s in path[:k] if s.role == "support")
        return next((s for s in steps if s), "search" if gold.name not in t.toolkit else "identification"), right
    # Every core call right on its own: a state-changing call the path does not have made the goal wrong.
    core = {g.name for g in path if g.role == "core"}
    extras = [e.rpartition(":")[2] for e in t.errors(path) if e.startswith("core:extra:")]
    return ("identification" if any(name not in core for name in extras) else "tool_use"), right


def turn_stage(result: EpisodeResult, index: int, goal: Goal, matcher: ArgMatcher) -> str:
    """The stage of a goal core API accuracy judged wrong."""
    if not played(result, index):
        return "not_played"
    t = _Turn(
        goal=goal,
        calls=agent_calls(result, index),
        schemas=schemas(result),
        matcher=matcher,
        toolkit=tools_at(result, index),
        trace=_TurnTrace(result, index),
    )
    # The path the agent was on: the one whose tools it called most, then the one it got furthest along, then
    # the primary (core API accuracy reports its deductions against it).
    ranked = []
    for index, path in enumerate(goal.paths()):
        stage, right = _path_stage(path, t)
        ranked.append((sum(g.name in t.trace.called for g in path), right, -index, stage))
    return max(ranked)[3]


class FailureStage:
    """Per goal: None when right or not scored by core API accuracy, else the stage that went wrong.

    ``value`` is None (a taxonomy, not a rate); the stages are in ``details['stages']`` and as
    ``goal<i>:stage:<stage>`` codes in ``errors``."""

    name = JudgeName.FAILURE_STAGE

    def __init__(self, matcher: ArgMatcher) -> None:
        self.matcher = matcher

    async def score(self, result: EpisodeResult) -> Score:
        if failed(result):
            return unscoreable(result, self.name)
        if (not_applicable := no_world_calls(result, self.name)) is not None:
            return not_applicable
        await self.matcher.prepare(result)  # a judge model's verdicts on value pairs (llm mode), asked once
        stages: list[str | None] = []
        for i, (goal, verdict) in enumerate(zip(result.task.goals, judge_turns(result, self.matcher), strict=True)):
            scored = any(c.role == "core" for c in goal.gold)  # core API accuracy's denominator
            stages.append(turn_stage(result, i, goal, self.matcher) if scored and not verdict.correct else None)
        return score_for(
            result,
            self.name,
            value=None,
            errors=[f"goal{i}:stage:{s}" for i, s in enumerate(stages) if s is not None],
            details={"stages": stages},
        )
