"""The aiohttp app speaking OpenAI Chat Completions, plus in-process and blocking start helpers.

The listening socket is fast_http.py's front: it answers plain keep-alive chat completion POSTs itself, with the bytes
this app writes, and hands every other connection to this app. Both decide through one ``Completions``.

Routes, each also without the /v1 prefix: POST /v1/chat/completions, GET /v1/models, GET /v1/stats (ServerStats as
JSON); and GET /health.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType

from aiohttp import web

from sim.mockllm.completions import Completions
from sim.mockllm.config import MockConfig
from sim.mockllm.fast_http import FastFront
from sim.mockllm.policies import Policy
from sim.mockllm.replies import RawReply, error_reply
from sim.mockllm.stats import ServerStats

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# Pending connections the kernel queues for accept(); aiohttp's default of 128 drops SYNs when thousands of clients
# connect at once. Linux silently caps it at net.core.somaxconn.
LISTEN_BACKLOG = 16384
# Long agent conversations outgrow aiohttp's 1 MiB default body limit.
CLIENT_MAX_SIZE = 64 * 1024 * 1024
SHUTDOWN_TIMEOUT_S = 0.5


def _raw(reply: RawReply) -> web.Response:
    return web.Response(
        status=reply.status,
        body=reply.body,
        content_type=reply.content_type,
        charset=reply.charset,
        headers=reply.headers,
    )


class MockLLMApp:
    """The aiohttp app: every route; all state lives in its ``completions``, one instance per server."""

    def __init__(
        self, config: MockConfig, policy: Policy | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.config = config
        self.completions = Completions(config, policy, clock)
        self.stats = self.completions.stats
        self._started = time.monotonic()

    def build(self) -> web.Application:
        app = web.Application(middlewares=[self._count], client_max_size=CLIENT_MAX_SIZE)
        for prefix in ("/v1", ""):
            app.router.add_post(f"{prefix}/chat/completions", self._chat)
            app.router.add_get(f"{prefix}/models", self._models)
            app.router.add_get(f"{prefix}/stats", self._stats)
        app.router.add_get("/health", self._health)
        return app

    @web.middleware
    async def _count(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        self.stats.requests += 1
        try:
            response = await handler(request)
        except web.HTTPException as e:
            # Unknown routes and methods get an OpenAI-style JSON error too, so clients parse them uniformly.
            code = e.reason.lower().replace(" ", "_")
            response = _raw(error_reply(e.status, e.reason, "invalid_request_error", code))
        except asyncio.CancelledError:
            self.stats.cancelled += 1
            raise
        self.completions.answered(response.status)
        return response

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def _stats(self, request: web.Request) -> web.Response:
        self.stats.uptime_s = round(time.monotonic() - self._started, 3)
        self.stats.cpu_s = round(time.process_time(), 3)
        return web.Response(text=self.stats.model_dump_json(), content_type="application/json")

    async def _models(self, request: web.Request) -> web.Response:
        model = {"id": self.config.model, "object": "model", "created": 0, "owned_by": "squall"}
        return web.json_response({"object": "list", "data": [model]})

    async def _chat(self, request: web.Request) -> web.Response:
        ordinal = self.completions.start()
        try:
            response = await self._complete(request, ordinal)
        finally:
            self.stats.in_flight -= 1
        response.headers["x-request-id"] = f"req_{ordinal}"
        return response

    async def _complete(self, request: web.Request, ordinal: int) -> web.Response:
        """The steps of ``Completions.admit``, then its waits: a timeout fault's hang, then the latency."""
        completions = self.completions
        admitted = completions.admit(await request.read(), ordinal)
        if isinstance(admitted, RawReply):
            return _raw(admitted)
        if admitted.hang_s is not None:
            await asyncio.sleep(admitted.hang_s)  # sleeps (no CPU); a client that gives up cancels it
        delay = completions.delay_s(admitted)
        if delay > 0:
            await asyncio.sleep(delay)
        return _raw(completions.finish(admitted))


class MockServer:
    """An in-process mock server; `async with await start_mock_server(cfg) as srv:` closes it on exit."""

    def __init__(
        self,
        runner: web.AppRunner,
        app: MockLLMApp,
        host: str,
        port: int,
        listener: asyncio.AbstractServer | None = None,
        front: FastFront | None = None,
    ) -> None:
        self._runner = runner
        self._app = app
        self._listener = listener
        self._front = front
        self.host = host
        self.port = port
        self.url = f"http://{host}:{port}/v1"
        self.stats: ServerStats = app.stats
        self.config: MockConfig = app.config

    async def close(self) -> None:
        if self._listener is not None and self._front is not None:
            self._listener.close()
            await asyncio.gather(self._front.shutdown(SHUTDOWN_TIMEOUT_S), self._runner.cleanup())
            await self._listener.wait_closed()
        else:
            await self._runner.cleanup()

    async def __aenter__(self) -> MockServer:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


async def start_mock_server(
    config: MockConfig,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    backlog: int = LISTEN_BACKLOG,
    policy: Policy | None = None,
    clock: Callable[[], float] = time.monotonic,
    fast_http: bool = True,
) -> MockServer:
    """Start serving in the running loop; port 0 picks a free port (see `.port` / `.url`). ``policy``, in-process
    only, answers instead of ``config.policy`` (a test's own pure function of the request); ``clock``: the rate
    limiter's. ``fast_http=False``: aiohttp serves every request (fast_http.py's front answers the plain chat
    completions otherwise, with the same bytes)."""
    app = MockLLMApp(config, policy, clock)
    # handler_cancellation: a client that gives up on a hang frees its handler; short shutdown so close() never
    # waits out a long hang.
    runner = web.AppRunner(app.build(), access_log=None, handler_cancellation=True, shutdown_timeout=SHUTDOWN_TIMEOUT_S)
    await runner.setup()
    if not fast_http:
        site = web.TCPSite(runner, host, port, backlog=backlog)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        return MockServer(runner, app, host, int(runner.addresses[0][1]))
    assert runner.server is not None
    front = FastFront(app.completions, runner.server, CLIENT_MAX_SIZE)
    try:
        listener = await asyncio.get_running_loop().create_server(front.protocol, host, port, backlog=backlog)
    except BaseException:
        await runner.cleanup()
        raise
    bound_port = int(listener.sockets[0].getsockname()[1])
    return MockServer(runner, app, host, bound_port, listener, front)


def raise_open_files_limit() -> int:
    """Lift this process's soft open-files limit to the hard one (one descriptor per connection; soft is often 1024).

    Returns the soft limit now in force.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)  # "unlimited" is refused as a soft limit
    if soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return soft


def _write_port_file(path: Path, port: int) -> None:
    # Write then rename, so a polling parent never reads a half-written file.
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(f"{port}\n")
    os.replace(tmp, path)


async def serve(
    config: MockConfig,
    host: str = "127.0.0.1",
    port: int = 0,
    port_file: Path | None = None,
    max_lifetime_s: float | None = None,
) -> None:
    """Serve until SIGTERM/SIGINT or until max_lifetime_s has passed."""
    raise_open_files_limit()
    server = await start_mock_server(config, host, port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    handled: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not in the main thread
            loop.add_signal_handler(sig, stop.set)
            handled.append(sig)
    try:
        if port_file is not None:
            _write_port_file(Path(port_file), server.port)
        print(f"squall mock LLM listening on {server.url}", file=sys.stderr, flush=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=max_lifetime_s)
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)
        await server.close()


def run_server(
    config: MockConfig,
    host: str = "127.0.0.1",
    port: int = 0,
    port_file: Path | None = None,
    max_lifetime_s: float | None = None,
) -> None:
    """Blocking: serve until a signal or max_lifetime_s; writes the bound port to port_file once listening."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(serve(config, host, port, port_file, max_lifetime_s))


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop factory where it is installed (the ``fast`` extra) and not turned off (``SQUALL_UVLOOP=0``, as
    for ``squall run``); None, the stock loop, otherwise. uvloop halves the loop's own CPU per request. A copy of
    ``sim.run.event_loop.loop_factory``: the mock imports nothing of squall's layers (the import contract)."""
    if os.environ.get("SQUALL_UVLOOP", "1") == "0":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory
