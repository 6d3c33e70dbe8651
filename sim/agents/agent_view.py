"""What the agent under test is shown, as the run configures it: a system prompt of the user's own before the
world's instructions, and tool schemas trimmed to save input tokens (descriptions cut to N characters, parameter
descriptions dropped).

It wraps the agent's runtime, so every model agent (native, text, direct) sees the same view, and the world, the
stressors and the judges keep the full specs: only what the model reads changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.core import Agent, AgentRuntime, Event, ToolSpec
from sim.core.frozen import thaw

CACHE_SIZE = 4096


@dataclass(frozen=True)
class AgentView:
    system_prompt: str | None = None
    tool_descriptions: int | None = None
    """Each tool's description cut to at most this many characters (0: none); None: whole."""
    drop_param_descriptions: bool = False

    @property
    def changes_anything(self) -> bool:
        return bool(self.system_prompt) or self.tool_descriptions is not None or self.drop_param_descriptions

    def instructions(self, world: str) -> str:
        return "\n\n".join(p for p in (self.system_prompt or "", world) if p.strip())

    def tool(self, spec: ToolSpec) -> ToolSpec:
        """The spec as the agent sees it."""
        update: dict[str, Any] = {}
        if self.tool_descriptions is not None and len(spec.description) > self.tool_descriptions:
            update["description"] = _cut(spec.description, self.tool_descriptions)
        if self.drop_param_descriptions:
            update["parameters"] = _without_descriptions(thaw(spec.parameters))
        return spec.model_copy(update=update) if update else spec


def _cut(text: str, limit: int) -> str:
    if limit <= 0:
        return ""
    return text[: limit - 1].rstrip() + "…" if len(text) > limit else text


def _without_descriptions(schema: Any) -> Any:
    """The JSON schema without any 'description' (at every depth): names, types, enums and required stay."""
    if isinstance(schema, dict):
        return {k: _without_descriptions(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [_without_descriptions(v) for v in schema]
    return schema


class ViewedRuntime:
    """The agent's runtime with the view's instructions and tools; everything else is the real runtime's."""

    def __init__(self, runtime: AgentRuntime, view: AgentView, cache: dict[int, tuple[ToolSpec, ToolSpec]]) -> None:
        self._runtime = runtime
        self._view = view
        self._cache = cache

    @property
    def instructions(self) -> str:
        return self._view.instructions(self._runtime.instructions)

    def current_tools(self) -> tuple[ToolSpec, ...]:
        return tuple(self._shown(spec) for spec in self._runtime.current_tools())

    def _shown(self, spec: ToolSpec) -> ToolSpec:
        # Specs are shared by every episode of a world: trim each once. The cache holds the spec, so its id is not
        # reused while cached.
        hit = self._cache.get(id(spec))
        if hit is None or hit[0] is not spec:
            if len(self._cache) >= CACHE_SIZE:  # stressors may build new specs per episode
                self._cache.clear()
            hit = self._cache[id(spec)] = (spec, self._view.tool(spec))
        return hit[1]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)


class ViewedAgent:
    """An agent that is shown the view instead of the world's own instructions and tool schemas."""

    def __init__(self, agent: Agent, view: AgentView) -> None:
        self.name = agent.name
        self._agent = agent
        self._view = view
        self._cache: dict[int, tuple[ToolSpec, ToolSpec]] = {}

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        viewed = ViewedRuntime(runtime, self._view, self._cache)
        return await self._agent.respond(history, viewed)  # an AgentRuntime: the rest by delegation
