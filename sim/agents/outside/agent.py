"""The outside agent of one episode: each turn one ``squall-agent/1`` request while the episode's tools are served
over MCP, one reply back; and the run-level factory that opens the MCP hub and the transport once for every episode.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Literal, Protocol

from sim.agents.outside.errors import OutsideTimeout
from sim.agents.outside.protocol import AgentReply, AgentRequest, Message
from sim.agents.outside.spec import OutsideKind, command_argv, load_callable
from sim.agents.outside.transports import (
    CommandTransport,
    HttpTransport,
    OutsideCallable,
    PythonTransport,
    Transport,
)
from sim.core import AgentFactory, AgentRuntime, EpisodeControls, EpisodeGold, Event, Usage

DEFAULT_MAX_STEPS = 15
"""Tool calls per turn when the runtime does not say (a runtime outside an episode: tests)."""


class ToolHub(Protocol):
    """What serves an episode's tools over MCP during a turn (``sim.mcp.hub.McpHub``)."""

    def serve(self, runtime: AgentRuntime, *, max_steps: int | None = None) -> AbstractAsyncContextManager[str]: ...


HubOpener = Callable[[], AbstractAsyncContextManager[ToolHub]]


_ROLES: dict[str, Literal["user", "assistant"]] = {"user_message": "user", "agent_message": "assistant"}


def conversation(history: Sequence[Event]) -> list[Message]:
    """The messages the user saw, oldest first: no tool events, no faults, nothing only the harness knows."""
    return [Message(role=_ROLES[ev.kind], content=ev.content or "") for ev in history if ev.kind in _ROLES]


def reply_timeout(left: float | None) -> float | None:
    """The reply's time limit from the episode's remaining working time: a little less, so the agent's timeout is
    what fires (a classified agent fault), not the episode's deadline behind it."""
    if left is None:
        return None
    return max(0.0, left - min(0.5, left / 10))


class OutsideAgent:
    """Implements ``sim.core.Agent`` for an agent outside squall; one per episode (it names the episode's task)."""

    def __init__(self, name: str, transport: Transport, hub: ToolHub, task_id: str) -> None:
        self.name = name
        self._transport = transport
        self._hub = hub
        self._task_id = task_id

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        controls = runtime if isinstance(runtime, EpisodeControls) else None
        max_steps = controls.max_steps if controls is not None else DEFAULT_MAX_STEPS
        timeout = reply_timeout(controls.time_left() if controls is not None else None)
        async with self._hub.serve(runtime, max_steps=max_steps) as url:
            request = AgentRequest(
                episode_id=controls.episode_id if controls is not None else "",
                task_id=self._task_id,
                turn=runtime.turn,
                instructions=runtime.instructions,
                messages=conversation(history),
                mcp_url=url,
                max_steps=max_steps,
                timeout_s=timeout,
            )
            try:
                async with asyncio.timeout(timeout):
                    reply = await self._transport.send(request)
            except TimeoutError:
                raise OutsideTimeout(f"{self.name}: no reply within {timeout:.2f}s (the episode's time left)") from None
        if controls is not None:
            _report(reply, controls)
        return reply.reply


def _report(reply: AgentReply, controls: EpisodeControls) -> None:
    if reply.usage is not None:
        usage = reply.usage
        controls.report_usage(
            Usage(requests=usage.requests, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)
        )
    if reply.end:
        controls.end_conversation()


@asynccontextmanager
async def open_outside_factory(
    kind: OutsideKind, target: str, open_hub: HubOpener | None = None, function: OutsideCallable | None = None
) -> AsyncIterator[AgentFactory]:
    """The factory of a run's outside agents: the MCP hub (``sim.mcp.hub.open_mcp_hub`` on a free port unless
    ``open_hub``) and the transport, opened once and closed with the run. ``function``: the callable a ``python:``
    agent is, instead of the one ``target`` names (``squall serve --mcp``'s explorer, bound to its episode). The gold
    is read for its task id only."""
    if open_hub is None:
        from sim.mcp.hub import open_mcp_hub

        open_hub = open_mcp_hub
    async with AsyncExitStack() as stack:
        transport: Transport
        if kind == "http":
            import aiohttp  # here, not at the top: a tenth of every `squall` start-up

            # No pool limit: the run's concurrency is the limit, as for any agent.
            connector = aiohttp.TCPConnector(limit=0)
            session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None))
            stack.push_async_callback(session.close)
            transport = HttpTransport(target, session)
        elif kind == "python":
            transport = PythonTransport(target, function or load_callable(target))
        else:
            transport = CommandTransport(command_argv(target))
        hub = await stack.enter_async_context(open_hub())
        label = f"{kind}:{target}"

        def build(gold: EpisodeGold) -> OutsideAgent:
            return OutsideAgent(label, transport, hub, gold.task.id)

        yield build
