"""Agent spec strings -> agents under test, with whatever they need started (the local model server)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal

from sim.agents.baselines import NullAgent, OracleAgent
from sim.agents.native import NativeToolAgent
from sim.agents.text_agent import TextProtocolAgent
from sim.agents.text_prompt import ToolStyle
from sim.core import Agent
from sim.llm.models import ModelFactory, ModelSpec, parse_model_spec

AgentKind = Literal["oracle", "null", "native", "text"]
LOCAL = "local"


@dataclass(frozen=True)
class AgentSpec:
    kind: AgentKind
    model: str | None = None

    @property
    def label(self) -> str:
        return self.kind if self.model is None else f"{self.kind}:{self.model}"


def parse_agent_spec(raw: str) -> AgentSpec:
    """``oracle`` | ``null`` | ``text:MODEL`` | ``native:MODEL`` | ``MODEL`` (native tool calling)."""
    raw = raw.strip()
    if raw in ("oracle", "null"):
        return AgentSpec(raw)  # type: ignore[arg-type]
    head, sep, rest = raw.partition(":")
    if sep and head in ("text", "native"):
        if not rest:
            raise ValueError(f"agent spec {raw!r}: missing model after '{head}:'")
        spec = AgentSpec(head, rest)  # type: ignore[arg-type]
    else:
        spec = AgentSpec("native", raw)
    if spec.model != LOCAL:
        parse_model_spec(spec.model or "")  # fail early on a malformed model string
    return spec


@asynccontextmanager
async def open_agent(
    spec: AgentSpec, models: ModelFactory, max_tokens: int | None, temperature: float | None
) -> AsyncIterator[Agent]:
    """Yield a ready agent; starts (and afterwards stops) the embedded model server when asked for."""
    if spec.kind == "oracle":
        yield OracleAgent()
        return
    if spec.kind == "null":
        yield NullAgent()
        return
    assert spec.model is not None
    if spec.model == LOCAL:
        from sim.llm.local_server import LocalModelServer

        async with LocalModelServer() as server:
            model_spec = parse_model_spec(f"openai-chat:{server.model_name}@{server.base_url}")
            # The embedded model has a 4k context: show tools as one-line signatures.
            yield _build(spec, models, model_spec, max_tokens, temperature, tool_style="signature")
        return
    model_spec = parse_model_spec(spec.model)
    yield _build(spec, models, model_spec, max_tokens, temperature)


def _build(
    spec: AgentSpec,
    models: ModelFactory,
    model_spec: ModelSpec,
    max_tokens: int | None,
    temperature: float | None,
    tool_style: ToolStyle = "schema",
) -> Agent:
    model = models.build(model_spec)
    if spec.kind == "text":
        return TextProtocolAgent(spec.label, model, model_spec.endpoint, max_tokens, temperature, tool_style)
    return NativeToolAgent(spec.label, model, model_spec.endpoint, max_tokens, temperature)
