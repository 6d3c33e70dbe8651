"""The aiohttp app speaking OpenAI Chat Completions, plus in-process and blocking start helpers.

Routes, each also without the /v1 prefix: POST /v1/chat/completions, GET /v1/models, GET /v1/stats (ServerStats as
JSON); and GET /health.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from aiohttp import web

from sim.mockllm.config import MockConfig
from sim.mockllm.faults import FaultInjector
from sim.mockllm.latency import LatencySampler
from sim.mockllm.limits import RateLimiter
from sim.mockllm.policies import Policy, build_policy
from sim.mockllm.replies import (
    RawReply,
    completion_body,
    completion_tokens,
    error_reply,
    malformed_reply,
    prompt_tokens,
    rate_limit_reply,
    server_error_reply,
)
from sim.mockllm.stats import ServerStats, bump

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# Pending connections the kernel queues for accept(); aiohttp's default of 128 drops SYNs when thousands of clients
# connect at once. Linux silently caps it at net.core.somaxconn.
LISTEN_BACKLOG = 16384


def _raw(reply: RawReply, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        status=reply.status,
        body=reply.body,
        content_type=reply.content_type,
        headers=reply.headers | headers if headers else reply.headers,
    )


class MockLLMApp:
    """Request handling; all state lives here, one instance per server."""

    def __init__(
        self, config: MockConfig, policy: Policy | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.config = config
        self.stats = ServerStats()
        self._policy = policy if policy is not None else build_policy(config.policy)
        self._faults = FaultInjector(config.faults, config.seed)
        # The limiter's clock is injectable: a test steps it to cross minutes without waiting them.
        self._limiter = RateLimiter(config.rate_limit, config.model, clock) if config.rate_limit else None
        self._latency = LatencySampler(config)
        self._started = time.monotonic()

    def build(self) -> web.Application:
        # Long agent conversations outgrow aiohttp's 1 MiB default body limit.
        app = web.Application(middlewares=[self._count], client_max_size=64 * 1024 * 1024)
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
        bump(self.stats.by_status, response.status)
        if response.status == 429:
            self.stats.rate_limited += 1
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
        stats = self.stats
        stats.completions += 1
        ordinal = stats.completions
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        try:
            response = await self._complete(request, ordinal)
        finally:
            stats.in_flight -= 1
        response.headers["x-request-id"] = f"req_{ordinal}"
        return response

    def _limit_headers(self) -> dict[str, str]:
        return self._limiter.headers() if self._limiter is not None else {}

    def _bad_request(self, message: str, code: str) -> web.Response:
        return _raw(error_reply(400, message, "invalid_request_error", code), self._limit_headers())

    async def _complete(self, request: web.Request, ordinal: int) -> web.Response:
        """One completion, in this order:

        1. a bad body or stream=true: 400; 2. the fault draw: a rate_limit or server_error fault answers at once and
        is not charged to the limits (the provider turned it away); 3. the limiter: 429 (requests, tokens, too
        large), or the request is admitted and charged 1 request and its usage.total_tokens; 4. a timeout fault
        hangs hang_s, then the latency draw; 5. a malformed fault's body, or the completion.
        """
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:  # invalid JSON or UTF-8
            return self._bad_request("Request body is not valid JSON.", "invalid_json")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
            return self._bad_request("'messages' must be a non-empty list.", "invalid_request")
        messages: list[dict[str, Any]] = body["messages"]
        if not all(isinstance(m, dict) for m in messages):
            return self._bad_request("Each message must be an object.", "invalid_request")
        tools = body.get("tools") or []
        if not isinstance(tools, list):
            return self._bad_request("'tools' must be a list.", "invalid_request")
        if body.get("stream"):
            return self._bad_request(
                "Streaming is not supported by the squall mock LLM server; send stream=false.", "stream_not_supported"
            )

        stats = self.stats
        rule = self._faults.match(ordinal)
        # A 429 or 5xx fault is the provider turning the request away before any work: nothing is charged.
        if rule is not None and rule.kind == "rate_limit":
            bump(stats.faults, rule.kind)
            bump(stats.rate_limited_by, "fault")
            message = f"Rate limit reached. Please try again in {rule.retry_after_s:g}s."
            answer = rate_limit_reply(message, "requests", rule.retry_after_s, rule.retry_after_ms_header)
            return _raw(answer, self._limit_headers())
        if rule is not None and rule.kind == "server_error":
            bump(stats.faults, rule.kind)
            return _raw(server_error_reply(rule.status), self._limit_headers())

        # The policy is a pure function of the request, so the completion (and its tokens) is known at admission.
        reply = self._policy.respond(messages, tools)
        prompt, completion = prompt_tokens(raw), completion_tokens(reply)
        limit_headers: dict[str, str] = {}
        if self._limiter is not None:
            decision = self._limiter.acquire(prompt + completion)
            limit_headers = self._limiter.headers()  # as of admission, as a provider's gateway sends them
            if not decision.admitted:
                assert decision.reason is not None
                bump(stats.rate_limited_by, decision.reason)
                kind = "requests" if decision.reason == "requests" else "tokens"
                with_ms = self._limiter.config.retry_after_ms_header
                return _raw(rate_limit_reply(decision.message, kind, decision.wait_s, with_ms), limit_headers)
        stats.admitted += 1
        stats.tokens_charged += prompt + completion
        # Drop the parsed conversation before sleeping: thousands of requests waiting would otherwise keep their
        # object trees alive, and every garbage-collector pass would walk them all.
        del raw, body, messages, tools

        if rule is not None:  # timeout or malformed: admitted work that goes wrong on the way back
            bump(stats.faults, rule.kind)
            if rule.kind == "timeout":
                await asyncio.sleep(rule.hang_s)  # sleeps (no CPU); a client that gives up cancels it
        delay = self._latency.delay_s(prompt, completion)
        if delay > 0:
            await asyncio.sleep(delay)
        completion_id = f"chatcmpl-mock{ordinal:06d}"
        created = int(time.time())
        if rule is not None and rule.kind == "malformed":
            return _raw(malformed_reply(rule.variant, completion_id, self.config.model, created), limit_headers)

        result = completion_body(completion_id, self.config.model, created, reply, prompt, completion)
        stats.served += 1
        stats.prompt_tokens += prompt
        stats.completion_tokens += completion
        stats.tool_calls += len(reply.tool_calls)
        return web.json_response(result, headers=limit_headers)


class MockServer:
    """An in-process mock server; `async with await start_mock_server(cfg) as srv:` closes it on exit."""

    def __init__(self, runner: web.AppRunner, app: MockLLMApp, host: str, port: int) -> None:
        self._runner = runner
        self._app = app
        self.host = host
        self.port = port
        self.url = f"http://{host}:{port}/v1"
        self.stats: ServerStats = app.stats
        self.config: MockConfig = app.config

    async def close(self) -> None:
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
) -> MockServer:
    """Start serving in the running loop; port 0 picks a free port (see `.port` / `.url`). ``policy``, in-process
    only, answers instead of ``config.policy`` (a test's own pure function of the request); ``clock``: the rate
    limiter's."""
    app = MockLLMApp(config, policy, clock)
    # handler_cancellation: a client that gives up on a hang frees its handler; short shutdown so close() never
    # waits out a long hang.
    runner = web.AppRunner(app.build(), access_log=None, handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=backlog)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    bound_port = int(runner.addresses[0][1])
    return MockServer(runner, app, host, bound_port)


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
    asyncio.run(serve(config, host, port, port_file, max_lifetime_s))
