"""External failure: the first solution function the agent calls goes down for the rest of the episode.

Only a function the task can live without is taken down: in every turn whose primary path uses it as a
core call, it must be that path's first core call, and an alternative path must avoid it. So the outage
is always survivable, and the agent is scored on finding the backup plan.
"""

from __future__ import annotations

from sim.core import CallContext, CallNext, GoldCall, Task, ToolCall, ToolResult, ToolSpec, failure


class Outage:
    """Takes down one function (chosen at its first call) for the rest of the episode."""

    name = "outage"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.eligible: frozenset[str] = frozenset()
        self.down: str | None = None

    def on_task(self, task: Task) -> Task:
        self.eligible = frozenset(_survivable_functions(task))
        return task

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        return specs, instructions

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> ToolResult:
        if self.down is None and call.name in self.eligible:
            self.down = call.name
        if call.name == self.down:
            ctx.fired.append(self.name)
            return failure(
                call,
                "unavailable",
                "service_unavailable",
                f"503 Service Unavailable: {call.name} is temporarily down. Try again later.",
            )
        return await next(call)


def _survivable_functions(task: Task) -> set[str]:
    """Core functions of the task whose loss leaves every turn that needs them another path."""
    candidates = {c.name for turn in task.turns for c in turn.gold if c.role == "core"}
    survivable = set()
    for name in candidates:
        if all(_turn_survives(turn.paths(), name) for turn in task.turns):
            survivable.add(name)
    return survivable


def _turn_survives(paths: list[list[GoldCall]], name: str) -> bool:
    """The turn does not need ``name``, or can do without it and loses nothing by trying it first.

    Where the primary path uses it, it must be that path's first core call: otherwise an agent on the
    primary path would already have made core calls the backup path does not share.
    """
    primary_core = [c.name for c in paths[0] if c.role == "core"]
    if name not in primary_core:
        return True
    others_avoid = any(all(c.name != name for c in path) for path in paths[1:])
    return others_avoid and primary_core[0] == name
