"""A lean HTTP/1.1 front for the one request a load test repeats: a plain keep-alive chat completion POST.

Why: aiohttp's web server spent ~0.25 ms of CPU per request on parsing, request and response objects, middleware and
routing; at hundreds of requests a second on the machine that runs the harness being measured, that is CPU taken from
the measurement. This protocol answers ``POST /v1/chat/completions`` (and ``/chat/completions``) with
``Content-Length``, a ``Host`` and nothing unusual itself, with the same bytes aiohttp's app writes (headers in the
same order; only Date differs with the clock). Every other request (any other route or method, HTTP/1.0, chunked
bodies, Expect, Upgrade, Connection: close, a compressed body, a head or body over aiohttp's limits, anything it does
not parse strictly) hands the connection, with all its unread bytes, to the aiohttp app, which then serves it as
before. Requests on one connection are answered in order, one at a time, as aiohttp does.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import re
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import cast

from aiohttp.http import SERVER_SOFTWARE
from aiohttp.tcp_helpers import tcp_keepalive, tcp_nodelay

from sim.mockllm.completions import Admitted, Completions
from sim.mockllm.replies import RawReply

_FAST_TARGETS = (b"POST /v1/chat/completions HTTP/1.1", b"POST /chat/completions HTTP/1.1")
# A header line as aiohttp's parser reads it the same way: a token name, visible-ASCII value, optional spaces.
_FIELD = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*((?:[\x21-\x7e][\x20-\x7e]*)?[\x21-\x7e]|)[ \t]*")
_HANDED_OFF_HEADERS = frozenset({b"transfer-encoding", b"expect", b"upgrade", b"content-encoding", b"te"})
_MAX_HEAD = 8190  # aiohttp's per-line limit: a head within it never hits one of aiohttp's limits
_MAX_HEADERS = 100
_KEEPALIVE_S = 3630.0  # aiohttp's default keepalive_timeout: an idle connection is closed after it
_REASONS = {s.value: s.phrase for s in HTTPStatus}
_HEADS_KEPT = 1024

ProtocolFactory = Callable[[], asyncio.Protocol]
_log = logging.getLogger("aiohttp.server")


def parse_head(head: bytes, max_body: int) -> int | None:
    """The Content-Length of a request head this front answers, or None (hand the connection to aiohttp)."""
    lines = head.split(b"\r\n")
    if lines[0] not in _FAST_TARGETS or len(head) > _MAX_HEAD or len(lines) > _MAX_HEADERS:
        return None
    length: int | None = None
    hosts = 0
    for line in lines[1:]:
        field = _FIELD.fullmatch(line)
        if field is None:
            return None
        name, value = field.group(1).lower(), field.group(2)
        if name == b"content-length":
            if length is not None or not value.isdigit() or len(value) > 18:
                return None
            length = int(value)
        elif name == b"host":
            hosts += 1 if value else _MAX_HEADERS  # an empty Host: aiohttp's to judge
        elif name in _HANDED_OFF_HEADERS or (name == b"connection" and value.lower() != b"keep-alive"):
            return None
    if length is None or hosts != 1 or length > max_body:
        return None
    return length


class _Dates:
    """The Date header, formatted once a second (as aiohttp does)."""

    def __init__(self) -> None:
        self._second = -1
        self._text = ""

    def now(self) -> str:
        second = int(time.time())
        if second != self._second:
            self._second, self._text = second, email.utils.formatdate(second, usegmt=True)
        return self._text


def response_bytes(reply: RawReply, ordinal: int, date: str, *, close: bool = False) -> bytes:
    """An answer as aiohttp's app writes it: its headers, then Content-Type, x-request-id, Content-Length, Date."""
    content_type = reply.content_type if reply.charset is None else f"{reply.content_type}; charset={reply.charset}"
    lines = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, '')}\r\n"]
    lines += [f"{name}: {value}\r\n" for name, value in reply.headers.items()]
    lines.append(f"Content-Type: {content_type}\r\n")
    if ordinal:
        lines.append(f"x-request-id: req_{ordinal}\r\n")
    lines.append(f"Content-Length: {len(reply.body)}\r\nDate: {date}\r\nServer: {SERVER_SOFTWARE}\r\n")
    if close:
        lines.append("Connection: close\r\n")
    lines.append("\r\n")
    return "".join(lines).encode() + reply.body


_INTERNAL_ERROR = RawReply(
    500,
    f"500 Internal Server Error\n\n{HTTPStatus.INTERNAL_SERVER_ERROR.description}".encode(),
    content_type="text/plain",
    charset="utf-8",
)


class FastFront:
    """The connections this front holds, for shutdown; ``protocol`` is the listening server's protocol factory."""

    def __init__(self, completions: Completions, fallback: ProtocolFactory, max_body: int) -> None:
        self.completions = completions
        self.fallback = fallback
        self.max_body = max_body
        self.dates = _Dates()
        self.connections: set[FastHTTP] = set()
        self.heads: dict[bytes, int | None] = {}  # request head -> parse_head: a client repeats its heads
        self.closing = False
        self._idle: asyncio.Event | None = None

    def protocol(self) -> asyncio.Protocol:
        return FastHTTP(self)

    def content_length(self, head: bytes) -> int | None:
        heads = self.heads
        if head in heads:
            return heads[head]
        if len(heads) >= _HEADS_KEPT:
            heads.clear()
        heads[head] = length = parse_head(head, self.max_body)
        return length

    def became_idle(self) -> None:
        if self._idle is not None and not any(c.busy for c in self.connections):
            self._idle.set()

    async def shutdown(self, timeout_s: float) -> None:
        """As aiohttp's server shuts down: idle connections close now, busy ones after their answer or timeout_s."""
        self.closing = True
        for connection in list(self.connections):
            if not connection.busy:
                connection.close()
        if any(c.busy for c in self.connections):
            self._idle = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), timeout_s)
        for connection in list(self.connections):
            connection.close()  # a request still waiting is cancelled, as aiohttp cancels its handler


class FastHTTP(asyncio.Protocol):
    """One client connection, until it closes or is handed to aiohttp."""

    def __init__(self, front: FastFront) -> None:
        self._front = front
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._pending: Admitted | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._idle_timer: asyncio.TimerHandle | None = None
        self._close_at = 0.0
        self._ordinal = 0  # of the request being answered
        self._awaiting: int | None = None  # its body's length, until the body is in
        self._parsing = False
        self.busy = False  # from a request's head in to its answer out

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        tcp_nodelay(transport, True)  # both as aiohttp's server sets them
        tcp_keepalive(transport)
        self._front.connections.add(self)
        self._close_at = self._loop.time() + _KEEPALIVE_S
        self._idle_timer = self._loop.call_at(self._close_at, self._idle_check)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if not self.busy:
            self._next()
        elif self._awaiting is not None:
            self._body_arrived()

    def connection_lost(self, exc: Exception | None) -> None:
        self._front.connections.discard(self)
        self._transport = None
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        if self.busy:  # the client went away before its answer: as aiohttp cancels the handler
            if self._timer is not None:
                self._timer.cancel()
            stats = self._front.completions.stats
            stats.in_flight -= 1
            stats.cancelled += 1
            self._pending = self._timer = None
            self._awaiting = None
            self.busy = False
            self._front.became_idle()

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def _idle_check(self) -> None:
        self._idle_timer = None
        if self._transport is None:
            return
        if self._loop.time() < self._close_at or self.busy:
            self._idle_timer = self._loop.call_at(max(self._close_at, self._loop.time() + 1), self._idle_check)
        else:
            self._transport.close()

    def _next(self) -> None:
        """Answer the requests buffered, in order, until one must wait (its body, its latency) or is handed off."""
        buffer = self._buffer
        self._parsing = True
        while buffer and self._transport is not None and not self.busy:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > _MAX_HEAD:
                    self._hand_off()
                break
            length = self._front.content_length(bytes(buffer[:end]))
            if length is None:
                self._hand_off()
                break
            del buffer[: end + 4]
            # Counted once its head is in, as aiohttp starts the handler then (a body cut short is a cancelled one).
            completions = self._front.completions
            completions.stats.requests += 1
            self._ordinal = completions.start()
            self.busy = True
            self._awaiting = length
            self._body_arrived()
        self._parsing = False

    def _body_arrived(self) -> None:
        length = self._awaiting
        if length is None or len(self._buffer) < length:
            return
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        self._awaiting = None
        self._serve(body)

    def _hand_off(self) -> None:
        transport = self._transport
        assert transport is not None
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        self._front.connections.discard(self)
        self._transport = None
        protocol = self._front.fallback()
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        data, self._buffer = bytes(self._buffer), bytearray()
        protocol.data_received(data)

    def _serve(self, body: bytes) -> None:
        completions = self._front.completions
        ordinal = self._ordinal
        try:
            result = completions.admit(body, ordinal)
        except Exception:
            self._fail()
            return
        if isinstance(result, RawReply):
            self._answer(result)
            return
        self._pending = result
        hang_s = result.hang_s
        if hang_s is not None:
            self._timer = self._loop.call_later(hang_s, self._after_hang)
        else:
            self._after_hang()

    def _after_hang(self) -> None:
        pending = self._pending
        assert pending is not None
        delay = self._front.completions.delay_s(pending)
        if delay > 0:
            self._timer = self._loop.call_later(delay, self._finish)
        else:
            self._finish()

    def _finish(self) -> None:
        pending = self._pending
        assert pending is not None
        self._pending = self._timer = None
        try:
            reply = self._front.completions.finish(pending)
        except Exception:
            self._fail()
            return
        self._answer(reply)

    def _answer(self, reply: RawReply) -> None:
        completions = self._front.completions
        completions.stats.in_flight -= 1
        completions.answered(reply.status)
        ordinal, self._ordinal = self._ordinal, 0
        self.busy = False
        transport = self._transport
        if transport is None:
            return
        transport.write(response_bytes(reply, ordinal, self._front.dates.now()))
        self._close_at = self._loop.time() + _KEEPALIVE_S
        if self._front.closing:
            transport.close()
            self._front.became_idle()
        elif self._buffer and not self._parsing:  # answered later than it arrived: go on with what came meanwhile
            self._next()

    def _fail(self) -> None:
        """A bug answering: as aiohttp answers an exception in a handler (500, connection closed, logged)."""
        _log.exception("Error handling request from %s", self._peer())
        self._front.completions.stats.in_flight -= 1
        self._pending = self._timer = None
        self._ordinal = 0
        self.busy = False
        transport = self._transport
        if transport is not None:
            transport.write(response_bytes(_INTERNAL_ERROR, 0, self._front.dates.now(), close=True))
            transport.close()

    def _peer(self) -> str:
        peer = self._transport.get_extra_info("peername") if self._transport is not None else None
        return str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
