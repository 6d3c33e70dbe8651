"""What judges read of a trace, per turn: the agent's own successful calls, its faults, its reply."""

from __future__ import annotations

from sim.core import EpisodeResult, Event, ToolCall


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
