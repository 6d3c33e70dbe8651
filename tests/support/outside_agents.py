"""Outside agents for the tests: the reference agent service (aiohttp on 127.0.0.1, an ephemeral port) that answers
over MCP with the ``mcp`` SDK's client, services that misbehave, and squall's oracle policy run from outside.

The oracle reads the gold, which no outside agent is sent: ``GOLDS`` is the test-only side channel (task id -> the
episode's ``EpisodeGold``), filled by ``feeding_golds`` around the run's factory. Everything else the outside oracle
knows comes over the protocol: the request's messages and the tools it lists and calls at ``mcp_url``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx2
import pytest
from aiohttp import web
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ToolListChangedNotification

import sim.agents.outside.agent as outside_agent
from personas import ScriptedUser, parse_user_spec
from sim.agents.baselines import OracleAgent
from sim.agents.factory import open_agent_factory, parse_agent_spec
from sim.agents.outside.protocol import AgentReply, AgentRequest, HelloReply
from sim.core import AgentFactory, EpisodeGold, EpisodeResult, Event, LLMHandle, ToolCall, ToolResult, ToolSpec
from sim.episode.env import EpisodeEnv, EpisodeLimits, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from worlds.registry import load_world

Respond = Callable[[AgentRequest], Awaitable[AgentReply]]

GOLDS: dict[str, EpisodeGold] = {}
"""The side channel: episode id -> the gold the in-process oracle of that episode would be handed."""
CALLED_IN: dict[str, set[int]] = {}
"""Episode id -> the goals the outside oracle called a tool in: its own memory (the request has no tool events)."""
REQUESTS: list[AgentRequest] = []
"""Every request the reference agents were sent, for tests to read."""


@contextmanager
def feeding_golds(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Wrap the outside factory so each episode's gold reaches ``GOLDS`` (what the in-process oracle is handed)."""
    real = outside_agent.open_outside_factory

    @asynccontextmanager
    async def wrapped(*args: Any, **kwargs: Any) -> AsyncIterator[AgentFactory]:
        async with real(*args, **kwargs) as factory:

            def build(gold: EpisodeGold) -> Any:
                agent = factory(gold)
                respond = agent.respond

                async def fed(history: Sequence[Event], runtime: Any) -> str:
                    GOLDS[runtime.episode_id] = gold  # the episode's own: trials of one task run side by side
                    return await respond(history, runtime)

                agent.respond = fed
                return agent

            yield build

    monkeypatch.setattr(outside_agent, "open_outside_factory", wrapped)
    GOLDS.clear()
    CALLED_IN.clear()
    try:
        yield
    finally:
        GOLDS.clear()
        CALLED_IN.clear()


def tool_spec(tool: Any) -> ToolSpec:
    """An MCP tool as squall's ToolSpec (what the oracle's tool search reads)."""
    read_only = bool(tool.annotations is not None and tool.annotations.read_only_hint)
    return ToolSpec(
        name=tool.name, description=tool.description or "", parameters=tool.input_schema, read_only=read_only
    )


class McpRuntime:
    """An ``AgentRuntime`` whose tools are the episode's over MCP: the outside side of the hop."""

    def __init__(self, client: Client, request: AgentRequest) -> None:
        self._client = client
        self.stale = True
        """The server said the toolkit changed (``tools/list_changed``): list it again before the next call."""
        self.turn = request.turn
        self.instructions = request.instructions
        self.seed = 0
        self.calls = 0
        self._tools: tuple[ToolSpec, ...] = ()

    @property
    def llm(self) -> LLMHandle:
        raise AssertionError("an outside agent has no squall gateway")

    async def refresh(self) -> None:
        self.stale = False
        self._tools = tuple(tool_spec(t) for t in (await self._client.list_tools()).tools)

    def current_tools(self) -> tuple[ToolSpec, ...]:
        return self._tools

    async def call(self, call: ToolCall, step: int) -> ToolResult:
        self.calls += 1
        result = await self._client.call_tool(call.name, call.arguments)
        if self.stale:  # the call changed the toolkit (a search found a function): the server said so on its stream
            await self.refresh()
        content: Any = result.structured_content
        if content is None:
            text = "".join(getattr(c, "text", "") for c in result.content)
            try:
                content = json.loads(text)
            except ValueError:
                content = text
        return ToolResult(call_id=call.id, status="error" if result.is_error else "success", content=content)

    def fault(self, fault: str, code: str, detail: str, step: int = 0) -> None:
        raise AssertionError(f"the oracle records no faults: {code}")


@asynccontextmanager
async def mcp_client(url: str, on_message: Any = None) -> AsyncIterator[Client]:
    """The SDK's client on a plain-HTTP loopback URL: its HTTP client built without TLS verification, which would
    load the CA bundle for every connection (tens of ms of CPU per turn, for a URL that has no TLS)."""
    timeout = httpx2.Timeout(30, read=300)  # the SDK's defaults
    async with (
        httpx2.AsyncClient(verify=False, timeout=timeout) as http,
        Client(streamable_http_client(url, http_client=http), message_handler=on_message) as client,
    ):
        yield client


async def oracle_over_mcp(request: AgentRequest) -> AgentReply:
    """squall's oracle policy, unchanged, as an outside agent: its tools over MCP, its history from the request's
    messages and its own memory of the goals it acted in; the gold from the side channel."""
    REQUESTS.append(request)
    gold = GOLDS[request.episode_id]
    done = CALLED_IN.setdefault(request.episode_id, set())
    # What the oracle reads of its history: the user's latest message, and whether it acted in this goal already.
    history = [Event(kind="tool_call", turn=0, goal=goal) for goal in sorted(done)]
    history.append(Event(kind="user_message", turn=request.turn, goal=gold.goal, content=request.messages[-1].content))
    runtime: McpRuntime | None = None

    async def on_message(message: Any) -> None:
        if isinstance(message, ToolListChangedNotification) and runtime is not None:
            runtime.stale = True

    async with mcp_client(request.mcp_url, on_message) as client:
        runtime = McpRuntime(client, request)
        await runtime.refresh()  # the goal may have changed the toolkit since the last turn
        reply = await OracleAgent(gold).respond(history, runtime)
    if runtime.calls:
        done.add(gold.goal)
    return AgentReply(
        reply=reply, usage={"requests": 1, "input_tokens": 10 * len(request.messages), "output_tokens": 5}
    )


async def lister(request: AgentRequest) -> AgentReply:
    """Lists the tools over MCP, calls the first read-only one without arguments, and names what it saw."""
    REQUESTS.append(request)
    async with mcp_client(request.mcp_url) as client:
        tools = (await client.list_tools()).tools
        lookups = [t.name for t in tools if t.annotations is not None and t.annotations.read_only_hint]
        if lookups:
            await client.call_tool(lookups[0], {})
    return AgentReply(reply=f"I can use {len(tools)} tools.", usage={"requests": 2, "input_tokens": 7})


@asynccontextmanager
async def agent_service(respond: Respond = oracle_over_mcp) -> AsyncIterator[str]:
    """The reference agent service, on 127.0.0.1 at an ephemeral port, stopped on exit. ``/agent`` answers the
    hello, and each turn with ``respond``; ``/fail`` (HTTP 500), ``/text`` (not JSON), ``/shape`` (JSON of the wrong
    shape) and ``/hang`` (never answers) are the bad inputs."""
    stop = asyncio.Event()

    async def agent(http: web.Request) -> web.Response:
        body = await http.json()
        if body.get("kind") == "hello":  # the handshake before a run
            return web.json_response(HelloReply(kind="hello", agent="reference").model_dump(mode="json"))
        reply = await respond(AgentRequest.model_validate(body))
        return web.json_response(reply.model_dump(mode="json"))

    async def fail(http: web.Request) -> web.Response:
        return web.json_response({"detail": "agent crashed"}, status=500)

    async def text(http: web.Request) -> web.Response:
        return web.Response(text="<html>Hello there</html>")

    async def shape(http: web.Request) -> web.Response:
        return web.json_response({"answer": "no reply field", "usage": {"requests": -1}})

    async def hang(http: web.Request) -> web.Response:
        await stop.wait()
        return web.json_response({"reply": "too late"})

    app = web.Application()
    for path, handler in (("/agent", agent), ("/fail", fail), ("/text", text), ("/shape", shape), ("/hang", hang)):
        app.router.add_post(path, handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}"
    finally:
        stop.set()
        await runner.cleanup()


async def play_outside(agent: str, timeout_s: float = 600.0, world: str = "smart_home", task: int = 0) -> EpisodeResult:
    """One episode of ``world``'s task with the outside agent ``agent`` (an ``--agent`` string), through the run's
    own factory: the real MCP hub, opened and closed around it."""
    spec = parse_agent_spec(agent)
    pack = load_world(world)
    gateway = Gateway()
    async with open_agent_factory(spec, gateway, None, None) as factory:
        env = EpisodeEnv(
            pack, factory, ScriptedUser(parse_user_spec("scripted")), gateway, (spec.label, "scripted"),
            limits=EpisodeLimits(timeout_s=timeout_s),
        )  # fmt: skip
        return await run_episode(EpisodeSpec(task=pack.tasks()[task], trial=0, seed=3), env)


def agent_faults(result: EpisodeResult) -> list[str]:
    return [ev.code or "" for ev in result.events if ev.kind == "error"]
