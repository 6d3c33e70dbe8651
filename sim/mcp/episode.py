"""One episode as the MCP server sees it: its runtime while a turn is open, the turn's step count, and what changed.

Transport-free: the HTTP hub and the stdio server both answer ``tools/list`` and ``tools/call`` through it.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import anyio
import mcp_types as types
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError

from sim.core import AgentRuntime, ToolCall, ToolSpec
from sim.mcp.mapping import mcp_result, mcp_tools, refusal

NO_TURN = -32002
"""The JSON-RPC error code of a request to an episode with no turn open (or no episode at all): MCP's
"resource not found" code, so clients report it as a missing thing, not as a server crash."""

NO_EPISODE = "No squall episode is served at this URL (it ended, or never existed)."


class EpisodeClosed(MCPError):
    """A request to an episode URL while no turn is open there."""

    def __init__(self, message: str) -> None:
        super().__init__(NO_TURN, message)


class McpEpisode:
    """The MCP side of one episode: a random URL token that lives as long as the episode's runtime, and the state
    of the turn being served.

    ``runtime`` is held only while a turn is open, so the hub's weak maps let a finished episode go.
    """

    def __init__(self) -> None:
        self.token = secrets.token_urlsafe(18)
        self._runtime: AgentRuntime | None = None
        self._max_steps: int | None = None
        self._calls = 0
        self._limit_recorded = False
        self._failure: BaseException | None = None
        self._in_flight: set[anyio.CancelScope] = set()
        self._idle = anyio.Event()
        self._idle.set()
        self._announced: tuple[ToolSpec, ...] | None = None
        self._encoded: tuple[tuple[ToolSpec, ...], types.ListToolsResult] | None = None
        self._bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self._bus)
        """Serves ``subscriptions/listen`` (2026-07-28 clients): this episode's ``tools/list_changed`` events."""

    @property
    def open(self) -> bool:
        return self._runtime is not None

    @asynccontextmanager
    async def turn(self, runtime: AgentRuntime, max_steps: int | None) -> AsyncIterator[None]:
        """Serve ``runtime`` for one turn. On exit, calls still running are cancelled and awaited (the episode loop
        moves on only once nothing touches the runtime), then the first exception a call raised inside the runtime is
        raised here, so the loop classifies it as it would an in-process agent's (a harness fault; the runtime's own
        step limit)."""
        if self._runtime is not None:
            raise RuntimeError("this episode is already being served (one turn at a time)")
        self._runtime, self._max_steps = runtime, max_steps
        self._calls, self._limit_recorded, self._failure = 0, False, None
        await self._announce_if_changed(runtime)  # the goal changed the toolkit since the agent last listed it
        try:
            yield
        finally:
            self._runtime = None
            for scope in list(self._in_flight):
                scope.cancel()
            with anyio.CancelScope(shield=True):
                await self._idle.wait()
        if self._failure is not None:
            raise self._take_failure()  # not kept in a local: the frame its traceback holds would make a cycle

    def _take_failure(self) -> BaseException:
        failure, self._failure = self._failure, None
        assert failure is not None
        return failure

    def _require_runtime(self) -> AgentRuntime:
        if self._runtime is None:
            raise EpisodeClosed(
                "No turn in progress for this episode: squall serves an episode's tools only while the agent is "
                "answering a user message."
            )
        return self._runtime

    def list_tools(self) -> types.ListToolsResult:
        """The runtime's tools now; the encoding is reused while the runtime hands back the same tuple."""
        tools = self._require_runtime().current_tools()
        self._announced = tools
        if self._encoded is None or self._encoded[0] is not tools:
            self._encoded = (tools, mcp_tools(tools))
        return self._encoded[1]

    async def call_tool(
        self, params: types.CallToolRequestParams, notify: Callable[[], Awaitable[None]] | None = None
    ) -> types.CallToolResult:
        """Run one call through the runtime, as the next step of the turn. ``notify`` sends a
        ``tools/list_changed`` on this call's own response stream when the call changed the toolkit."""
        runtime = self._require_runtime()
        self._calls += 1
        step = self._calls
        if self._max_steps is not None and step > self._max_steps:
            message = f"Step limit reached: at most {self._max_steps} tool calls per turn. Reply to the user now."
            if not self._limit_recorded:  # one fault per turn; later refusals are the same fault
                self._limit_recorded = True
                detail = f"more than {self._max_steps} tool calls in turn {runtime.turn} (over MCP)"
                runtime.fault("agent", "agent:step_limit", detail, step=step)
            return refusal(message)
        # MCP calls carry no id of their own: the runtime gives the call the id it invents for any id-less call.
        call = ToolCall(id="", name=params.name, arguments=dict(params.arguments or {}))
        scope = anyio.CancelScope()
        self._in_flight.add(scope)
        self._idle = anyio.Event()
        try:
            with scope:
                try:
                    result = await runtime.call(call, step)
                except Exception as exc:  # the runtime's to judge (a harness fault), not the agent's to read
                    self._failure = self._failure or exc
                    raise MCPError(types.INTERNAL_ERROR, "squall could not run this call; the turn will end") from None
            if scope.cancelled_caught:
                raise EpisodeClosed("The turn ended while this call was running.")
        finally:
            self._in_flight.discard(scope)
            if not self._in_flight:
                self._idle.set()
        if notify is not None and await self._announce_if_changed(runtime):
            await notify()
        return mcp_result(result)

    async def _announce_if_changed(self, runtime: AgentRuntime) -> bool:
        """Tell listening clients the toolkit changed since it was last listed (or announced); True if it did."""
        tools = runtime.current_tools()
        if self._announced is None or tools is self._announced or tools == self._announced:
            return False
        self._announced = tools
        await self._bus.publish(ToolsListChanged())
        return True

    def close(self) -> None:
        """End this episode's listen streams (the hub is stopping)."""
        self.listen.close()
