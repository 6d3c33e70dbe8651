"""A lean HTTP/1.1 client for the model hot path: POST a body, read the whole answer, keep the connection.

Why not aiohttp: measured side by side (100 requests in flight, 8 KB JSON bodies, uvloop), aiohttp's client costs
~0.38 ms of CPU per request and a bare protocol ~0.12 ms, and every model request of a run pays it. A model
endpoint needs little of HTTP: one method, a body whose length is known, an answer framed by Content-Length,
chunks or the end of the connection, TLS, keep-alive. That little is here; what squall never asks of it
(proxies, redirects, cookies, streaming) is not.

A connection serves one request at a time and goes back to its host's pool when the answer is complete and the
server keeps it open; the pool has no size cap (a connection per request in flight, as squall's gateway wants).
A request on a reused connection that the server closed before answering a byte (it timed the idle connection
out as the request left) is sent once more on a new connection, as browsers do; anything else is the caller's.
"""

from __future__ import annotations

import asyncio
import ssl
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import urlsplit

MAX_HEAD_BYTES = 64 * 1024
MAX_BODY_BYTES = 256 * 1024 * 1024
IDLE_S = 30.0
"""A connection idle longer than this is closed rather than reused: servers time idle ones out (uvicorn after 5 s,
most load balancers after 60 s) and the retry above covers the shorter ones."""


class HttpConnectTimeout(Exception):
    """No connection within the connect timeout."""


class HttpTimeout(Exception):
    """No complete answer within the request's total timeout."""


class HttpConnectionError(Exception):
    """The connection failed (refused, reset, closed mid-answer, TLS, DNS) or the answer broke HTTP."""


class HttpReply(NamedTuple):
    """A tuple: one is made per request, and a frozen dataclass's __init__ costs several times a tuple's."""

    status: int
    headers: dict[str, str]
    """Lower-cased names; a repeated header keeps its last value."""
    body: bytes


@dataclass(frozen=True, slots=True)
class Target:
    """Where requests go, parsed once: ``Target.of("https://host:8443/v1/chat/completions")``."""

    scheme: str
    host: str
    port: int
    path: str

    @classmethod
    def of(cls, url: str) -> Target:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return cls(parts.scheme, parts.hostname, port, path)

    def head(self, headers: dict[str, str]) -> bytes:
        """The request line and headers, less Content-Length (added per request)."""
        default = 443 if self.scheme == "https" else 80
        host = self.host if ":" not in self.host else f"[{self.host}]"
        host = host if self.port == default else f"{host}:{self.port}"
        lines = [f"POST {self.path} HTTP/1.1", f"Host: {host}", "User-Agent: squall", "Accept: application/json"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        return ("\r\n".join(lines) + "\r\nContent-Length: ").encode("latin-1")


_HEAD, _LENGTH, _CHUNK_SIZE, _CHUNK_DATA, _TRAILERS, _UNTIL_CLOSE, _IDLE = range(7)


class _Connection(asyncio.Protocol):
    """One keep-alive connection: writes a request, parses its answer as bytes arrive."""

    def __init__(self, key: tuple[str, str, int]) -> None:
        self.key = key
        """(scheme, host, port): the pool it goes back to."""
        self.transport: asyncio.WriteTransport | None = None
        self.closed = False
        self.idle_since = time.monotonic()
        self.received = 0
        """Bytes of the current answer received so far (0: the server said nothing yet)."""
        self._buf = bytearray()
        self._state = _IDLE
        self._need = 0
        self._status = 0
        self._headers: dict[str, str] = {}
        self._parts: list[bytes] = []
        self._got = 0
        self._keep = False
        self._reply: asyncio.Future[HttpReply] | None = None
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # a stream transport (uvloop's are not asyncio.Transport)

    def send(self, data: bytes) -> asyncio.Future[HttpReply]:
        assert self.transport is not None and self._state == _IDLE
        self._reply = self.loop.create_future()
        self._state, self.received = _HEAD, 0
        self.transport.write(data)
        return self._reply

    def expire(self) -> None:
        """The request's total timeout passed: fail its answer (the connection's state is unknown: drop it)."""
        if self._reply is not None:
            self._fail(HttpTimeout())

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        if self._reply is None:  # bytes nobody asked for: the connection cannot be trusted any more
            self.abort()
            return
        try:
            if self._state == _HEAD and not self._buf:
                # The common case, read without copying into the buffer: the head (and often the whole body) in
                # one piece. What follows the head goes the general way.
                end = data.find(b"\r\n\r\n")
                if end >= 0:
                    self._start(data[:end].decode("latin-1"))
                    if self._state == _LENGTH and len(data) - end - 4 == self._need:
                        self._finish(data[end + 4 :], reusable=True)
                        return
                    data = data[end + 4 :]
            self._buf += data
            self._advance()
        except HttpConnectionError as exc:
            self._fail(exc)

    def eof_received(self) -> bool:
        return False  # close our side too; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._reply is None or self._reply.done():
            return
        if self._state == _UNTIL_CLOSE:
            self._finish(bytes(self._buf), reusable=False)
        elif self.received == 0:
            self._fail(HttpConnectionError("the server closed the connection before answering"))
        else:
            self._fail(HttpConnectionError(f"the server closed the connection mid-answer ({exc or 'end of stream'})"))

    def _advance(self) -> None:
        buf = self._buf
        while True:
            if self._state == _HEAD:
                end = buf.find(b"\r\n\r\n")
                if end < 0:
                    if len(buf) > MAX_HEAD_BYTES:
                        raise HttpConnectionError("the answer's headers exceed 64 KiB")
                    return
                head = bytes(buf[:end]).decode("latin-1")
                del buf[: end + 4]
                self._start(head)
            elif self._state == _LENGTH:
                if len(buf) < self._need:
                    return
                body = bytes(buf[: self._need])
                del buf[: self._need]
                self._finish(body, reusable=True)
                return
            elif self._state == _CHUNK_SIZE:
                end = buf.find(b"\r\n")
                if end < 0:
                    return
                try:
                    size = int(bytes(buf[:end]).split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise HttpConnectionError(f"bad chunk size line: {bytes(buf[:end])[:40]!r}") from None
                del buf[: end + 2]
                self._state, self._need = (_TRAILERS, 0) if size == 0 else (_CHUNK_DATA, size)
                self._grow(size)
                self._got += size
            elif self._state == _CHUNK_DATA:
                if len(buf) < self._need + 2:
                    return
                self._parts.append(bytes(buf[: self._need]))
                del buf[: self._need + 2]
                self._state = _CHUNK_SIZE
            elif self._state == _TRAILERS:
                end = buf.find(b"\r\n")
                if end < 0:
                    return
                del buf[: end + 2]
                if end == 0:
                    self._finish(b"".join(self._parts), reusable=True)
                    return
            else:  # _UNTIL_CLOSE: connection_lost ends the body; _IDLE: handled in data_received
                if len(buf) > MAX_BODY_BYTES:
                    raise HttpConnectionError("the answer exceeds 256 MiB")
                return

    def _start(self, head: str) -> None:
        lines = head.split("\r\n")
        version, _, rest = lines[0].partition(" ")
        try:
            status = int(rest[:3])
        except ValueError:
            raise HttpConnectionError(f"not an HTTP answer: {lines[0][:80]!r}") from None
        if 100 <= status < 200:
            return  # an interim answer (103 Early Hints): the real one follows
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        self._status, self._headers, self._parts, self._got = status, headers, [], 0
        self._keep = version == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
        if status in (204, 304):
            self._state, self._need = _LENGTH, 0
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            self._state = _CHUNK_SIZE
        elif "content-length" in headers:
            try:
                self._need = int(headers["content-length"])
            except ValueError:
                raise HttpConnectionError(f"bad Content-Length: {headers['content-length'][:40]!r}") from None
            self._grow(self._need)
            self._state = _LENGTH
        else:
            self._state, self._keep = _UNTIL_CLOSE, False

    def _grow(self, size: int) -> None:
        if self._got + size > MAX_BODY_BYTES:
            raise HttpConnectionError("the answer exceeds 256 MiB")

    def _finish(self, body: bytes, *, reusable: bool) -> None:
        reply, self._reply = self._reply, None
        self._state, self.idle_since = _IDLE, time.monotonic()
        if not (reusable and self._keep) or self._buf:
            self.abort()  # bytes past the answer, or the server will close: not reusable
        encoding = self._headers.get("content-encoding", "").lower()
        try:
            if encoding in ("gzip", "x-gzip"):
                body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
            elif encoding == "deflate":
                body = zlib.decompress(body)
        except zlib.error as exc:
            if reply is not None and not reply.done():
                reply.set_exception(HttpConnectionError(f"undecodable {encoding} body: {exc}"))
            return
        if reply is not None and not reply.done():
            reply.set_result(HttpReply(self._status, self._headers, body))

    def _fail(self, error: Exception) -> None:
        reply, self._reply = self._reply, None
        self.abort()
        if reply is not None and not reply.done():
            reply.set_exception(error)


class Http1Pool:
    """Keep-alive connections by (scheme, host, port), opened as needed, never capped in number."""

    def __init__(self) -> None:
        self._idle: defaultdict[tuple[str, str, int], list[_Connection]] = defaultdict(list)
        self._ssl: ssl.SSLContext | None = None
        self._closed = False

    async def post(self, target: Target, head: bytes, body: bytes, *, total_s: float, connect_s: float) -> HttpReply:
        """Send ``head`` (from ``Target.head``) and ``body``; return the whole answer. Raises HttpConnectTimeout,
        HttpTimeout (the total, connecting included) or HttpConnectionError."""
        data = b"".join((head, str(len(body)).encode(), b"\r\n\r\n", body))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + total_s
        connection = self._take(target)
        if connection is not None:
            try:
                return await self._exchange(connection, data, deadline)
            except HttpConnectionError:
                if connection.received != 0:
                    raise
                # a kept connection the server closed unanswered: once more on a new one
        try:
            async with asyncio.timeout_at(deadline):
                connection = await self._open(target, connect_s)
        except TimeoutError:
            raise HttpTimeout from None
        return await self._exchange(connection, data, deadline)

    async def _exchange(self, connection: _Connection, data: bytes, deadline: float) -> HttpReply:
        # One timer handle for the deadline rather than an asyncio.timeout (a context manager, a task lookup and a
        # timer) per request: at the deadline the connection fails its answer with HttpTimeout.
        timer = connection.loop.call_at(deadline, connection.expire)
        try:
            reply = await connection.send(data)
        except BaseException:  # cancelled, timed out or failed mid-answer: the connection's state is unknown
            connection.abort()
            raise
        finally:
            timer.cancel()
        if not connection.closed and not self._closed:
            self._idle[connection.key].append(connection)
        return reply

    def _take(self, target: Target) -> _Connection | None:
        idle = self._idle.get((target.scheme, target.host, target.port))
        now = time.monotonic()
        while idle:
            connection = idle.pop()
            if not connection.closed and now - connection.idle_since < IDLE_S:
                return connection
            connection.abort()
        return None

    async def _open(self, target: Target, connect_s: float) -> _Connection:
        loop = asyncio.get_running_loop()
        context = None
        if target.scheme == "https":
            context = self._ssl = self._ssl or ssl.create_default_context()
        try:
            async with asyncio.timeout(connect_s):
                key = (target.scheme, target.host, target.port)
                _, connection = await loop.create_connection(
                    lambda: _Connection(key),
                    target.host,
                    target.port,
                    ssl=context,
                    server_hostname=target.host if context else None,
                )
        except TimeoutError:
            raise HttpConnectTimeout from None
        except (OSError, ssl.SSLError) as exc:
            raise HttpConnectionError(f"{type(exc).__name__}: {exc}") from exc
        return connection

    async def __aenter__(self) -> Http1Pool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        self._closed = True
        for idle in self._idle.values():
            for connection in idle:
                connection.abort()
        self._idle.clear()
