"""Test-only worlds for the world seams: per-task worlds, worlds a model writes responses for, goal tool lists."""

from __future__ import annotations

from typing import Any

from sim.core import (
    ChatMessage,
    LLMHandle,
    ModelRequest,
    Task,
    ToolCall,
    ToolResult,
    ToolSpec,
    World,
    WorldContext,
)
from worlds.domains.smart_home import SmartHomePack

HOME = SmartHomePack()


def with_goal_tools(task: Task) -> Task:
    """The task with every goal's tool list set to what its gold paths call (the rest of the home is missing)."""
    goals = [g.model_copy(update={"tools": sorted({c.name for p in g.paths() for c in p})}) for g in task.goals]
    return task.model_copy(update={"goals": goals})


class Wrapped:
    """A smart-home world seen through a wrapper (the World protocol, delegated)."""

    def __init__(self, inner: World) -> None:
        self.inner = inner
        self.name = inner.name

    def specs(self) -> list[ToolSpec]:
        return self.inner.specs()

    def instructions(self) -> str:
        return self.inner.instructions()

    async def call(self, call: ToolCall) -> ToolResult:
        return await self.inner.call(call)

    def snapshot(self) -> Any:
        return self.inner.snapshot()

    def restore(self, snapshot: Any) -> None:
        self.inner.restore(snapshot)

    def state_hash(self) -> str:
        return self.inner.state_hash()

    def task_state(self) -> dict[str, Any]:
        return self.inner.task_state()  # type: ignore[attr-defined, no-any-return]


class PerTaskWorld(Wrapped):
    """Offers only the tools its task's gold calls, and says which task it was built for."""

    def __init__(self, inner: World, task: Task) -> None:
        super().__init__(inner)
        self.task = task
        self._names = {c.name for g in task.goals for p in g.paths() for c in p}

    def specs(self) -> list[ToolSpec]:
        return [s for s in self.inner.specs() if s.name in self._names]

    def instructions(self) -> str:
        return f"{self.inner.instructions()}\nThis conversation: {self.task.id}."


class PerTaskPack:
    """Builds each world for its task, and refuses to build one without: a caller that still lists the run's tools
    through a task-free world fails here."""

    name = HOME.name

    def __init__(self, tasks: list[Task] | None = None) -> None:
        self._tasks = tasks if tasks is not None else HOME.tasks()
        self.built: list[str] = []

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return HOME.tool_specs()

    def new_world(self, seed: int, context: WorldContext | None = None) -> PerTaskWorld:
        if context is None or context.task is None:
            raise AssertionError("a per-task world needs its task")
        self.built.append(context.task.id)
        return PerTaskWorld(HOME.new_world(seed), context.task)


class NarratedWorld(Wrapped):
    """Asks a model to narrate every call before it runs: a world whose responses a model writes. The request says
    role ``agent`` on purpose: the episode's handle must charge it to the world all the same."""

    def __init__(self, inner: World, llm: LLMHandle | None) -> None:
        super().__init__(inner)
        self.llm = llm

    async def call(self, call: ToolCall) -> ToolResult:
        if self.llm is not None:
            message = ChatMessage(role="user", content=f"Narrate {call.name}.")
            await self.llm.complete(ModelRequest(role="agent", model="narrator", messages=(message,)))
        return await self.inner.call(call)


class NarratedPack:
    name = HOME.name

    def tasks(self) -> list[Task]:
        return HOME.tasks()

    def tool_specs(self) -> list[ToolSpec]:
        return HOME.tool_specs()

    def new_world(self, seed: int, context: WorldContext | None = None) -> NarratedWorld:
        return NarratedWorld(HOME.new_world(seed), context.llm if context is not None else None)
