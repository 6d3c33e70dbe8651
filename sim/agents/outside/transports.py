"""The three ways to reach an outside agent: a request in, a reply out, every failure as an ``OutsideAgentError``.

Each ``send`` is bounded by the caller's timeout (``asyncio.timeout``); a command is killed by its process group
on a timeout or a cancellation, so nothing it started outlives the turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from sim.agents.outside.errors import OutsideFailed, OutsideUnreachable
from sim.agents.outside.protocol import AgentReply, AgentRequest
from sim.agents.outside.replies import MAX_REPLY_BYTES, reply_from_bytes, reply_from_json

if TYPE_CHECKING:  # aiohttp is a tenth of every `squall` start-up: imported where an HTTP agent runs
    import aiohttp

OutsideCallable = Callable[[AgentRequest], Awaitable[Any]]
"""``python:module:function``: an async callable taking the request, returning an ``AgentReply``, a dict of its
fields, or the reply as plain text."""


class Transport(Protocol):
    async def send(self, request: AgentRequest) -> AgentReply:
        """The agent's reply; raises an ``OutsideAgentError`` for anything else. The caller bounds its time."""
        ...


class HttpTransport:
    """``http:URL``: POST the request as JSON, read the reply from a 2xx JSON body. One connection pool per run."""

    def __init__(self, url: str, session: aiohttp.ClientSession) -> None:
        self.url = url
        self._session = session

    async def send(self, request: AgentRequest) -> AgentReply:
        import aiohttp

        source = f"POST {self.url}"
        try:
            async with self._session.post(self.url, json=request.model_dump(mode="json")) as response:
                body = await response.content.read(MAX_REPLY_BYTES + 1)
                if not 200 <= response.status < 300:
                    snippet = body[:300].decode("utf-8", "replace")
                    raise OutsideFailed(f"{source}: HTTP {response.status}: {snippet}")
        except aiohttp.ClientConnectionError as exc:
            # Refused, reset or closed mid-reply: nothing usable answered.
            raise OutsideUnreachable(f"{source}: {type(exc).__name__}: {exc}") from None
        except aiohttp.ClientError as exc:
            raise OutsideFailed(f"{source}: {type(exc).__name__}: {exc}") from None
        return reply_from_bytes(body, source, text_allowed=False)


class PythonTransport:
    """``python:module:function``: await the callable in this process."""

    def __init__(self, target: str, function: OutsideCallable) -> None:
        self.target = target
        self._function = function

    async def send(self, request: AgentRequest) -> AgentReply:
        source = f"python:{self.target}"
        try:
            value = await self._function(request)
        except Exception as exc:  # the agent's own bug: its turn fails, the run goes on
            raise OutsideFailed(f"{source} raised {type(exc).__name__}: {exc}"[:1000]) from exc
        if isinstance(value, str):
            return AgentReply(reply=value)
        return reply_from_json(value, source)


class CommandTransport:
    """``command:"PROG ARGS"``: one process per turn, the request on stdin, the reply on stdout.

    The program runs in a process group of its own: a timeout or a cancelled episode kills the group (the program
    and whatever it started), and the turn waits until it is gone."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = tuple(argv)

    async def send(self, request: AgentRequest) -> AgentReply:
        source = f"command {self.argv[0]}"
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise OutsideUnreachable(f"{source}: cannot start: {exc}") from None
        try:
            out, err = await _exchange(process, request.model_dump_json().encode())
        finally:
            if process.returncode is None:  # timed out or cancelled: the whole group goes
                _kill_group(process.pid)
                await process.wait()
        if process.returncode != 0:
            tail = err[-500:].decode("utf-8", "replace").strip()
            raise OutsideFailed(f"{source} exited with status {process.returncode}: {tail}")
        return reply_from_bytes(out, source, text_allowed=True)


async def _exchange(process: asyncio.subprocess.Process, request: bytes) -> tuple[bytes, bytes]:
    """``communicate``, save that a program that exits without reading its request is not a harness error (asyncio's
    own raises RuntimeError writing to the pipe it has closed): its output is the answer, as for any program."""
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None

    async def feed(stdin: asyncio.StreamWriter) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, RuntimeError):
            stdin.write(request)
            await stdin.drain()
        stdin.close()

    _, out, err = await asyncio.gather(feed(process.stdin), process.stdout.read(), process.stderr.read())
    await process.wait()
    return out, err


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(pid, signal.SIGKILL)  # the group's id is the leader's pid (start_new_session)
