"""Agent spec strings -> the factory of each episode's agent, with whatever it needs started (the local model server).

A calibration agent (oracle, naive) is built per episode, bound to that episode's gold; a model agent is one agent
for every episode and never sees the gold. ``direct:`` runs an agent in direct invocation (``sim.agents.direct_agent``:
the turn's whole call sequence in one reply): ``direct:MODEL``, and ``direct:oracle`` / ``direct:null`` to
calibrate it. ``code:MODEL`` is a CodeAct-style agent (``sim.agents.code``): the model writes Python programs that
call the tools as functions, run in a sandboxed child process. ``sql:MODEL`` is the SQL-writing baseline: a native
tool-calling agent whose world is the SQL world's database behind one ``execute_sql`` tool
(``worlds.sql.engine.query_world``; the run swaps the world).
``http:URL``, ``python:module:function`` and ``command:"PROG ARGS"`` are agents outside squall
(``sim.agents.outside``), answering over the ``squall-agent/1`` protocol with the episode's tools served over MCP.

pydantic-ai, openai and the HTTP client are imported only when the spec names a model: calibration
runs (oracle, null) never pay for them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from sim.agents.agent_view import AgentView, ViewedAgent
from sim.agents.baselines import NaiveAgent, NullAgent, OracleAgent
from sim.agents.obedient import ObedientAgent
from sim.core import Agent, AgentFactory, shared_agent
from sim.core.suggest import did_you_mean
from sim.llm.model_access import LOCAL, ModelUnavailable, open_model
from sim.llm.model_access import resolve_model as _resolve

if TYPE_CHECKING:
    from sim.agents.code.sandbox import CodeLimits
    from sim.agents.text_prompt import TextProtocol, ToolStyle
    from sim.llm.gateway import Gateway

AgentKind = Literal[
    "oracle",
    "null",
    "naive",
    "obedient",
    "native",
    "text",
    "direct",
    "sql",
    "code",
    "http",
    "python",
    "command",
    "replay",
]
CALIBRATION_AGENTS = ("oracle", "null", "naive", "obedient")
"""Agents built per episode from its gold; ``obedient`` (``sim.agents.obedient``) calibrates the injection judge."""
DIRECT_BASELINES = ("oracle", "null")
"""The calibration agents ``direct:`` takes in place of a model."""


AgentOpener = Callable[["Gateway"], AbstractAsyncContextManager[AgentFactory]]
"""Opens a run's agents on its gateway, in place of an agent spec (``squall serve --mcp``'s explorer)."""


class AgentUnavailable(ModelUnavailable):
    """The agent's model cannot be used here: unknown provider, its package missing, no API key."""


@dataclass(frozen=True)
class AgentSpec:
    kind: AgentKind
    model: str | None = None

    @property
    def label(self) -> str:
        return self.kind if self.model is None else f"{self.kind}:{self.model}"


def parse_agent_spec(raw: str) -> AgentSpec:
    """``oracle`` | ``null`` | ``naive`` | ``obedient`` | ``text:MODEL`` | ``native:MODEL`` | ``sql:MODEL`` |
    ``code:MODEL`` | ``direct:MODEL`` |
    ``direct:oracle`` | ``direct:null`` | ``replay:NAME`` | ``http:URL`` | ``python:module:function`` |
    ``command:"PROG ARGS"`` |
    ``MODEL`` (native tool calling). Raises ValueError saying what is wrong with a malformed one."""
    from sim.agents.outside.spec import split_outside
    from sim.llm.model_spec import parse_model_spec

    raw = raw.strip()
    if raw in CALIBRATION_AGENTS:
        return AgentSpec(raw)  # type: ignore[arg-type]
    if ":" not in raw and (hint := did_you_mean(raw, CALIBRATION_AGENTS)):
        raise ValueError(f"agent spec {raw!r}: not an agent{hint}")
    if (outside := split_outside(raw)) is not None:
        return AgentSpec(*outside)
    if raw.startswith("replay:"):  # recorded outputs played again (sim.agents.replay): named, never built from here
        if not raw.removeprefix("replay:"):
            raise ValueError(f"agent spec {raw!r}: missing a name after 'replay:'")
        return AgentSpec("replay", raw.removeprefix("replay:"))
    head, sep, rest = raw.partition(":")
    if sep and head in ("text", "native", "direct", "sql", "code"):
        if not rest:
            raise ValueError(f"agent spec {raw!r}: missing model after '{head}:'")
        spec = AgentSpec(head, rest)  # type: ignore[arg-type]
        if head == "direct" and rest in DIRECT_BASELINES:
            return spec
    else:
        spec = AgentSpec("native", raw)
    if spec.model != LOCAL:
        parse_model_spec(spec.model or "")  # fail early on a malformed model string
    return spec


@asynccontextmanager
async def open_agent_factory(
    spec: AgentSpec,
    gateway: Gateway,
    max_tokens: int | None,
    temperature: float | None,
    text_protocol: TextProtocol = "react",
    view: AgentView | None = None,
    code_limits: CodeLimits | None = None,
) -> AsyncIterator[AgentFactory]:
    """Yield what builds each episode's agent; starts (and afterwards stops) the embedded model server when asked for.

    ``text_protocol`` is the prompt a ``text:`` agent is taught (react or tags); other agents ignore it. ``view``: the
    system prompt and tool trimming a model agent is shown (``sim.agents.agent_view``). ``code_limits``: what a
    ``code:`` agent's programs may use (time, memory); other agents ignore it.

    Raises AgentUnavailable before yielding when the model cannot be reached from here, so a caller that
    creates its run folder inside the block creates nothing for an unusable agent.
    """
    if spec.kind == "oracle":
        yield OracleAgent
        return
    if spec.kind == "null":
        yield NullAgent
        return
    if spec.kind == "naive":
        yield NaiveAgent
        return
    if spec.kind == "replay":
        raise AgentUnavailable(
            f"{spec.label} plays recorded outputs, which come with the command that made the run "
            "(squall import bfcl-results): it cannot be run or resumed from its name"
        )
    if spec.kind == "obedient":
        yield ObedientAgent
        return
    if spec.kind in ("http", "python", "command"):
        from sim.agents.outside.agent import open_outside_factory

        assert spec.model is not None
        async with open_outside_factory(spec.kind, spec.model) as outside:
            yield outside
        return
    if spec.kind == "direct" and spec.model in DIRECT_BASELINES:
        from sim.agents.direct_agent import DirectOracle

        yield DirectOracle if spec.model == "oracle" else NullAgent
        return
    assert spec.model is not None
    try:
        async with open_model(gateway, spec.model) as model:
            # The embedded model has a 4k context: show tools as one-line signatures.
            style: ToolStyle = "signature" if spec.model == LOCAL else "schema"
            agent = _build(spec, model, max_tokens, temperature, style, text_protocol, code_limits)
            yield shared_agent(ViewedAgent(agent, view) if view is not None and view.changes_anything else agent)
    except ModelUnavailable as exc:
        raise AgentUnavailable(str(exc)) from exc


def _build(
    spec: AgentSpec,
    model: str,
    max_tokens: int | None,
    temperature: float | None,
    tool_style: ToolStyle = "schema",
    text_protocol: TextProtocol = "react",
    code_limits: CodeLimits | None = None,
) -> Agent:
    if spec.kind == "code":
        from sim.agents.code.agent import CodeActAgent

        return CodeActAgent(spec.label, model, max_tokens, temperature, code_limits)
    if spec.kind == "direct":
        from sim.agents.direct_agent import DirectAgent

        return DirectAgent(spec.label, model, max_tokens, temperature, tool_style)
    if spec.kind == "text":
        from sim.agents.text_agent import TextProtocolAgent

        return TextProtocolAgent(spec.label, model, max_tokens, temperature, tool_style, text_protocol)
    from sim.agents.native import NativeToolAgent

    return NativeToolAgent(spec.label, model, max_tokens, temperature)


def resolve_model(gateway: Gateway, model: str) -> None:
    """Build the model's transport now (``sim.llm.model_access.resolve_model``), as an AgentUnavailable."""
    try:
        _resolve(gateway, model)
    except ModelUnavailable as exc:
        raise AgentUnavailable(str(exc)) from exc
