"""Agent under test with native tool calling, through pydantic-ai (any model string it accepts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai import Agent as PydanticAgent
from pydantic_ai import capture_run_messages
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolReturnPart
from pydantic_ai.models import Model
from pydantic_ai.tools import RunContext, ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
from pydantic_ai.usage import UsageLimits
from pydantic_core import SchemaValidator, core_schema

from sim.agents.history import to_model_messages
from sim.core import AgentRuntime, Event, ToolCall, ToolSpec
from sim.llm.models import GatewayModel, settings

# Any JSON object passes through untouched: validating it is the world's job, and its errors are the signal.
# A non-object (e.g. "null") goes back to the model as a retry and is recorded as an agent fault.
_ANY_ARGS = SchemaValidator(core_schema.dict_schema())


class RuntimeToolset(AbstractToolset[Any]):
    """Exposes the world's specs to pydantic-ai; every call goes through the episode runtime."""

    def __init__(self, specs: Sequence[ToolSpec], runtime: AgentRuntime, max_retries: int) -> None:
        self._defs = [
            ToolDefinition(name=s.name, description=s.description, parameters_json_schema=s.parameters, strict=False)
            for s in specs
        ]
        self._runtime = runtime
        self._max_retries = max_retries

    @property
    def id(self) -> str:
        return "squall-world"

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        return {
            d.name: ToolsetTool(toolset=self, tool_def=d, max_retries=self._max_retries, args_validator=_ANY_ARGS)
            for d in self._defs
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        step = self._runtime.llm.steps
        result = await self._runtime.call(ToolCall(id="", name=name, arguments=tool_args), step=step)
        # Failures go back as payloads (not ToolFailed) so live runs and rebuilt histories look alike.
        return result.content


class NativeToolAgent:
    """One pydantic-ai run per user turn over a history rebuilt from the episode's events."""

    def __init__(
        self,
        name: str,
        model: Model,
        endpoint: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> None:
        self.name = name
        self._model = model
        self._endpoint = endpoint
        self._settings = settings(max_tokens, temperature)

    async def respond(
        self, history: Sequence[Event], tools: Sequence[ToolSpec], instructions: str, runtime: AgentRuntime
    ) -> str:
        model = GatewayModel(self._model, self._endpoint, runtime.llm)
        agent = PydanticAgent(model, instructions=instructions or None, output_type=str)
        toolset = RuntimeToolset(tools, runtime, max_retries=1_000)  # the per-turn step limit governs instead
        past = to_model_messages(history)
        with capture_run_messages() as attempt:
            try:
                result = await agent.run(
                    None,
                    message_history=past,
                    toolsets=[toolset],
                    model_settings=self._settings,
                    usage_limits=UsageLimits(request_limit=None),
                )
            finally:
                _record_rejected_calls(attempt[len(past) :], runtime)
        return result.output


def _record_rejected_calls(new: list[ModelMessage], runtime: AgentRuntime) -> None:
    """Calls pydantic-ai refused before they reached the world (unknown tool, bad JSON) are agent faults."""
    step = 0
    for msg in new:
        if isinstance(msg, ModelResponse):
            step += 1
            continue
        for part in msg.parts:
            if isinstance(part, ToolReturnPart) and part.outcome == "retried":
                runtime.fault(
                    "agent", "agent:rejected_call", f"{part.tool_name}: {part.model_response_str()}"[:500], step=step
                )
