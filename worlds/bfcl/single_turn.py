"""BFCL's single-turn categories as spec-only squall worlds: ``--world bfcl:simple``, ``bfcl:live_multiple``...

Every entry is a task with its own toolkit and instructions (``worlds.bfcl.single_turn_tasks``); the world an
episode builds offers that entry's functions and answers every call the same neutral way (success,
``{"status": "ok"}``), recording it: BFCL's single-turn checks judge the calls' form (the ``bfcl_ast`` judge), not
any result, so there is nothing to execute and no task state.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sim.core import Task, ToolCall, ToolResult, ToolSpec, WorldContext
from worlds.bfcl.categories import ALIASES, SINGLE_TURN, BfclError
from worlds.bfcl.single_turn_tasks import DECLINE_CATEGORIES, RELEVANCE, entry_instructions, entry_specs, entry_task
from worlds.bfcl.source import answer_file, data_file, read_lines

NEUTRAL: dict[str, Any] = {"status": "ok"}
"""What every call gets back."""


class SingleTurnWorld:
    """One entry's functions; every call succeeds with the same neutral answer and is recorded."""

    def __init__(self, name: str, specs: list[ToolSpec], instructions: str) -> None:
        self.name = name
        self._specs = specs
        self._instructions = instructions
        self.calls: list[dict[str, Any]] = []

    def specs(self) -> list[ToolSpec]:
        return list(self._specs)

    def instructions(self) -> str:
        return self._instructions

    async def call(self, call: ToolCall) -> ToolResult:
        self.calls.append({"name": call.name, "arguments": call.arguments})
        return ToolResult(call_id=call.id, status="success", content=dict(NEUTRAL))

    def snapshot(self) -> list[dict[str, Any]]:
        copied: list[dict[str, Any]] = json.loads(json.dumps(self.calls, default=str))
        return copied

    def restore(self, snapshot: Any) -> None:
        self.calls = list(snapshot or [])

    def state_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.calls, sort_keys=True, default=str).encode()).hexdigest()[:16]


class SingleTurnPack:
    """The entries of one single-turn category; a world per episode built from its task's entry."""

    same_world_every_seed = False  # each task has its own toolkit

    def __init__(self, name: str, category: str) -> None:
        self.name = name
        self.category = category
        entries = read_lines(data_file(category))
        answers: dict[str, dict[str, Any]] = {}
        if category not in DECLINE_CATEGORIES and category != RELEVANCE:
            answers = {str(a["id"]): a for a in read_lines(answer_file(category))}
        self._entries = {str(e["id"]): e for e in entries}
        try:
            self._tasks = [entry_task(e, answers.get(str(e["id"])), name) for e in entries]
            self._specs = {e: entry_specs(entry) for e, entry in self._entries.items()}
        except (KeyError, ValueError) as error:
            raise BfclError(f"{name}: cannot read BFCL's {category} data: {error}") from error

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        """Every entry's functions, one per name (the first entry's, where entries share a name)."""
        seen: dict[str, ToolSpec] = {}
        for specs in self._specs.values():
            for spec in specs:
                seen.setdefault(spec.name, spec)
        return list(seen.values())

    def new_world(self, seed: int, context: WorldContext | None = None) -> SingleTurnWorld:
        task = context.task if context is not None else None
        if task is None or task.id not in self._entries:  # no episode: the whole category's functions
            return SingleTurnWorld(self.name, self.tool_specs(), "")
        entry = self._entries[task.id]
        return SingleTurnWorld(self.name, self._specs[task.id], entry_instructions(entry))


def single_turn_pack(category: str) -> SingleTurnPack:
    """The pack of a single-turn category as the spec writes it (``simple`` too); named ``bfcl:<category>``."""
    canonical = ALIASES.get(category, category)
    if canonical not in SINGLE_TURN:
        raise BfclError(f"bfcl:{category}: not a single-turn BFCL category")
    return SingleTurnPack(f"bfcl:{category}", canonical)
