"""Test helper: hand-built episode records for judge tests."""

from __future__ import annotations

from typing import Any

from sim.core import (
    EpisodeResult,
    Event,
    Goal,
    GoldCall,
    Task,
    TerminationReason,
    ToolCall,
    ToolResult,
    ToolSpec,
    ToolStatus,
    UserIntent,
)

AgentCall = tuple[str, dict[str, Any], ToolStatus]


def turn(gold: list[GoldCall], alternatives: list[list[GoldCall]] | None = None) -> Goal:
    return Goal(user=UserIntent(explicit="x"), gold=gold, alternatives=alternatives or [])


def episode(
    turns: list[Goal],
    calls: list[list[AgentCall]],
    tools: list[ToolSpec],
    played: int | None = None,
    termination: TerminationReason = "completed",
) -> EpisodeResult:
    """An episode whose agent made ``calls[i]`` (name, arguments, result status) in turn i."""
    read_only = {s.name for s in tools if s.read_only}
    events: list[Event] = []
    for i, turn_calls in enumerate(calls):
        events.append(Event(kind="user_message", turn=i, content="x"))
        for j, (name, args, status) in enumerate(turn_calls):
            call = ToolCall(id=f"c{i}_{j}", name=name, arguments=args)
            events.append(Event(kind="tool_call", turn=i, call=call, read_only=name in read_only))
            events.append(
                Event(kind="tool_result", turn=i, call=call, result=ToolResult(call_id=call.id, status=status))
            )
    return result(turns, events, tools, len(calls) if played is None else played, termination)


def result(
    turns: list[Goal],
    events: list[Event],
    tools: list[ToolSpec] | None = None,
    played: int | None = None,
    termination: TerminationReason = "completed",
) -> EpisodeResult:
    """Episode ``t#0`` of a task with ``turns``, whose trace is ``events`` (all turns played by default)."""
    return EpisodeResult(
        episode_id="t#0",
        task_id="t",
        trial=0,
        seed=0,
        world="w",
        agent="a",
        user="u",
        task=Task(id="t", world="w", goals=turns),
        tools=tools or [],
        events=events,
        turns_played=len(turns) if played is None else played,
        termination=termination,
    )
