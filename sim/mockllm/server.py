"""The aiohttp app speaking OpenAI Chat Completions, plus in-process and blocking start helpers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from aiohttp import web
from pydantic import BaseModel, Field

from sim.mockllm.config import FaultRule, MockConfig
from sim.mockllm.faults import (
    FaultInjector,
    RateLimiter,
    RawReply,
    error_reply,
    malformed_reply,
    rate_limit_reply,
    server_error_reply,
)
from sim.mockllm.policies import Reply, build_policy

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class ServerStats(BaseModel):
    """Counters of one server's life; served as JSON on GET /stats."""

    requests: int = Field(default=0, description="HTTP requests of any kind.")
    completions: int = Field(default=0, description="POSTs to chat/completions (the fault ordinal).")
    by_status: dict[int, int] = Field(default_factory=dict, description="Answered requests per HTTP status.")
    rate_limited: int = Field(default=0, description="429 answers, from faults and the limiter.")
    faults: dict[str, int] = Field(default_factory=dict, description="Injected faults per kind.")
    cancelled: int = Field(default=0, description="Requests whose client went away before the answer.")
    in_flight: int = Field(default=0, description="Completions being handled now.")
    max_in_flight: int = Field(default=0, description="Most completions handled at once.")
    prompt_tokens: int = Field(default=0, description="Sum of reported prompt tokens.")
    completion_tokens: int = Field(default=0, description="Sum of reported completion tokens.")
    tool_calls: int = Field(default=0, description="Tool calls answered.")


def _raw(reply: RawReply) -> web.Response:
    return web.Response(status=reply.status, body=reply.body, content_type=reply.content_type, headers=reply.headers)


def _bad_request(message: str, code: str) -> web.Response:
    return _raw(error_reply(400, message, "invalid_request_error", code))


def count_tokens(text: str) -> int:
    """The mock's deterministic token estimate: four characters a token."""
    return len(text) // 4


def completion_body(completion_id: str, model: str, created: int, reply: Reply, prompt_tokens: int) -> dict[str, Any]:
    """A chat.completion object as the OpenAI API returns it."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ]
    output = (reply.text or "") + "".join(c.name + c.arguments for c in reply.tool_calls)
    completion_tokens = count_tokens(output) + 1
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class MockLLMApp:
    """Request handling; all state lives here, one instance per server."""

    def __init__(self, config: MockConfig) -> None:
        self.config = config
        self.stats = ServerStats()
        self._policy = build_policy(config.policy)
        self._faults = FaultInjector(config.faults, config.seed)
        self._limiter = RateLimiter(config.rate_limit) if config.rate_limit else None
        # A separate RNG so adding jitter does not change which requests get probabilistic faults.
        self._jitter = random.Random(f"{config.seed}:jitter")

    def build(self) -> web.Application:
        # Long agent conversations outgrow aiohttp's 1 MiB default body limit.
        app = web.Application(middlewares=[self._count], client_max_size=64 * 1024 * 1024)
        for prefix in ("/v1", ""):
            app.router.add_post(f"{prefix}/chat/completions", self._chat)
            app.router.add_get(f"{prefix}/models", self._models)
        app.router.add_get("/health", self._health)
        app.router.add_get("/stats", self._stats)
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
        self.stats.by_status[response.status] = self.stats.by_status.get(response.status, 0) + 1
        if response.status == 429:
            self.stats.rate_limited += 1
        return response

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response(json.loads(self.stats.model_dump_json()))

    async def _models(self, request: web.Request) -> web.Response:
        model = {"id": self.config.model, "object": "model", "created": 0, "owned_by": "squall"}
        return web.json_response({"object": "list", "data": [model]})

    async def _chat(self, request: web.Request) -> web.Response:
        self.stats.completions += 1
        ordinal = self.stats.completions
        self.stats.in_flight += 1
        self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)
        try:
            response = await self._complete(request, ordinal)
        finally:
            self.stats.in_flight -= 1
        response.headers["x-request-id"] = f"req_{ordinal}"
        return response

    async def _complete(self, request: web.Request, ordinal: int) -> web.Response:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _bad_request("Request body is not valid JSON.", "invalid_json")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
            return _bad_request("'messages' must be a non-empty list.", "invalid_request")
        if not all(isinstance(m, dict) for m in body["messages"]):
            return _bad_request("Each message must be an object.", "invalid_request")
        tools = body.get("tools") or []
        if not isinstance(tools, list):
            return _bad_request("'tools' must be a list.", "invalid_request")
        if body.get("stream"):
            return _bad_request(
                "Streaming is not supported by the squall mock LLM server; send stream=false.", "stream_not_supported"
            )
        if self._limiter is not None and (wait := self._limiter.acquire()) is not None:
            limit = self._limiter.config
            message = f"Rate limit reached: {limit.rpm} requests per {limit.window_s:g}s. Try again in {wait:.3f}s."
            return _raw(rate_limit_reply(wait, limit.retry_after_ms_header, message))

        completion_id = f"chatcmpl-mock{ordinal:06d}"
        created = int(time.time())
        rule = self._faults.match(ordinal)
        if rule is not None:
            self.stats.faults[rule.kind] = self.stats.faults.get(rule.kind, 0) + 1
            early = await self._apply_fault(rule)
            if early is not None:
                return early
        await self._delay()
        if rule is not None and rule.kind == "malformed":
            return _raw(malformed_reply(rule.variant, completion_id, self.config.model, created))

        messages: list[dict[str, Any]] = body["messages"]
        reply = self._policy.respond(messages, tools)
        prompt_tokens = count_tokens(json.dumps(messages, sort_keys=True, separators=(",", ":")))
        result = completion_body(completion_id, self.config.model, created, reply, prompt_tokens)
        self.stats.prompt_tokens += result["usage"]["prompt_tokens"]
        self.stats.completion_tokens += result["usage"]["completion_tokens"]
        self.stats.tool_calls += len(reply.tool_calls)
        return web.json_response(result)

    async def _apply_fault(self, rule: FaultRule) -> web.Response | None:
        """Answer a fault at once, or (timeout) hang and return None to go on answering normally."""
        if rule.kind == "rate_limit":
            message = f"Rate limit reached. Please try again in {rule.retry_after_s:g}s."
            return _raw(rate_limit_reply(rule.retry_after_s, rule.retry_after_ms_header, message))
        if rule.kind == "server_error":
            return _raw(server_error_reply(rule.status))
        if rule.kind == "timeout":
            await asyncio.sleep(rule.hang_s)
        return None

    async def _delay(self) -> None:
        jitter = self._jitter.uniform(0.0, self.config.jitter_s) if self.config.jitter_s else 0.0
        delay = self.config.latency_s + jitter
        if delay > 0:
            await asyncio.sleep(delay)


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


async def start_mock_server(config: MockConfig, host: str = "127.0.0.1", port: int = 0) -> MockServer:
    """Start serving in the running loop; port 0 picks a free port (see `.port` / `.url`)."""
    app = MockLLMApp(config)
    # handler_cancellation: a client that gives up on a hang frees its handler; short shutdown so close() never
    # waits out a long hang.
    runner = web.AppRunner(app.build(), access_log=None, handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    bound_port = int(runner.addresses[0][1])
    return MockServer(runner, app, host, bound_port)


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
