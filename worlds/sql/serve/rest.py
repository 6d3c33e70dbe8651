"""A SQL world served over HTTP (aiohttp): one GET endpoint per generated function, plus its OpenAPI document.

Routes: ``GET /api/<function>?<query>`` (encoding in ``worlds.sql.serve.rest_schema``), ``GET /openapi.json``, and what
an HTTP-backed world needs to mirror the served one exactly: ``GET /world`` (name, instructions), ``/tools``
(the ToolSpecs), ``/tasks`` (the gold: only with the server's token, see ``worlds.sql.serve.rest_token``);
``GET /health``. Every call goes through the world's own ``call()``, so argument checks and messages are the
in-process ones. Status codes: 200 with a JSON list of records; 400 for bad arguments, 401 for ``/tasks`` without
the token, 404 for an unknown path or function, 405 (with ``Allow``) for a method other than GET or HEAD, 414/431
for a request line or header too long (``worlds.sql.serve.rest_http``), 422 for a query SQLite refuses: never 5xx for
anything a client sends, and every body JSON. Binds 127.0.0.1 only.
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
from types import MappingProxyType, TracebackType
from typing import Any

from aiohttp import web

from sim.core import ToolCall, ToolResult
from worlds.sql.engine.world import SqlPack
from worlds.sql.serve.rest_http import JsonErrorServer, error_response, json_response
from worlds.sql.serve.rest_schema import API_PREFIX, HINT_HEADER, decode_query, openapi_document
from worlds.sql.serve.rest_token import authorized, new_token, remove_token, write_token

HOST = "127.0.0.1"
ALLOWED_METHODS = "GET, HEAD"
_STATUS_CODES = MappingProxyType({"success": 200, "invalid_arguments": 400, "not_found": 404})
_QUOTED = re.compile(r"'([^']+)'")
_CHALLENGE = MappingProxyType({"WWW-Authenticate": 'Bearer realm="squall"'})  # RFC 9110: a 401 names its scheme

Handler = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]


class RestApp:
    """Request handling for one pack; the world is stateless, so one instance serves every request. ``token``
    guards ``/tasks``."""

    def __init__(self, pack: SqlPack, token: str) -> None:
        self.pack = pack
        self._token = token
        self._world = pack.new_world(0)
        self._specs = {spec.name: spec for spec in self._world.specs()}
        self._openapi = openapi_document(pack.name, self._world.instructions(), list(self._specs.values()))
        self._routes: dict[str, Handler] = {
            "/openapi.json": self._document,
            "/world": self._meta,
            "/tools": self._tools,
            "/tasks": self._tasks,
            "/health": self._health,
        }
        self.last_request = time.monotonic()
        self.requests = 0

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        """Every request: counted for the idle timeout, routed by path, then by method."""
        self.last_request = time.monotonic()
        self.requests += 1
        handler = self._route(request.path)
        if handler is None:
            return error_response(f"{request.method} {request.path}: Not Found", "unknown_endpoint", "not_found", 404)
        if request.method not in ("GET", "HEAD"):
            message = f"{request.method} {request.path}: Method Not Allowed (allowed: {ALLOWED_METHODS})"
            return error_response(
                message, "method_not_allowed", "invalid_arguments", 405, headers={"Allow": ALLOWED_METHODS}
            )
        return await handler(request)

    def _route(self, path: str) -> Handler | None:
        name = path.removeprefix(API_PREFIX)
        if name != path:
            return self._call if name and "/" not in name else None  # one segment: a function's name
        return self._routes.get(path)

    async def _document(self, request: web.BaseRequest) -> web.Response:
        return json_response(self._openapi)

    async def _meta(self, request: web.BaseRequest) -> web.Response:
        return json_response({"name": self.pack.name, "instructions": self._world.instructions()})

    async def _tools(self, request: web.BaseRequest) -> web.Response:
        return json_response([spec.model_dump(mode="json") for spec in self._specs.values()])

    async def _tasks(self, request: web.BaseRequest) -> web.Response:
        if not authorized(request.headers.get("Authorization"), self._token):
            message = "The tasks (gold calls and answers) are served to the harness only: send the server's token."
            return error_response(message, "unauthorized", "invalid_arguments", 401, headers=_CHALLENGE)
        return json_response([task.model_dump(mode="json") for task in self.pack.tasks()])

    async def _health(self, request: web.BaseRequest) -> web.Response:
        return json_response({"ok": True, "requests": self.requests})

    async def _call(self, request: web.BaseRequest) -> web.Response:
        name = request.path.removeprefix(API_PREFIX)
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
            hint = json.dumps(content.get("hint", ""))
            return json_response(content.get("results", []), headers={HINT_HEADER: hint})
        return json_response(content)
    error = result.content if isinstance(result.content, dict) else {}
    message = str(error.get("error", result.content))
    named = [q for q in _QUOTED.findall(message) if q in names]
    parameter = named[0] if named else None
    http_status = _STATUS_CODES.get(result.status, 422)  # the world's other failures are the query's, not ours
    return error_response(message, result.error_code or "failed", result.status, http_status, parameter)


class RestServer:
    """A started server; ``async with await start_rest_server(pack) as server:`` closes it on exit. ``token`` is
    what ``/tasks`` asks for (the in-process harness passes it to ``HttpSqlPack``)."""

    def __init__(self, runner: web.BaseRunner, app: RestApp, port: int, token: str) -> None:
        self._runner = runner
        self.app = app
        self.port = port
        self.token = token
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
    token = new_token()
    app = RestApp(pack, token)
    runner = web.ServerRunner(JsonErrorServer(app.handle, handler_cancellation=True), shutdown_timeout=0.5)
    await runner.setup()
    try:
        await web.TCPSite(runner, HOST, port).start()
    except BaseException:
        await runner.cleanup()
        raise
    return RestServer(runner, app, int(runner.addresses[0][1]), token)


async def serve_until_stopped(
    pack: SqlPack,
    port: int = 0,
    port_file: Path | None = None,
    idle_timeout_s: float | None = None,
    on_ready: Callable[[RestServer], None] | None = None,
    poll_s: float = 0.5,
) -> str:
    """Serve until SIGTERM/SIGINT, ``idle_timeout_s`` without a request, or the parent process exiting (the
    parent id changes when it dies). Returns why it stopped. The token is left for the harness (``rest_token``)
    before the port file is written, so a harness that sees the port finds the token too."""
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
        write_token(server.port, server.token)
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
        remove_token(server.port, server.token)
        await server.close()
