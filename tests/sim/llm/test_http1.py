"""The lean HTTP/1.1 client reads every framing a model endpoint may use, keeps connections it may keep, resends only
what a stale keep-alive connection dropped unanswered, and names what went wrong."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest

from sim.llm.transports.http1 import Http1Pool, HttpConnectionError, HttpReply, HttpTimeout, Target, _Connection

Answer = Callable[[int, bytes], bytes | None]
"""(request number on its connection, request body) -> raw bytes to write back, or None to close silently."""


@dataclass
class Server:
    port: int
    connections: int = 0
    bodies: list[bytes] = field(default_factory=list)

    def target(self, path: str = "/v1/chat/completions") -> Target:
        return Target.of(f"http://127.0.0.1:{self.port}{path}")


@asynccontextmanager
async def serve(answer: Answer, *, close_after: int | None = None) -> AsyncIterator[Server]:
    """A server answering each request with ``answer``; it closes a connection after ``close_after`` answers."""
    server = Server(port=0)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.connections += 1
        served = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.lower().split(b"\r\n")
                length = next(int(line.split(b":", 1)[1]) for line in lines if line.startswith(b"content-length"))
                body = await reader.readexactly(length)
                server.bodies.append(body)
                raw = answer(served, body)
                served += 1
                if raw is None:
                    break
                writer.write(raw)
                await writer.drain()
                if close_after is not None and served >= close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    listener = await asyncio.start_server(handle, "127.0.0.1", 0)
    server.port = listener.sockets[0].getsockname()[1]
    try:
        yield server
    finally:
        listener.close()


def framed(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    lines = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def post(pool: Http1Pool, server: Server, body: bytes = b'{"q":1}', total_s: float = 5.0) -> HttpReply:
    target = server.target()
    head = target.head({"Content-Type": "application/json"})
    return await pool.post(target, head, body, total_s=total_s, connect_s=5)


async def test_content_length_answers_come_back_whole_on_one_kept_connection() -> None:
    def echo(n: int, body: bytes) -> bytes:
        return framed(b'{"n":%d,"echo":%s}' % (n, body), "X-RateLimit-Remaining-Tokens: 7")

    async with serve(echo) as server, Http1Pool() as pool:
        replies = [await post(pool, server, b'{"i":%d}' % i) for i in range(3)]
    assert [r.body for r in replies] == [b'{"n":%d,"echo":{"i":%d}}' % (i, i) for i in range(3)]
    assert replies[0].headers["x-ratelimit-remaining-tokens"] == "7" and replies[0].status == 200
    assert server.connections == 1


async def test_chunked_answers_with_extensions_and_trailers_are_joined() -> None:
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunked += b'4;ext=1\r\n{"a"\r\n3\r\n:1}\r\n0\r\nX-T: y\r\n\r\n'
    async with serve(lambda n, body: chunked) as server, Http1Pool() as pool:
        first, second = await post(pool, server), await post(pool, server)
    assert first.body == second.body == b'{"a":1}' and server.connections == 1


async def test_an_answer_ended_by_closing_and_one_that_says_close_are_read_and_not_reused() -> None:
    until_close = b'HTTP/1.1 200 OK\r\n\r\n{"whole":true}'
    async with serve(lambda n, body: until_close, close_after=1) as server, Http1Pool() as pool:
        assert (await post(pool, server)).body == b'{"whole":true}'
        assert (await post(pool, server)).body == b'{"whole":true}'
    assert server.connections == 2
    async with serve(lambda n, body: framed(b"{}", "Connection: close")) as server, Http1Pool() as pool:
        await post(pool, server)
        await post(pool, server)
    assert server.connections == 2


async def test_gzip_bodies_are_decoded_and_interim_answers_skipped() -> None:
    zipped = gzip.compress(b'{"z":1}')
    interim = b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
    async with serve(lambda n, body: interim + framed(zipped, "Content-Encoding: gzip")) as server, Http1Pool() as pool:
        assert (await post(pool, server)).body == b'{"z":1}'


async def test_error_statuses_are_answers_not_exceptions() -> None:
    refusal = framed(b'{"error":"slow down"}', "Retry-After: 2", status="429 Too Many")
    async with serve(lambda n, body: refusal) as server, Http1Pool() as pool:
        reply = await post(pool, server)
    assert reply.status == 429 and reply.headers["retry-after"] == "2"


async def test_a_kept_connection_the_server_dropped_unanswered_is_resent_once_on_a_new_one() -> None:
    # The server answers once, then drops the connection as the next request arrives (an idle timeout racing it).
    async with serve(lambda n, body: framed(b"{}") if n == 0 else None) as server, Http1Pool() as pool:
        await post(pool, server)
        await post(pool, server, b'{"again":1}')
    assert server.connections == 2 and server.bodies == [b'{"q":1}', b'{"again":1}', b'{"again":1}']


async def test_a_new_connection_dropped_unanswered_or_mid_answer_is_an_error_not_a_resend() -> None:
    async with serve(lambda n, body: None) as server, Http1Pool() as pool:
        with pytest.raises(HttpConnectionError, match="before answering"):
            await post(pool, server)
    assert len(server.bodies) == 1
    cut = b'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"cut'
    async with serve(lambda n, body: cut, close_after=1) as server, Http1Pool() as pool:
        with pytest.raises(HttpConnectionError, match="mid-answer"):
            await post(pool, server)


async def test_broken_answers_are_named() -> None:
    async with serve(lambda n, body: b"SSH-2.0-OpenSSH\r\n\r\n") as server, Http1Pool() as pool:
        with pytest.raises(HttpConnectionError, match="not an HTTP answer"):
            await post(pool, server)
    bad_chunk = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
    async with serve(lambda n, body: bad_chunk) as server, Http1Pool() as pool:
        with pytest.raises(HttpConnectionError, match="bad chunk size"):
            await post(pool, server)


async def test_the_total_timeout_covers_a_server_that_never_answers_and_the_pool_recovers() -> None:
    answered = iter([b"", framed(b"{}")])  # the first request gets nothing, the next an answer
    async with serve(lambda n, body: next(answered)) as server, Http1Pool() as pool:
        with pytest.raises(HttpTimeout):
            await post(pool, server, total_s=0.2)
        assert (await post(pool, server)).body == b"{}"  # the timed-out connection was not reused
    assert server.connections == 2


def test_targets_parse_once_and_heads_name_the_host() -> None:
    target = Target.of("https://api.example.com/v1/chat/completions?x=1")
    assert (target.scheme, target.host, target.port, target.path) == (
        "https",
        "api.example.com",
        443,
        "/v1/chat/completions?x=1",
    )
    head = target.head({"Authorization": "Bearer k"}).decode()
    assert head.startswith("POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: api.example.com\r\n")
    assert head.endswith("Authorization: Bearer k\r\nContent-Length: ")
    assert b"Host: 127.0.0.1:8000\r\n" in Target.of("http://127.0.0.1:8000/v1").head({})
    with pytest.raises(ValueError, match="not an http"):
        Target.of("localhost:8000/v1")


class _Wire:
    """A transport that keeps what is written and whether the connection was dropped."""

    def __init__(self) -> None:
        self.written = b""
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.written += data

    def abort(self) -> None:
        self.aborted = True


def _read(pieces: list[bytes]) -> tuple[int, dict[str, str], bytes, bool]:
    connection = _Connection(("http", "h", 80))
    wire = _Wire()
    connection.connection_made(wire)  # type: ignore[arg-type]
    reply = connection.send(b"POST / HTTP/1.1\r\n\r\n")
    for piece in pieces:
        connection.data_received(piece)
    answer = reply.result()
    return answer.status, answer.headers, answer.body, wire.aborted


@pytest.mark.parametrize(
    "raw",
    [
        framed(b'{"a":1}', "X-RateLimit-Remaining-Requests: 9"),
        framed(b"", status="204 No Content"),
        framed(b'{"e":1}', "Retry-After: 2", status="429 Too Many"),
        b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" + framed(gzip.compress(b'{"z":1}'), "Content-Encoding: gzip"),
        b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{"a"\r\n3\r\n:1}\r\n0\r\nX-T: y\r\n\r\n',
        framed(b'{"a":1}', "Connection: close"),
        framed(b'{"a":1}') + b"HTTP/1.1 200 OK",  # bytes past the answer: the connection is not kept
    ],
)
async def test_an_answer_reads_the_same_whole_or_cut_anywhere(raw: bytes) -> None:
    whole = _read([raw])
    for cut in range(1, len(raw)):
        assert _read([raw[:cut], raw[cut:]]) == whole
    assert _read([raw[i : i + 1] for i in range(len(raw))]) == whole


async def test_a_deadline_fails_the_answer_and_drops_the_connection() -> None:
    connection = _Connection(("http", "h", 80))
    wire = _Wire()
    connection.connection_made(wire)  # type: ignore[arg-type]
    reply = connection.send(b"POST / HTTP/1.1\r\n\r\n")
    connection.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{")
    connection.expire()
    with pytest.raises(HttpTimeout):
        reply.result()
    assert wire.aborted and connection.closed
