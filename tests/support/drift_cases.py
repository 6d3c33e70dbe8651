"""Shared by the drift tests: each drift row's first real use in a world's shipped conversations.

A case is a (world, row) pair with the first gold call the row rewrites in that world's conversations (for an auto
row, after its pick for that task), the gold calls before it (replayed first, so ids are looked up) and its turn.
Calls go through the stressor straight to a fresh world, so a test sees what reached the world.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from sim.core import CallContext, CallOutcome, GoldCall, Task, ToolCall, ToolResult, World, WorldPack, through_stressors
from worlds.registry import BUILTIN_WORLDS, load_world
from worlds.stressors.catalog import builtin_scenarios, stressor_class
from worlds.stressors.scenario import Scenario
from worlds.stressors.types.drift import SchemaDrift

WORLDS = ("multidomain", "smart_home")
ROWS = tuple(s for s in builtin_scenarios() if s.type == "drift")
NAMED = tuple(s for s in ROWS if "*" not in s.tools)
AUTO = tuple(s for s in ROWS if "*" in s.tools)


@cache
def tasks(world: str) -> tuple[Task, ...]:
    return tuple(load_world(world).tasks())


@cache
def pack(world: str) -> WorldPack:
    """The world's data with no tasks, loaded once: worlds are built from it per test."""
    return BUILTIN_WORLDS[world]([])


def fresh(world: str) -> World:
    return pack(world).new_world(0)


def row(name: str) -> Scenario:
    return next(s for s in ROWS if s.name == name)


def build(s: Scenario, overrides: dict[str, Any] | None = None) -> SchemaDrift:
    stressor = stressor_class(s.type)(s, 0, overrides)
    assert isinstance(stressor, SchemaDrift)
    return stressor


def tool_call(gold: GoldCall, i: int = 0) -> ToolCall:
    return ToolCall(id=f"c{i}", name=gold.name, arguments=dict(gold.arguments))


@dataclass(frozen=True)
class Case:
    world: str
    scenario: Scenario
    task: Task
    prefix: tuple[GoldCall, ...]
    old: GoldCall
    new: GoldCall
    turn: int

    def stressor(self, overrides: dict[str, Any] | None = None) -> SchemaDrift:
        """The row's stressor set up for this case's task (an auto row picks its tool in on_task)."""
        stressor = build(self.scenario, overrides)
        stressor.on_task(self.task)
        return stressor

    @property
    def op(self) -> str:
        return str(self.stressor().op)


@cache
def case(world: str, name: str) -> Case | None:
    """The first gold call of the world's conversations that the row rewrites, or None."""
    s = row(name)
    for task in tasks(world):
        stressed = build(s).on_task(task)
        for t, (turn, new_turn) in enumerate(zip(task.goals, stressed.goals, strict=True)):
            for path, new_path in zip(turn.paths(), new_turn.paths(), strict=True):
                for i, (old, new) in enumerate(zip(path, new_path, strict=True)):
                    if old != new:
                        prefix = tuple(c for earlier in task.goals[:t] for c in earlier.gold) + tuple(path[:i])
                        return Case(world, s, task, prefix, old, new, t)
    return None


def cases() -> list[Case]:
    """Every (world, row) pair with a real use, multidomain first."""
    return [c for w in WORLDS for s in ROWS if (c := case(w, s.name)) is not None]


async def prepared(world: str, prefix: tuple[GoldCall, ...]) -> World:
    """A fresh world with the earlier gold replayed directly (no stressor)."""
    w = fresh(world)
    for i, gold in enumerate(prefix):
        result = await w.call(tool_call(gold, i))
        assert result.ok, (gold, result)
    return w


async def send(
    stressor: SchemaDrift, world: World, call: ToolCall, turn: int
) -> tuple[ToolResult, list[str], list[ToolCall]]:
    """(what the agent observes, the scenarios that fired, the calls that reached the world)."""
    reached: list[ToolCall] = []

    async def to_world(c: ToolCall) -> CallOutcome:
        reached.append(c)
        return CallOutcome.from_world(c, await world.call(c))

    outcome = await through_stressors([stressor], call, CallContext(turn=turn, goal=turn, call_index=0), to_world)
    return outcome.result, list(outcome.fired), reached
