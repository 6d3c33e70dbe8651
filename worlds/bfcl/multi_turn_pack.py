"""BFCL's multi-turn categories as one squall pack: entries and backends loaded once, a world per episode.

``new_world(seed, WorldContext(task=...))`` builds the entry's instances from its initial state; without a task (tool
listings, tests) it builds every class from BFCL's defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sim.core import Task, ToolSpec, WorldContext
from worlds.bfcl.multi_turn_entries import Backends, Entry, load_backends, load_entries
from worlds.bfcl.multi_turn_tasks import build_task
from worlds.bfcl.multi_turn_world import BfclWorld
from worlds.bfcl.source import additional_function_prompt


class MultiTurnPack:
    """The entries of one or more multi-turn categories; task id = BFCL entry id, task.world = the pack's name."""

    def __init__(self, name: str, categories: Sequence[str]) -> None:
        """Raises BfclError (a ValueError) when bfcl-eval is absent or its files are not what squall expects."""
        self.name = name
        self.backends: Backends = load_backends()
        self._entries: dict[str, Entry] = {e.id: e for c in categories for e in load_entries(c)}
        prompt = additional_function_prompt()
        self._tasks = tuple(build_task(name, e, self.backends, prompt) for e in self._entries.values())
        self._bases: dict[str | None, Mapping[str, Any]] = {}
        """Entry id (None: no task) -> its initial public state, computed by the first world built for it."""

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return [spec for specs in self.backends.specs.values() for spec in specs]

    def tool_domains(self) -> dict[str, str]:
        """Tool -> the BFCL backend class it belongs to (``squall worlds show``)."""
        return dict(self.backends.owner)

    def entry(self, task_id: str) -> Entry | None:
        return self._entries.get(task_id)

    def new_world(self, seed: int, context: WorldContext | None = None) -> BfclWorld:
        task = context.task if context is not None else None
        entry = self._entries.get(task.id) if task is not None else None
        key = entry.id if entry is not None else None
        world = BfclWorld(self.name, self.backends, entry, seed=seed, base=self._bases.get(key))
        self._bases.setdefault(key, world.base)
        return world


def multi_turn_pack(name: str, categories: tuple[str, ...]) -> MultiTurnPack:
    return MultiTurnPack(name, categories)
