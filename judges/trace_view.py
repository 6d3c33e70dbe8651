"""What judges read of a trace, per turn (the agent's own events and successful calls, its repeated calls), and the
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
    return score_for(result, judge, value=None, errors=[f"episode:{result.termination}"])


def call_repeats(events: list[Event]) -> Counter[CallKey]:
    """How often each (function, arguments, outcome) came back among ``events`` (a loop shows as a high count)."""
    return Counter(
        (ev.call.name, json.dumps(ev.call.arguments, sort_keys=True, default=str), ev.result.ok)
        for ev in events
        if ev.kind == "tool_result" and ev.call and ev.result
    )


def agent_events(result: EpisodeResult, turn: int) -> list[Event]:
    """The turn's events that are the agent's own (replayed gold of the isolated setup is not)."""
    return [ev for ev in result.events if ev.turn == turn and not ev.replayed]


def agent_calls(result: EpisodeResult, turn: int) -> list[tuple[ToolCall, bool]]:
    """(call, read_only) for each call of ``turn`` that the world executed successfully for the agent.

    Replayed gold (isolated setup) is not the agent's: it is skipped, never credited."""
    events = agent_events(result, turn)
    read_only = {ev.call.id: bool(ev.read_only) for ev in events if ev.kind == "tool_call" and ev.call}
    return [
        (ev.call, read_only.get(ev.call.id, False))
        for ev in events
        if ev.kind == "tool_result" and ev.call and ev.result and ev.result.ok
    ]
