"""What judges read of a trace, per goal (the agent's own events and successful calls, its repeated calls), and the
one way every judge labels its verdict."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from sim.core import EpisodeResult, Event, Score, ToolCall

CallKey = tuple[str, str, bool]
"""(function, arguments as canonical JSON, succeeded)."""


def score_for(result: EpisodeResult, judge: str, **fields: Any) -> Score:
    """A judge's Score for ``result``: the episode's ids, the judge's name, and ``fields``."""
    return Score(episode_id=result.episode_id, task_id=result.task_id, trial=result.trial, judge=judge, **fields)


def unscoreable(result: EpisodeResult, judge: str) -> Score:
    """The verdict on a failed episode: no value, the termination as the reason."""
    return score_for(result, judge, value=None, errors=[result.world_fault or f"episode:{result.termination}"])


def call_repeats(events: list[Event]) -> Counter[CallKey]:
    """How often each (function, arguments, outcome) came back among ``events`` (a loop shows as a high count)."""
    return Counter(
        (ev.call.name, json.dumps(ev.call.arguments, sort_keys=True, default=str), ev.result.ok)
        for ev in events
        if ev.kind == "tool_result" and ev.call and ev.result
    )


def agent_events(result: EpisodeResult, goal: int) -> list[Event]:
    """The goal's events (every conversation turn spent on it) that are the agent's own and the user's; replayed
    gold of the isolated setup is not among them."""
    return [ev for ev in result.events if ev.goal_index == goal and not ev.replayed]


def agent_calls(result: EpisodeResult, goal: int) -> list[tuple[ToolCall, bool]]:
    """(call, read_only) for each call of ``goal`` that the world executed successfully for the agent.

    Replayed gold (isolated setup) is not the agent's: it is skipped, never credited. A call made on a value the
    user then took back (a change of mind) is superseded: the corrected request is what the agent is scored on."""
    events = agent_events(result, goal)
    read_only = {ev.call.id: bool(ev.read_only) for ev in events if ev.kind == "tool_call" and ev.call}
    dropped = superseded_calls(events)
    return [
        (ev.call, read_only.get(ev.call.id, False))
        for ev in events
        if ev.kind == "tool_result" and ev.call and ev.result and ev.result.ok and ev.call.id not in dropped
    ]


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
