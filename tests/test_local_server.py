"""The embedded SmolLM2 server answers a real OpenAI-SDK request over HTTP and goes away on exit."""

from __future__ import annotations

import os

import httpx2
import openai
import pytest

from sim.llm.local_server import LocalModelServer, local_model_available

_UNAVAILABLE = local_model_available()
pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(_UNAVAILABLE is not None, reason=_UNAVAILABLE or ""),
]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_chat_completion_round_trip_and_cleanup() -> None:
    async with LocalModelServer() as server:
        pid = server.pid
        assert pid is not None and _alive(pid)
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
        async with httpx2.AsyncClient() as http:
            client = openai.AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0, http_client=http)
            reply = await client.chat.completions.create(
                model=server.model_name,
                messages=[{"role": "user", "content": "What is the capital of France?"}],
                max_tokens=16,  # the server ignores max_completion_tokens
                temperature=0,
            )
        assert reply.choices[0].message.content
        assert reply.usage is not None and reply.usage.completion_tokens > 0
    assert server.pid is None
    assert not _alive(pid)


async def test_restart_keeps_the_port_and_replaces_the_process() -> None:
    async with LocalModelServer() as server:
        old_pid, old_url = server.pid, server.base_url
        assert old_pid is not None
        await server.restart()
        assert server.base_url == old_url
        assert server.pid not in (None, old_pid)
        assert not _alive(old_pid)
