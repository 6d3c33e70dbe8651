"""What judges read of a trace, per goal (the agent's own events and successful calls, its repeated calls), and the
one way every judge labels its verdict.

While a run's judges judge an episode (``judges.common.episode_memo.judging``), each view is computed once for all of
them;
the lists and sets given back are then shared: read them, never change them."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from judges.common.episode_memo import current, memo, open_values
from judges.common.score_build import build_score
from judges.common.shared_views import of_object, of_toolkit
from sim.core import EpisodeResult, Event, Goal, GoldCall, Score, ToolCall, ToolSpec
from sim.core.agent_kinds import calls_world_functions
from sim.core.task import GOLD_ARGUMENTS_UNKNOWN

CallKey = tuple[str, str, bool]
"""(function, arguments as canonical JSON, succeeded)."""
_CANONICAL = json.JSONEncoder(sort_keys=True, default=str)
"""``json.dumps(value, sort_keys=True, default=str)``, without building an encoder per call."""


def score_for(result: EpisodeResult, judge: str, **fields: Any) -> Score:
    """A judge's Score for ``result``: the episode's ids, the judge's name, and ``fields`` (labelled with the score
    set while a run judges it: the same Score as labelling it after, without a copy per judge)."""
    if (open_memo := current(result)) is not None and "judge_config" not in fields:
        fields["judge_config"] = open_memo.score_set
    fields.update(episode_id=result.episode_id, task_id=result.task_id, trial=result.trial, judge=judge)
    return build_score(fields)


def unscoreable(result: EpisodeResult, judge: str) -> Score:
    """The verdict on a failed episode: no value, the termination as the reason."""
    return score_for(result, judge, value=None, errors=[result.unscored_reason or f"episode:{result.termination}"])


NO_WORLD_CALLS = "agent:no_world_calls"
"""An agent that calls no world function (``sql:``, which writes SQL): judges of calls say n/a, never 0."""


def no_world_calls(result: EpisodeResult, judge: str) -> Score | None:
    """The n/a verdict of a judge of calls on an episode whose agent calls no world function; None: it does."""
    if calls_world_functions(result.agent):
        return None
    return score_for(result, judge, value=None, per_goal=[None] * len(result.task.goals), errors=[NO_WORLD_CALLS])


NO_EXECUTABLE_GOLD = "gold:no_arguments"
"""A goal whose gold cannot be executed or matched on arguments (a core call without the arguments its tool
requires: ToolBench queries name the APIs only); judges of calls and their slots say n/a for it, never 0."""


def goals_without_executable_gold(result: EpisodeResult) -> frozenset[int]:
    """The goals with a core gold call (on their primary path) that has no arguments while its tool requires some
    (its schema as shown; for a tool not shown, the task's ``gold-arguments-unknown`` tag decides)."""
    return memo(result, "no_executable_gold", lambda: _without_gold(result))


def _without_gold(result: EpisodeResult) -> frozenset[int]:
    tool_schemas = schemas(result)
    unknown = GOLD_ARGUMENTS_UNKNOWN in result.task.tags

    def lacks(call: GoldCall) -> bool:
        if call.arguments or call.role != "core":
            return False
        schema = tool_schemas.get(call.name)
        return unknown if schema is None else bool(schema.get("required"))

    return frozenset(g for g, goal in enumerate(result.task.goals) if any(lacks(c) for c in goal.gold))


def failed(result: EpisodeResult) -> bool:
    """``result.failed``, read once per episode judged (it scans the events)."""
    return memo(result, "failed", lambda: result.failed)


def played(result: EpisodeResult, goal: int) -> bool:
    """``result.played(goal)``: while an episode is judged, from one scan of its events for every goal (a scan per
    goal otherwise)."""
    if current(result) is None:
        return result.played(goal)
    if result.goals_played is None:  # traces from before goals: one goal per turn
        return goal < result.turns_played
    return goal < result.goals_played and goal in memo(result, "played", lambda: _goals_messaged(result))


def _goals_messaged(result: EpisodeResult) -> set[int]:
    """The goals with a user message of their own: ``EpisodeResult.played``'s scan, for every goal at once."""
    return {ev.goal_index for ev in result.events if ev.kind == "user_message" and not ev.replayed}


def tools_at(result: EpisodeResult, goal: int) -> set[str]:
    """``result.tools_at(goal)``, built once per episode judged (once per goal whose toolkit differed); where the
    goal's toolkit did not differ, every tool's name, once per toolkit (``judges.common.shared_views``)."""
    if goal in result.goal_tools:
        return memo(result, ("tools_at", goal), lambda: result.tools_at(goal))
    return _toolkit(result).names


def schemas(result: EpisodeResult) -> dict[str, dict[str, Any]]:
    """Each tool's parameter schema, by name, as the agent was shown it."""
    return _toolkit(result).schemas


def specs(result: EpisodeResult) -> dict[str, ToolSpec]:
    """Each tool's spec, by name, as the agent was shown it."""
    return _toolkit(result).specs


class _Toolkit:
    """The tables of one toolkit, by tool name."""

    __slots__ = ("names", "schemas", "specs")

    def __init__(self, tools: list[ToolSpec]) -> None:
        self.specs = {s.name: s for s in tools}
        self.schemas = {s.name: s.parameters for s in tools}
        self.names = {s.name for s in tools}


def _toolkit(result: EpisodeResult) -> _Toolkit:
    """The episode's toolkit tables: looked up once per episode judged, built once per toolkit."""
    return memo(result, "toolkit", lambda: of_toolkit(result.tools, "tables", lambda: _Toolkit(result.tools)))


def goal_paths(goal: Goal) -> list[list[GoldCall]]:
    """``goal.paths()``, once per goal object (``judges.common.shared_views``)."""
    return of_object(goal, "paths", goal.paths)


def arguments_json(call: ToolCall) -> str:
    """The call's arguments as canonical JSON (sorted keys): what tells two calls apart."""
    values = open_values()
    if values is None:
        return _CANONICAL.encode(call.arguments)
    key = ("arguments_json", id(call))
    if (kept := values.get(key)) is not None:
        return str(kept[1])
    text = _CANONICAL.encode(call.arguments)
    values[key] = (call, text)  # the call kept with its text: its id cannot be reused while the memo lives
    return text


def call_repeats(events: list[Event]) -> Counter[CallKey]:
    """How often each (function, arguments, outcome) came back among ``events`` (a loop shows as a high count)."""
    return Counter(
        (ev.call.name, arguments_json(ev.call), ev.result.ok)
        for ev in events
        if ev.kind == "tool_result" and ev.call and ev.result
    )


def repeated_outcomes(events: list[Event], times: int) -> set[bool]:
    """The outcomes (succeeded or not) of the calls among ``events`` that came back ``times`` times or more with the
    same function, arguments and outcome (``call_repeats``); the arguments are read only where a function came back
    that often with one outcome at all."""
    by_function: dict[tuple[str, bool], int] = {}  # a plain dict: a Counter costs more than this whole count
    for ev in events:
        if ev.kind == "tool_result" and ev.call and ev.result:
            key = (ev.call.name, ev.result.ok)
            by_function[key] = by_function.get(key, 0) + 1
    if max(by_function.values(), default=0) < times:
        return set()
    return {ok for (_, _, ok), n in call_repeats(events).items() if n >= times}


def agent_events(result: EpisodeResult, goal: int) -> list[Event]:
    """The goal's events (every conversation turn spent on it) that are the agent's own and the user's; replayed
    gold of the isolated setup is not among them."""
    if current(result) is None:
        return [ev for ev in result.events if ev.goal_index == goal and not ev.replayed]
    return memo(result, "agent_events", lambda: _events_by_goal(result)).get(goal, [])


def _events_by_goal(result: EpisodeResult) -> dict[int, list[Event]]:
    """Every goal's ``agent_events``, in one pass."""
    by_goal: dict[int, list[Event]] = {}
    for ev in result.events:
        if not ev.replayed:
            by_goal.setdefault(ev.goal_index, []).append(ev)
    return by_goal


def agent_calls(result: EpisodeResult, goal: int) -> list[tuple[ToolCall, bool]]:
    """(call, read_only) for each call of ``goal`` that the world executed successfully for the agent.

    Replayed gold (isolated setup) is not the agent's: it is skipped, never credited. A call made on a value the
    user then took back (a change of mind) is superseded: the corrected request is what the agent is scored on."""
    return memo(result, ("agent_calls", goal), lambda: _agent_calls(result, goal))


def _agent_calls(result: EpisodeResult, goal: int) -> list[tuple[ToolCall, bool]]:
    events = agent_events(result, goal)
    read_only = {ev.call.id: bool(ev.read_only) for ev in events if ev.kind == "tool_call" and ev.call}
    dropped = goal_superseded(result, goal)
    return [
        (ev.call, read_only.get(ev.call.id, False))
        for ev in events
        if ev.kind == "tool_result" and ev.call and ev.result and ev.result.ok and ev.call.id not in dropped
    ]


def goal_superseded(result: EpisodeResult, goal: int) -> set[str]:
    """``superseded_calls`` of the goal's ``agent_events``."""
    return memo(result, ("superseded", goal), lambda: superseded_calls(agent_events(result, goal)))


def superseded_calls(events: list[Event]) -> set[str]:
    """Ids of calls made before a change-of-mind message that use a value it replaced."""
    dropped: set[str] = set()
    before: list[ToolCall] = []
    for ev in events:
        if ev.kind == "tool_call" and ev.call is not None:
            before.append(ev.call)
        elif ev.kind == "user_message" and ev.user_act is not None and ev.user_act.kind == "change_mind":
            for call in before:
                if any(same_value(call.arguments.get(p), old) for p, old in ev.user_act.changed.items()):
                    dropped.add(call.id)
    return dropped


def same_value(value: Any, said: str) -> bool:
    """Whether an argument value is the value a user said (numbers by value, text case-blind)."""
    if value is None:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return float(said) == float(value)
        except ValueError:
            return False
    return str(value).strip().casefold() == said.strip().casefold()


def user_acts_missing(result: EpisodeResult, goal: int) -> list[str]:
    """Dual control: the goal's gold user acts (``Goal.user_gold``) the user never did in that goal, by its own tool
    calls (``user_tool_call`` events: never the agent's, which judges of calls read apart)."""
    done = [
        (ev.call.name, _CANONICAL.encode(ev.call.arguments))
        for ev in result.events
        if ev.kind == "user_tool_call" and ev.call is not None and ev.goal_index == goal
    ]
    wanted = result.task.goals[goal].user_gold
    return [u.name for u in wanted if (u.name, _CANONICAL.encode(u.arguments)) not in done]
