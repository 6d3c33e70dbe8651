"""Tool-level value types: what an agent sees (ToolSpec), asks for (ToolCall) and gets (ToolResult)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sim.core.frozen import FrozenDict, freeze

ToolStatus = Literal[
    "success",
    "invalid_arguments",
    "not_found",
    "unavailable",
    "rate_limited",
    "timeout",
    "unauthorized",
    "failed",
]
"""The closed set of outcomes a tool call can have. Only ``success`` changes or reads state."""


class Frozen(BaseModel):
    """Base for immutable, JSON-serialisable value types."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolSpec(Frozen):
    """One function the agent can call, in OpenAI function format."""

    name: str = Field(description="Function name, unique within a world.")
    description: str = Field(description="Documentation the agent reads.")
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON schema (type object) of the keyword arguments. Deeply frozen (a FrozenDict, lists as "
        "FrozenLists): specs are shared by every episode, so a change is a new spec built from ``thaw(parameters)``.",
    )
    read_only: bool = Field(
        default=False,
        description="True when the call never changes world state (a lookup). Not shown to the agent; "
        "judges use it to tell support lookups from core actions.",
    )

    @field_validator("parameters", mode="after")
    @classmethod
    def _freeze_parameters(cls, value: dict[str, Any]) -> FrozenDict:
        frozen: FrozenDict = freeze(value)
        return frozen

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> ToolSpec:
        """Copies skip validation: keep ``parameters`` frozen in a changed spec too."""
        if update and "parameters" in update:
            update = {**update, "parameters": freeze(update["parameters"])}
        return super().model_copy(update=update, deep=deep)

    def to_openai(self) -> dict[str, Any]:
        """The ``tools=[...]`` entry of an OpenAI Chat Completions request."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


class ToolCall(Frozen):
    """A request by the agent to run one function."""

    id: str = Field(description="Call id, unique within an episode; results refer to it.")
    name: str = Field(description="Function name as the agent wrote it.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments, parsed JSON.")


class ToolResult(Frozen):
    """What the world (after stressors) returned for one call."""

    call_id: str = Field(description="Id of the ToolCall this answers.")
    status: ToolStatus = Field(description="Outcome class.")
    content: Any = Field(default=None, description="JSON payload the agent observes.")
    error_code: str | None = Field(default=None, description="Machine-readable reason when status is not success.")

    @property
    def ok(self) -> bool:
        return self.status == "success"


def failure(call: ToolCall, status: ToolStatus, code: str, message: str) -> ToolResult:
    """A failed result whose payload carries a human-readable message, as real APIs do."""
    return ToolResult(call_id=call.id, status=status, content={"error": message, "code": code}, error_code=code)
