"""Timeout errors name the timeout that fired, with its own value; the connect timeout scales with the load."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from sim.core import ChatMessage, ModelRequest
from sim.llm.transports.base import TransportError
from sim.llm.transports.http1 import Http1Pool
from sim.llm.transports.openai_chat import OpenAIChatTransport
from sim.mockllm import EchoPolicy, FaultRule, MockConfig
from sim.mockllm.server import start_mock_server

REQUEST = ModelRequest(model="m", role="agent", messages=(ChatMessage(role="user", content="hi"),))


def test_the_connect_timeout_is_configured_or_scales_with_requests_in_flight() -> None:
    scaled = OpenAIChatTransport(None, "http://127.0.0.1:9/v1", "m", 120.0)  # type: ignore[arg-type]
    assert [scaled.connect_timeout(n) for n in (0, 100, 2000, 20_000)] == [10.0, 11.0, 30.0, 120.0]  # capped: total
    fixed = OpenAIChatTransport(None, "http://127.0.0.1:9/v1", "m", 120.0, connect_timeout_s=3.0)  # type: ignore[arg-type]
    assert fixed.connect_timeout(5000) == 3.0


async def test_a_hang_is_named_as_the_total_timeout_with_its_value() -> None:
    config = MockConfig(policy=EchoPolicy(), faults=[FaultRule(kind="timeout", at=[1], hang_s=30.0)])
    async with await start_mock_server(config) as server, Http1Pool() as session:
        transport = OpenAIChatTransport(session, server.url, "mock-model", 0.3)
        with pytest.raises(TransportError) as caught:
            await transport.send(REQUEST)
    assert caught.value.code == "provider:timeout"
    assert "no response within 0.3s (total request timeout)" in str(caught.value)


@pytest.fixture
def unaccepting_port() -> Iterator[int]:
    """A listener that never accepts, its backlog filled: a further connection attempt is never answered."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(4):
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        fillers.append(filler)
    try:
        yield port
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


async def test_a_connection_that_never_opens_is_named_as_the_connect_timeout(unaccepting_port: int) -> None:
    async with Http1Pool() as session:
        url = f"http://127.0.0.1:{unaccepting_port}/v1"
        transport = OpenAIChatTransport(session, url, "mock-model", 30.0, connect_timeout_s=0.3)
        try:
            await transport.send(REQUEST)
        except TransportError as error:
            if error.code != "provider:connect_timeout":
                pytest.skip(f"this kernel answered the connection: {error}")
            assert "no connection within 0.3s (connect timeout, 1 in flight)" in str(error)
        else:
            pytest.skip("this kernel accepted the connection")
