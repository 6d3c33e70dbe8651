"""Agent spec strings -> agents under test, with whatever they need started (the local model server).

pydantic-ai, openai and the HTTP client are imported only when the spec names a model: calibration
runs (oracle, null) never pay for them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from sim.agents.baselines import NaiveAgent, NullAgent, OracleAgent
from sim.core import Agent

if TYPE_CHECKING:
    from sim.agents.text_prompt import TextProtocol, ToolStyle
    from sim.llm.gateway import Gateway

AgentKind = Literal["oracle", "null", "naive", "native", "text"]
LOCAL = "local"


class AgentUnavailable(ValueError):
    """The agent's model cannot be used here: unknown provider, its package missing, no API key."""


@dataclass(frozen=True)
class AgentSpec:
    kind: AgentKind
    model: str | None = None

    @property
    def label(self) -> str:
        return self.kind if self.model is None else f"{self.kind}:{self.model}"


def parse_agent_spec(raw: str) -> AgentSpec:
    """``oracle`` | ``null`` | ``naive`` | ``text:MODEL`` | ``native:MODEL`` | ``MODEL`` (native tool calling)."""
    from sim.llm.model_spec import parse_model_spec

    raw = raw.strip()
    if raw in ("oracle", "null", "naive"):
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
    spec: AgentSpec,
    gateway: Gateway,
    max_tokens: int | None,
    temperature: float | None,
    text_protocol: TextProtocol = "react",
) -> AsyncIterator[Agent]:
    """Yield a ready agent; starts (and afterwards stops) the embedded model server when asked for.

    ``text_protocol`` is the prompt a ``text:`` agent is taught (react or tags); other agents ignore it.

    Raises AgentUnavailable before yielding when the model cannot be reached from here, so a caller that
    creates its run folder inside the block creates nothing for an unusable agent.
    """
    if spec.kind == "oracle":
        yield OracleAgent()
        return
    if spec.kind == "null":
        yield NullAgent()
        return
    if spec.kind == "naive":
        yield NaiveAgent()
        return
    assert spec.model is not None
    if spec.model == LOCAL:
        from sim.llm.local_server import LocalModelServer

        async with LocalModelServer() as server:
            # A name that does not carry the server's port, so cache keys stay the same from run to run.
            model = f"local:{server.model_name}"
            from sim.llm.openai_chat import OpenAIChatTransport

            gateway.register(
                model,
                OpenAIChatTransport(gateway.http(), server.base_url, server.model_name, gateway.request_timeout_s),
            )
            # The embedded model has a 4k context: show tools as one-line signatures.
            yield _build(spec, gateway, model, max_tokens, temperature, "signature", text_protocol)
        return
    yield _build(spec, gateway, spec.model, max_tokens, temperature, "schema", text_protocol)


def _build(
    spec: AgentSpec,
    gateway: Gateway,
    model: str,
    max_tokens: int | None,
    temperature: float | None,
    tool_style: ToolStyle = "schema",
    text_protocol: TextProtocol = "react",
) -> Agent:
    resolve_model(gateway, model)
    if spec.kind == "text":
        from sim.agents.text_agent import TextProtocolAgent

        return TextProtocolAgent(spec.label, model, max_tokens, temperature, tool_style, text_protocol)
    from sim.agents.native import NativeToolAgent

    return NativeToolAgent(spec.label, model, max_tokens, temperature)


def resolve_model(gateway: Gateway, model: str) -> None:
    """Build the model's transport now: an unknown provider, a missing package or key fails here, clearly."""
    try:
        gateway.transport(model)
    except ImportError as exc:  # pydantic-ai's message names the extra to install
        raise AgentUnavailable(f"model {model!r} needs a package that is not installed: {exc}") from exc
    except Exception as exc:  # pydantic-ai raises UserError (unknown provider, no API key) or the SDK's own error
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise AgentUnavailable(f"model {model!r} cannot be used: {message}") from exc
