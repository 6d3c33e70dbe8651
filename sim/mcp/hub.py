"""One streamable-HTTP MCP server for a whole run, serving every episode at its own URL.

The current protocol revision (2026-07-28) is stateless: every request is a self-contained POST with no MCP session
to hang an episode on. So the episode is in the URL, ``/mcp/<token>``, with a random token per episode runtime:
it persists across requests and reconnects, and one server keeps hundreds of episodes apart. Served by uvicorn
(which the ``mcp`` SDK depends on) inside the run's event loop, on 127.0.0.1 only, until the hub's context exits.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import Any

import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from sim.core import AgentRuntime
from sim.mcp.episode import NO_EPISODE, EpisodeClosed, McpEpisode
from sim.mcp.gate import EpisodeGate
from sim.mcp.server import build_server

_SHUTDOWN_GRACE_S = 5
"""How long stopping waits for requests still being answered before it cancels them."""


class McpHub:
    """Serves episode runtimes, each at its own URL while one of its turns is open (``serve``)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        # Weak both ways: an episode's token lives exactly as long as its runtime object, and is never reused.
        self._episodes: weakref.WeakKeyDictionary[AgentRuntime, McpEpisode] = weakref.WeakKeyDictionary()
        self._by_token: weakref.WeakValueDictionary[str, McpEpisode] = weakref.WeakValueDictionary()
        self.last_request = time.monotonic()
        """When a request last came or was answered (``time.monotonic``), for an idle timeout."""

    def serve(self, runtime: AgentRuntime, *, max_steps: int | None = None) -> AbstractAsyncContextManager[str]:
        """While the context is open (one agent turn: the agent's ``respond``), the runtime's current tools are
        served at the yielded URL ``{base_url}/mcp/{token}``: ``tools/list`` = ``runtime.current_tools()`` asked
        anew on every list, ``tools/call`` = ``runtime.call``. The same runtime object gets the same URL every turn;
        outside a turn a request there gets a clear MCP error. Calls past ``max_steps`` in one turn are refused with
        a clear error and recorded as an agent fault (``runtime.fault``).

        On exit, calls still running are cancelled and awaited, and an exception ``runtime.call`` raised during the
        turn (a harness fault, the runtime's own step limit) is raised again here, for the episode loop to classify
        as it would an in-process agent's. The runtime is held weakly (it must be hashable and weak-referenceable,
        as ``EpisodeRuntime`` is), so its URL is forgotten with it."""
        return self._serve(runtime, max_steps)

    @asynccontextmanager
    async def _serve(self, runtime: AgentRuntime, max_steps: int | None) -> AsyncIterator[str]:
        episode = self._episodes.get(runtime)
        if episode is None:
            episode = McpEpisode()
            self._episodes[runtime] = episode
            self._by_token[episode.token] = episode
        async with episode.turn(runtime, max_steps):
            yield f"{self.base_url}/mcp/{episode.token}"

    def knows(self, token: str) -> bool:
        """Whether ``token`` names an episode still alive (its runtime is): requests to any other are refused."""
        return token in self._by_token

    def episode_of(self, ctx: ServerRequestContext[Any, Any]) -> McpEpisode:
        """The episode a request's URL names (raises ``EpisodeClosed`` when it names none)."""
        request = ctx.request
        token = request.path_params.get("token") if isinstance(request, Request) else None
        episode = self._by_token.get(token) if isinstance(token, str) else None
        if episode is None:
            raise EpisodeClosed(NO_EPISODE)  # it ended while the request was on its way
        return episode

    def episode_at(self, url: str) -> McpEpisode | None:
        """The episode served at ``url`` (one ``serve`` yielded), for another transport to serve too (stdio)."""
        prefix = f"{self.base_url}/mcp/"
        return self._by_token.get(url.removeprefix(prefix)) if url.startswith(prefix) else None

    def close(self) -> None:
        """End every open listen stream, so stopping does not wait on them."""
        for episode in list(self._by_token.values()):
            episode.close()


class _Server(uvicorn.Server):
    """uvicorn inside the run's own loop: the run owns the process's signals (Ctrl-C), not the server."""

    def capture_signals(self) -> Any:
        return nullcontext()


def _loopback(host: str) -> str:
    if host == "localhost":
        return "127.0.0.1"
    if not ipaddress.ip_address(host).is_loopback:
        raise ValueError(f"the MCP hub binds loopback addresses only, not {host!r}")
    return host


def _app(hub: McpHub, host: str, routes: Sequence[BaseRoute]) -> ASGIApp:
    def manager(json_response: bool) -> StreamableHTTPSessionManager:
        return StreamableHTTPSessionManager(
            app=build_server(hub.episode_of),
            # Handshake-era (2025) clients too get no session to keep: the episode is in the URL.
            stateless=True,
            json_response=json_response,
            security_settings=TransportSecuritySettings(  # DNS-rebinding protection, as the SDK does for localhost
                enable_dns_rebinding_protection=True,
                allowed_hosts=[f"{host}:*", "localhost:*"],
                allowed_origins=[f"http://{host}:*", "http://localhost:*"],
            ),
        )

    streaming, batches = manager(json_response=False), manager(json_response=True)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with streaming.run(), batches.run():
            yield

    gate = EpisodeGate(hub.knows, StreamableHTTPASGIApp(streaming), StreamableHTTPASGIApp(batches))
    app = Starlette(routes=[Route("/mcp/{token}", endpoint=gate), *routes], lifespan=lifespan)

    async def noted(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        hub.last_request = time.monotonic()
        try:
            await app(scope, receive, send)
        finally:
            hub.last_request = time.monotonic()  # a long call is activity until it is answered

    return noted


@asynccontextmanager
async def open_mcp_hub(
    host: str = "127.0.0.1", port: int = 0, routes: Sequence[BaseRoute] = ()
) -> AsyncIterator[McpHub]:
    """Start one streamable-HTTP MCP server for the whole run (an ephemeral port by default) and stop it on exit:
    the port is closed and its task gone when the context has exited. ``routes`` are served beside the episodes
    (``squall serve --mcp``'s controls)."""
    host = _loopback(host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say so, and with Nagle on
    # every response waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    hub = McpHub(f"http://{shown}:{bound}")
    config = uvicorn.Config(
        _app(hub, shown, routes),
        lifespan="on",
        log_config=None,  # leave the run's logging alone
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=_SHUTDOWN_GRACE_S,
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name=f"squall-mcp-hub:{bound}")
    try:
        while not server.started:
            if task.done():  # it failed to start: say why
                task.result()
                raise RuntimeError("the MCP hub stopped before it started")
            await asyncio.sleep(0.005)
        yield hub
    finally:
        hub.close()
        server.should_exit = True
        try:
            await task  # cancelled with the run, it is cancelled too
        finally:
            sock.close()
