"""A world whose calls go over HTTP to a served SQL world (``squall serve``): ``--world http://127.0.0.1:PORT``.

The pack reads the served world's name, instructions, tools and tasks once, at load (a blocking read: loading
happens before episodes start); the tasks hold the gold, so that one read carries the server's token (given, or
found where ``squall serve`` left it: ``worlds.sql.serve.rest_token``); each ``call()`` sends one GET and turns the
response back into the ToolResult the served world produced, so an episode over HTTP records what an in-process
one does. Each call opens its own client session: a world has no close hook a shared session could hang on, and
a loopback connect costs well under a millisecond.
"""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, cast

import aiohttp

from sim.core import Task, ToolCall, ToolResult, ToolSpec, WorldContext, failure
from sim.core.tools import ToolStatus
from worlds.sql.serve.rest_schema import API_PREFIX, HINT_HEADER, encode_query
from worlds.sql.serve.rest_token import BEARER, read_token

_LOAD_TIMEOUT_S = 30.0
_CALL_TIMEOUT_S = 60.0
_STATUSES = frozenset({"invalid_arguments", "not_found", "failed"})
_NO_TOKEN = "no token from its `squall serve` was found (run the harness as the user who started it)"
_BAD_TOKEN = "the token was not its own (another server on that port?)"


def _get_json(base_url: str, path: str, token: str | None = None) -> Any:
    headers = {"Authorization": BEARER + token} if token is not None else {}
    try:
        with urllib.request.urlopen(
            urllib.request.Request(base_url + path, headers=headers), timeout=_LOAD_TIMEOUT_S
        ) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        if error.code == 401:
            raise ValueError(
                f"{base_url}{path}: the served world refused its tasks: {_NO_TOKEN if token is None else _BAD_TOKEN}"
            ) from error
        raise ValueError(f"{base_url}{path}: cannot read the served world: {error}") from error
    except (OSError, ValueError) as error:
        raise ValueError(f"{base_url}{path}: cannot read the served world: {error}") from error


def _port(base_url: str) -> int:
    try:
        return urllib.parse.urlsplit(base_url).port or 80
    except ValueError:  # a port out of range: no token file names it
        return 0


def to_result(call: ToolCall, http_status: int, body: Any, hint: str | None) -> ToolResult:
    """The ToolResult a REST response stands for (the inverse of ``worlds.sql.serve.rest.result_response``)."""
    if http_status == 200 and isinstance(body, list):
        if hint is not None:  # no rows, or an aggregate's row of nulls
            return ToolResult(call_id=call.id, status="success", content={"results": body, "hint": json.loads(hint)})
        return ToolResult(call_id=call.id, status="success", content=body)
    if isinstance(body, dict) and body.get("status") in _STATUSES and isinstance(body.get("error"), str):
        return failure(call, cast(ToolStatus, body["status"]), str(body.get("code", "failed")), body["error"])
    return failure(call, "failed", "bad_response", f"The world server answered HTTP {http_status} unexpectedly.")


class HttpSqlWorld:
    """One episode's handle on a served SQL world; stateless like the world it stands for."""

    def __init__(self, base_url: str, name: str, specs: list[ToolSpec], instructions: str, seed: int = 0) -> None:
        self.name = name
        self.seed = seed
        self._base_url = base_url
        self._specs = specs
        self._by_name = {spec.name: spec for spec in specs}
        self._instructions = instructions

    def specs(self) -> list[ToolSpec]:
        return list(self._specs)

    def instructions(self) -> str:
        return self._instructions

    async def call(self, call: ToolCall) -> ToolResult:
        spec = self._by_name.get(call.name)
        parameters: dict[str, Any] = dict(spec.parameters) if spec is not None else {}
        url = self._base_url + API_PREFIX + urllib.parse.quote(call.name, safe="")
        query = urllib.parse.urlencode(encode_query(call.arguments, parameters))
        timeout = aiohttp.ClientTimeout(total=_CALL_TIMEOUT_S)
        try:
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.get(f"{url}?{query}" if query else url) as response,
            ):
                text = await response.text()
                body = json.loads(text) if text else None
                return to_result(call, response.status, body, response.headers.get(HINT_HEADER))
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            return failure(call, "unavailable", "world_unreachable", f"The world server did not answer: {error}")

    def snapshot(self) -> dict[str, Any]:
        return {}

    def restore(self, snapshot: Any) -> None:
        return None

    def state_hash(self) -> str:
        return hashlib.sha256(self.name.encode()).hexdigest()[:16]  # as the served SqlWorld hashes


class HttpSqlPack:
    """The served world's tasks and tools, read once; ``new_world`` is cheap. ``token``: the server's (default:
    the one its ``squall serve`` left for this port). Raises ValueError when the server cannot be read, refuses
    the tasks, or answers with something that is not a served world."""

    def __init__(self, base_url: str, token: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        if token is None:
            token = read_token(_port(self.base_url))
        meta = _get_json(self.base_url, "/world")
        try:
            self.name = str(meta["name"])
            self._instructions = str(meta["instructions"])
            self._specs = [ToolSpec.model_validate(s) for s in _get_json(self.base_url, "/tools")]
            self._tasks = tuple(Task.model_validate(t) for t in _get_json(self.base_url, "/tasks", token))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{self.base_url}: not a served squall world: {error}") from error

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def tool_specs(self) -> list[ToolSpec]:
        return list(self._specs)

    def new_world(self, seed: int, context: WorldContext | None = None) -> HttpSqlWorld:
        return HttpSqlWorld(self.base_url, self.name, self._specs, self._instructions, seed=seed)
