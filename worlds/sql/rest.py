"""A SQL world served over HTTP (aiohttp): one GET endpoint per generated function, plus its OpenAPI document.

Routes: ``GET /api/<function>?<query>`` (encoding in ``worlds.sql.rest_schema``), ``GET /openapi.json``, and what
an HTTP-backed world needs to mirror the served one exactly: ``GET /world`` (name, instructions), ``/tools``
(the ToolSpecs), ``/tasks``; ``GET /health``. Every call goes through the world's own ``call()``, so argument
checks and messages are the in-process ones. Status codes: 200 with a JSON list of records; 400 for bad
arguments, 404 for an unknown path or function, 422 for a query SQLite refuses (an integer past 64 bits): never
5xx for anything a client sends. Binds 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from aiohttp import web

from sim.core import ToolCall, ToolResult
from worlds.sql.rest_schema import API_PREFIX, HINT_HEADER, decode_query, openapi_document
from worlds.sql.world import SqlPack

HOST = "127.0.0.1"
_STATUS_CODES = {"success": 200, "invalid_arguments": 400, "not_found": 404}
_QUOTED = re.compile(r"'([^']+)'")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(text=json.dumps(body), status=status, content_type="application/json", headers=headers)


def _error(message: str, code: str, status: str, http_status: int, parameter: str | None = None) -> web.Response:
    body = {"error": message, "code": code, "status": status, "parameter": parameter}
    return _json(body, http_status)


class RestApp:
    """Request handling for one pack; the world is stateless, so one instance serves every request."""

    def __init__(self, pack: SqlPack) -> None:
        self.pack = pack
        self._world = pack.new_world(0)
        self._specs = {spec.name: spec for spec in self._world.specs()}
        self._openapi = openapi_document(pack.name, self._world.instructions(), list(self._specs.values()))
        self.last_request = time.monotonic()
        self.requests = 0

    def build(self) -> web.Application:
        app = web.Application(middlewares=[self._touch])
        app.router.add_get(API_PREFIX + "{name}", self._call)
        app.router.add_get("/openapi.json", self._document)
        app.router.add_get("/world", self._meta)
        app.router.add_get("/tools", self._tools)
        app.router.add_get("/tasks", self._tasks)
        app.router.add_get("/health", self._health)
        return app

    async def _document(self, request: web.Request) -> web.Response:
        return _json(self._openapi)

    async def _meta(self, request: web.Request) -> web.Response:
        return _json({"name": self.pack.name, "instructions": self._world.instructions()})

    async def _tools(self, request: web.Request) -> web.Response:
        return _json([spec.model_dump(mode="json") for spec in self._specs.values()])

    async def _tasks(self, request: web.Request) -> web.Response:
        return _json([task.model_dump(mode="json") for task in self.pack.tasks()])

    async def _health(self, request: web.Request) -> web.Response:
        return _json({"ok": True, "requests": self.requests})

    @web.middleware
    async def _touch(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Counts requests for the idle timeout, and turns aiohttp's own 404/405 pages into JSON errors."""
        self.last_request = time.monotonic()
        self.requests += 1
        try:
            return await handler(request)
        except web.HTTPException as error:
            if error.status >= 500:
                raise
            code = "unknown_endpoint" if error.status == 404 else "bad_request"
            status = "not_found" if error.status == 404 else "invalid_arguments"
            return _error(f"{request.method} {request.path}: {error.reason}", code, status, error.status)

    async def _call(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        spec = self._specs.get(name)
        parameters: dict[str, Any] = dict(spec.parameters) if spec is not None else {}
        arguments = decode_query(list(request.query.items()), parameters)
        result = await self._world.call(ToolCall(id="http", name=name, arguments=arguments))
        return result_response(result, set(arguments) | set(parameters.get("properties", {})))


def result_response(result: ToolResult, names: set[str]) -> web.Response:
    """A ToolResult as HTTP: records as a JSON list (an empty result's hint in a header), errors as JSON."""
    if result.status == "success":
        content = result.content
        if isinstance(content, dict):  # {"results": [] or a row of nulls, "hint": ...}: the body stays a list
            return _json(content.get("results", []), headers={HINT_HEADER: json.dumps(content.get("hint", ""))})
        return _json(content)
    error = result.content if isinstance(result.content, dict) else {}
    message = str(error.get("error", result.content))
    named = [q for q in _QUOTED.findall(message) if q in names]
    parameter = named[0] if named else None
    http_status = _STATUS_CODES.get(result.status, 422)  # the world's other failures are the query's, not ours
    return _error(message, result.error_code or "failed", result.status, http_status, parameter)


class RestServer:
    """A started server; ``async with await start_rest_server(pack) as server:`` closes it on exit."""

    def __init__(self, runner: web.AppRunner, app: RestApp, port: int) -> None:
        self._runner = runner
        self.app = app
        self.port = port
        self.url = f"http://{HOST}:{port}"

    async def close(self) -> None:
        await self._runner.cleanup()

    async def __aenter__(self) -> RestServer:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


async def start_rest_server(pack: SqlPack, port: int = 0) -> RestServer:
    """Serve ``pack`` on 127.0.0.1 in the running loop; port 0 picks a free port."""
    app = RestApp(pack)
    runner = web.AppRunner(app.build(), access_log=None, handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    try:
        await web.TCPSite(runner, HOST, port).start()
    except BaseException:
        await runner.cleanup()
        raise
    return RestServer(runner, app, int(runner.addresses[0][1]))


async def serve_until_stopped(
    pack: SqlPack,
    port: int = 0,
    port_file: Path | None = None,
    idle_timeout_s: float | None = None,
    on_ready: Callable[[RestServer], None] | None = None,
    poll_s: float = 0.5,
) -> str:
    """Serve until SIGTERM/SIGINT, ``idle_timeout_s`` without a request, or the parent process exiting (the
    parent id changes when it dies). Returns why it stopped."""
    server = await start_rest_server(pack, port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    handled: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not in the main thread
            loop.add_signal_handler(sig, stop.set)
            handled.append(sig)
    parent = os.getppid()
    try:
        if port_file is not None:
            tmp = port_file.with_name(port_file.name + ".tmp")  # write then rename: a poller never reads half
            tmp.write_text(f"{server.port}\n")
            os.replace(tmp, port_file)
        if on_ready is not None:
            on_ready(server)
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=poll_s)
            if stop.is_set():
                return "signal"
            if idle_timeout_s is not None and time.monotonic() - server.app.last_request > idle_timeout_s:
                return "idle"
            if os.getppid() != parent:
                return "parent exited"
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)
        await server.close()
