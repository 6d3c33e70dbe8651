"""`squall serve --mcp`: one episode served over MCP, explored by a real `mcp` SDK client, saved and judged."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.support.ports import free_port

REPO_ROOT = Path(__file__).resolve().parents[3]


async def test_an_episode_explored_over_mcp_is_saved_and_judged_at_sigterm(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "sim", "serve", "--mcp", "--world", "smart_home", "--task", "sh-001"]
    argv += ["--out", str(tmp_path), "--run-id", "explore"]
    pipe = asyncio.subprocess.PIPE
    server = await asyncio.create_subprocess_exec(*argv, cwd=REPO_ROOT, stdout=pipe, stderr=pipe)
    try:
        assert server.stdout is not None
        first = (await server.stdout.readline()).decode()  # "squall serve: episode ... at URL"
        assert " at http://127.0.0.1:" in first, first
        url = first.rsplit(" at ", 1)[1].strip()
        async with (
            create_mcp_http_client() as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            names = [t.name for t in (await client.list_tools()).tools]
            assert "list_rooms" in names
            result = await client.call_tool("list_rooms", {})
            assert not result.is_error
        os.kill(server.pid, signal.SIGTERM)
        # A safety net for a hung server, not a timing check.
        _, err = await asyncio.wait_for(server.communicate(), timeout=120)
        assert server.returncode == 0, err.decode()
    finally:
        if server.returncode is None:
            os.kill(server.pid, signal.SIGKILL)
            await server.wait()
    run = tmp_path / "explore"
    [episode] = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert episode["task_id"] == "sh-001" and episode["agent"] == "python:sim.cli.serve_mcp:ServedEpisode.explore"
    calls = [e["call"]["name"] for e in episode["events"] if e["kind"] == "tool_call"]
    assert calls == ["list_rooms"]
    scores = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert {s["episode_id"] for s in scores} == {episode["episode_id"]}
    assert "core_api_accuracy" in {s["judge"] for s in scores}


async def next_url(stream: asyncio.StreamReader) -> str:
    """The URL of the next "squall serve: episode ... at URL" line."""
    while True:
        line = (await stream.readline()).decode()
        assert line, "the server stopped before it served a turn"
        if line.startswith("squall serve: episode"):
            return line.rsplit(" at ", 1)[1].strip()


async def test_a_port_later_turns_and_an_end_request(tmp_path: Path) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "sim", "serve", "--mcp", "--world", "smart_home", "--task", "sh-001"]
    argv += ["--out", str(tmp_path), "--run-id", "turns", "--port", str(port)]
    pipe = asyncio.subprocess.PIPE
    server = await asyncio.create_subprocess_exec(*argv, cwd=REPO_ROOT, stdout=pipe, stderr=pipe)
    try:
        assert server.stdout is not None
        url = await next_url(server.stdout)
        assert url.startswith(f"http://127.0.0.1:{port}/mcp/"), url
        async with create_mcp_http_client() as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                await client.call_tool("list_rooms", {})
            assert (await http.post(f"{url}x/turn")).status_code == 404  # another episode's URL is not obeyed
            done = await http.post(f"{url}/turn", json={"reply": "I listed the rooms."})
            assert done.json() == {"ok": True, "ended": "turn"}
            assert await next_url(server.stdout) == url  # the user's next goal, the same episode URL
            async with Client(streamable_http_client(url, http_client=http)) as client:
                await client.call_tool("list_rooms", {})
            assert (await http.post(f"{url}/end")).json() == {"ok": True, "ended": "episode"}
        _, err = await asyncio.wait_for(server.communicate(), timeout=120)  # a safety net, not a timing check
        assert server.returncode == 0, err.decode()
    finally:
        if server.returncode is None:
            os.kill(server.pid, signal.SIGKILL)
            await server.wait()
    [episode] = [json.loads(line) for line in (tmp_path / "turns" / "episodes.jsonl").read_text().splitlines()]
    said = [e["content"] for e in episode["events"] if e["kind"] == "agent_message"]
    assert said[0] == "I listed the rooms." and len(said) == 2
    assert [e["turn"] for e in episode["events"] if e["kind"] == "tool_call"] == [0, 1]
    assert (tmp_path / "turns" / "scores.jsonl").read_text().strip()


async def test_one_episode_over_stdio_is_saved_when_the_client_closes(tmp_path: Path) -> None:
    args = ["-m", "sim", "serve", "--mcp", "--stdio", "--world", "smart_home", "--task", "sh-001"]
    args += ["--out", str(tmp_path), "--run-id", "stdio"]
    server = StdioServerParameters(command=sys.executable, args=args, cwd=str(REPO_ROOT))
    async with Client(server) as client:
        assert "list_rooms" in [t.name for t in (await client.list_tools()).tools]
        assert not (await client.call_tool("list_rooms", {})).is_error
    run = tmp_path / "stdio"
    for _ in range(600):  # the server saves and judges after the client closed; a safety net, not a timing check
        if (run / "scores.jsonl").exists() and (run / "summary.json").exists():
            break
        await asyncio.sleep(0.2)
    [episode] = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert [e["call"]["name"] for e in episode["events"] if e["kind"] == "tool_call"] == ["list_rooms"]


@pytest.mark.slow
async def test_the_port_file_is_written_and_the_idle_timeout_ends_the_episode(tmp_path: Path) -> None:
    port_file = tmp_path / "port"
    argv = [sys.executable, "-m", "sim", "serve", "--mcp", "--world", "smart_home", "--task", "sh-001"]
    argv += ["--out", str(tmp_path), "--run-id", "idle", "--port-file", str(port_file), "--idle-timeout", "4"]
    pipe = asyncio.subprocess.PIPE
    server = await asyncio.create_subprocess_exec(*argv, cwd=REPO_ROOT, stdout=pipe, stderr=pipe)
    try:
        assert server.stdout is not None
        url = await next_url(server.stdout)
        assert port_file.read_text() == f"{url.split(':')[2].split('/')[0]}\n"  # written once listening
        assert [name for name in os.listdir(tmp_path) if name.startswith("port")] == ["port"]  # no .tmp left
        async with (
            create_mcp_http_client() as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            assert not (await client.call_tool("list_rooms", {})).is_error
        # Nothing more is asked: the server ends the episode by itself (the wait is a safety net, not a timing check).
        _, err = await asyncio.wait_for(server.communicate(), timeout=120)
        assert server.returncode == 0, err.decode()
        assert "stopped (idle" in err.decode()
    finally:
        if server.returncode is None:
            os.kill(server.pid, signal.SIGKILL)
            await server.wait()
    [episode] = [json.loads(line) for line in (tmp_path / "idle" / "episodes.jsonl").read_text().splitlines()]
    assert [e["call"]["name"] for e in episode["events"] if e["kind"] == "tool_call"] == ["list_rooms"]


def test_a_port_file_with_stdio_is_refused() -> None:
    from typer.testing import CliRunner

    from sim.cli.app import app

    argv = ["serve", "--mcp", "--stdio", "--world", "smart_home", "--port-file", "p"]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2 and "--stdio serves none" in result.output
