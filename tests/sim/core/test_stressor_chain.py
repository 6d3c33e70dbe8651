"""The stressor layers: a frozen context goes down, a frozen outcome comes up, and nothing is written in between."""

from __future__ import annotations

import dataclasses

import pytest

from sim.core import (
    CallContext,
    CallNext,
    CallOutcome,
    LastStop,
    Task,
    ToolCall,
    ToolResult,
    ToolSpec,
    through_stressors,
)


class Layer:
    """A test stressor: ``mode`` says how it acts; it records the context it was handed."""

    def __init__(self, name: str, mode: str) -> None:
        self.name = name
        self.mode = mode
        self.seen: list[CallContext] = []

    def on_task(self, task: Task) -> Task:
        return task

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        return specs, instructions

    def on_tools(self, goal: int, specs: list[ToolSpec]) -> list[ToolSpec]:
        return specs

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        self.seen.append(ctx)
        if self.mode == "pass":
            return await next(call)
        if self.mode == "rename":  # acts, then passes a rewritten call on
            return await next(call.model_copy(update={"name": "real"}), fired=self.name)
        if self.mode == "answer":
            return CallOutcome.answered(ToolResult(call_id=call.id, status="success", content="mine"), self.name)
        outcome = await next(call)  # "decorate": changes what came back
        return outcome.replaced(outcome.result.model_copy(update={"content": "decorated"}), self.name)


def stop_at_world(reached: list[ToolCall]) -> LastStop:
    async def stop(call: ToolCall) -> CallOutcome:
        reached.append(call)
        return CallOutcome.from_world(call, ToolResult(call_id=call.id, status="success", content="world"))

    return stop


CTX = CallContext(turn=2, goal=1, call_index=7)
CALL = ToolCall(id="c", name="asked")


async def test_fired_keeps_the_order_the_layers_acted_in() -> None:
    """An outer layer that acts before passing on leads; one that changes the answer on the way back follows the
    layers inside it (the order the shared list had before outcomes were values)."""
    decorate, rename, inner = Layer("decorate", "decorate"), Layer("rename", "rename"), Layer("inner", "decorate")
    reached: list[ToolCall] = []
    outcome = await through_stressors([decorate, rename, inner], CALL, CTX, stop_at_world(reached))
    assert outcome.fired == ("rename", "inner", "decorate")
    assert outcome.result.content == "decorated"
    assert reached == [CALL.model_copy(update={"name": "real"})] == [outcome.world_call]
    assert outcome.world_result is not None and outcome.world_result.content == "world"


async def test_inner_layers_see_who_acted_outside_them() -> None:
    rename, passing, last = Layer("rename", "rename"), Layer("pass", "pass"), Layer("last", "pass")
    await through_stressors([rename, passing, last], CALL, CTX, stop_at_world([]))
    assert rename.seen == [CTX]
    assert passing.seen == [dataclasses.replace(CTX, outer_fired=("rename",))]
    assert last.seen == passing.seen  # passing it on untouched adds nobody
    assert CTX.outer_fired == ()  # the caller's context is not changed


async def test_an_answer_stops_the_call_and_reports_no_world() -> None:
    reached: list[ToolCall] = []
    answer, below = Layer("answer", "answer"), Layer("below", "pass")
    outcome = await through_stressors([answer, below], CALL, CTX, stop_at_world(reached))
    assert outcome == CallOutcome(result=ToolResult(call_id="c", status="success", content="mine"), fired=("answer",))
    assert reached == [] and below.seen == []


async def test_a_refusal_at_the_last_stop_survives_a_changed_answer() -> None:
    async def refuse(call: ToolCall) -> CallOutcome:
        return CallOutcome(result=ToolResult(call_id=call.id, status="not_found"), unknown_tool=True)

    outcome = await through_stressors([Layer("decorate", "decorate")], CALL, CTX, refuse)
    assert outcome.unknown_tool and outcome.fired == ("decorate",) and outcome.world_call is None


def test_context_and_outcome_are_frozen() -> None:
    outcome = CallOutcome.answered(ToolResult(call_id="c", status="success"), "x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        CTX.goal = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.fired = ()
    assert isinstance(outcome.fired, tuple) and isinstance(CTX.outer_fired, tuple)
