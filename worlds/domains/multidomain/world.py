"""The multi-domain world as a ``World``: one per episode, a thin shell over its ``WorldState``."""

from __future__ import annotations

from typing import Any

from sim.core import ToolCall, ToolResult, ToolSpec
from worlds.common.tables import BaseData
from worlds.common.toolbook import Toolkit
from worlds.domains.multidomain.state import WorldState, apply_table_edit

WORLD_NAME = "multidomain"


class MultiDomainWorld:
    name: str = WORLD_NAME

    def __init__(self, base: BaseData, now: str, toolkit: Toolkit, instructions: str, seed: int = 0) -> None:
        self.seed = seed  # nothing here is random; kept so episodes can report it
        self._state = WorldState(base, now)
        self._toolkit = toolkit
        self._instructions = instructions

    def specs(self) -> list[ToolSpec]:
        return list(self._toolkit.specs)

    def instructions(self) -> str:
        return self._instructions

    async def call(self, call: ToolCall) -> ToolResult:
        """Never raises on bad input: every mistake becomes a failed ToolResult the agent can read."""
        return self._toolkit.run(self._state, call)

    def snapshot(self) -> dict[str, Any]:
        return self._state.snapshot()

    def restore(self, snapshot: Any) -> None:
        self._state.restore(snapshot)

    def state_hash(self) -> str:
        return self._state.state_hash()

    def task_state(self) -> dict[str, Any]:
        return self._state.task_state()

    def apply_change(self, edit: dict[str, Any]) -> None:
        """A timed world event (``sim.core.ChangeableWorld``): ``{"table", "key"}`` with ``"set"`` (fields of the row
        that change), ``"row"`` (a new row) or ``"delete": true``."""
        apply_table_edit(self._state, edit)

    @property
    def state(self) -> WorldState:
        """The live state, for tests, the composer and judges' replay checks; agents only see tool results."""
        return self._state
