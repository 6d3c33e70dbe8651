"""`squall serve --mcp`: one episode served over MCP, explored by a real `mcp` SDK client, saved and judged."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

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
    assert episode["task_id"] == "sh-001" and episode["agent"] == "python:sim.cli.serve_mcp:explore"
    calls = [e["call"]["name"] for e in episode["events"] if e["kind"] == "tool_call"]
    assert calls == ["list_rooms"]
    scores = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert {s["episode_id"] for s in scores} == {episode["episode_id"]}
    assert "core_api_accuracy" in {s["judge"] for s in scores}
