"""Small episodes, scores and summaries built by hand for store and metrics tests."""

from __future__ import annotations

import errno
import os
from typing import Any

from judges.run.metrics import EpisodeOutline, summarize
from sim.core import (
    EpisodeResult,
    Event,
    Goal,
    GoldCall,
    Score,
    Task,
    TerminationReason,
    ToolCall,
    ToolResult,
    ToolSpec,
    UserIntent,
)


def result(i: int) -> EpisodeResult:
    task = Task(id=f"t{i}", world="w", goals=[Goal(user=UserIntent(explicit="hi"), gold=[GoldCall(name="f")])])
    return EpisodeResult(
        episode_id=f"t{i}#0", task_id=f"t{i}", trial=0, seed=i, world="w", agent="a", user="u", task=task, tools=[]
    )


def with_toolkit(i: int, size: int) -> EpisodeResult:
    """``result(i)`` shown the tools f0 .. f<size - 1>: episodes with toolkits of their own or shared."""
    tools = [ToolSpec(name=f"f{n}", description=f"function {n}") for n in range(size)]
    return result(i).model_copy(update={"tools": tools})


def disk_full(fd: int, data: bytes) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


SOLVE = Goal(user=UserIntent(explicit="x"), gold=[])


DECLINE = Goal(user=UserIntent(explicit="y"), gold=[], outcome="decline")


def result_event(turn: int, status: str, replayed: bool = False) -> Event:
    call = ToolCall(id=f"c{turn}", name="set_power")
    return Event(
        kind="tool_result", turn=turn, call=call, result=ToolResult(call_id=call.id, status=status), replayed=replayed
    )


def ep(
    task: str,
    trial: int,
    turns: list[Goal],
    events: list[Event] | None = None,
    termination: TerminationReason = "completed",
) -> EpisodeResult:
    return EpisodeResult(
        episode_id=f"{task}#{trial}",
        task_id=task,
        trial=trial,
        seed=0,
        world="w",
        agent="a",
        user="u",
        task=Task(id=task, world="w", goals=turns),
        tools=[],
        events=events or [],
        termination=termination,
    )


def score(e: EpisodeResult, judge: str, value: float | None, **fields: Any) -> Score:
    return Score(episode_id=e.episode_id, task_id=e.task_id, trial=e.trial, judge=judge, value=value, **fields)


def both(episodes: list[EpisodeResult], scores: list[Score]) -> dict[str, Any]:
    """The summary from full episodes; asserts the stored outlines give the same."""
    summary = summarize(episodes, scores)
    outlines = [EpisodeOutline.model_validate_json(e.model_dump_json()) for e in episodes]
    assert summarize(outlines, scores) == summary
    return summary
