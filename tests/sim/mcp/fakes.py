"""A fake ``AgentRuntime`` for the MCP server's tests: a toolkit that changes like a stressed one, and a record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sim.core import LLMHandle, ToolCall, ToolResult, ToolSpec, failure


def spec(name: str, read_only: bool = False, description: str = "") -> ToolSpec:
    return ToolSpec(
        name=name,
        description=description or f"The {name} function.",
        parameters={"type": "object", "properties": {"x": {"type": "integer"}}},
        read_only=read_only,
    )


@dataclass(eq=False)
class FakeRuntime:
    """Answers ``{"echo": name, "x": x, "owner": label}``; ``rename`` and ``hide_until_called`` change the toolkit
    after a call the way the drift and missing stressors do. Records every call and fault."""

    label: str = "episode"
    tools: tuple[ToolSpec, ...] = field(default_factory=lambda: (spec("lookup", read_only=True), spec("act")))
    rename: dict[str, str] = field(default_factory=dict)
    """After a call to key, the tool named by value replaces it (a drift rename)."""
    reveal_after: dict[str, ToolSpec] = field(default_factory=dict)
    """After a call to key, this tool joins the toolkit (a missing function found by a search)."""
    fail: set[str] = field(default_factory=set)
    raise_on: set[str] = field(default_factory=set)
    turn: int = 0
    instructions: str = "Help the user."
    seed: int = 0
    calls: list[tuple[ToolCall, int]] = field(default_factory=list)
    faults: list[tuple[str, str, str, int]] = field(default_factory=list)

    @property
    def llm(self) -> LLMHandle:
        raise AssertionError("an outside agent never reaches squall's gateway")

    def current_tools(self) -> tuple[ToolSpec, ...]:
        return self.tools

    async def call(self, call: ToolCall, step: int) -> ToolResult:
        self.calls.append((call, step))
        if call.name in self.raise_on:
            raise RuntimeError(f"world crashed on {call.name} (secret harness detail)")
        if call.name not in {t.name for t in self.tools}:
            return failure(call, "not_found", "unknown_tool", f"Unknown function '{call.name}'.")
        if call.name in self.fail:
            return failure(call, "unavailable", "outage", "Service unavailable, try later.")
        if call.name in self.rename:
            new = self.rename.pop(call.name)
            self.tools = tuple(spec(new) if t.name == call.name else t for t in self.tools)
        if call.name in self.reveal_after:
            self.tools = (*self.tools, self.reveal_after.pop(call.name))
        content: Any = {"echo": call.name, "x": call.arguments.get("x"), "owner": self.label}
        return ToolResult(call_id=f"call_{self.turn}_{len(self.calls)}", status="success", content=content)

    def fault(self, fault: str, code: str, detail: str, step: int = 0) -> None:
        self.faults.append((fault, code, detail, step))
