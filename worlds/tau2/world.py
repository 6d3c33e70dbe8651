"""One episode's τ² world: the domain's agent tools over the episode's copy-on-write database."""

from __future__ import annotations

import copy
from typing import Any

from sim.core import ToolCall, ToolResult, ToolSpec
from worlds.common.toolbook import Toolkit
from worlds.tau2.database import Database, Tables

AGENT_PREAMBLE = (
    "You are a customer service agent. Help the user as the policy below says, and act only through the tools "
    "provided. In each turn either send the user a message or make tool calls, and keep to the policy throughout."
)


def agent_instructions(policy: str) -> str:
    """The agent's system instructions: squall's one-paragraph preamble, then the domain's policy as τ² ships it."""
    return f"{AGENT_PREAMBLE}\n\n<policy>\n{policy.strip()}\n</policy>"


class Tau2World:
    """Deterministic: τ²'s tools read no clock and draw no random numbers (the seed is kept for the protocol)."""

    def __init__(self, name: str, toolkit: Toolkit, base: Tables, instructions: str, seed: int = 0) -> None:
        self.name = name
        self.seed = seed
        self._toolkit = toolkit
        self._instructions = instructions
        self.db = Database(base)

    def specs(self) -> list[ToolSpec]:
        return list(self._toolkit.specs)

    def instructions(self) -> str:
        return self._instructions

    async def call(self, call: ToolCall) -> ToolResult:
        return self.execute(call)

    def execute(self, call: ToolCall) -> ToolResult:
        """The call, run now: what ``call`` answers."""
        return detached(self._toolkit.run(self.db, call))

    def snapshot(self) -> Any:
        return self.db.snapshot()

    def restore(self, snapshot: Any) -> None:
        self.db.restore(snapshot)

    def state_hash(self) -> str:
        return self.db.state_hash()

    def task_state(self) -> dict[str, Any]:
        """The whole database's changes from the pack's base, flat: τ²'s DB check compares whole databases."""
        return self.db.changes()


def detached(result: ToolResult) -> ToolResult:
    """The result with a content of its own: τ²'s lookups answer with the episode's own records, which a later write
    changes in place, and a result must stay what the world said then (in the trace, and in the agent's next
    request)."""
    if isinstance(result.content, dict | list):
        return result.model_copy(update={"content": copy.deepcopy(result.content)})
    return result
