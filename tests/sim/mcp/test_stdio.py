"""One episode over stdio: the ``mcp`` SDK's stdio client against ``serve_stdio`` in a subprocess."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_types import ToolListChangedNotification

ROOT = Path(__file__).resolve().parents[3]


async def test_one_episode_over_stdio(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    seen: list[Any] = []

    async def on_message(message: Any) -> None:
        seen.append(message)

    server = StdioServerParameters(
        command=sys.executable, args=["-m", "tests.sim.mcp.stdio_episode", str(record)], cwd=str(ROOT)
    )
    async with Client(server, message_handler=on_message) as client:
        assert client.instructions == "Help the user."
        assert [t.name for t in (await client.list_tools()).tools] == ["lookup", "act"]
        result = await client.call_tool("act", {"x": 3})
        assert result.structured_content == {"echo": "act", "x": 3, "owner": "stdio"}
        assert any(isinstance(m, ToolListChangedNotification) for m in seen)
        assert [t.name for t in (await client.list_tools()).tools] == ["lookup", "act_v2"]
        await client.call_tool("act_v2", {})
        await client.call_tool("lookup", {})
        refused = await client.call_tool("lookup", {})
        assert refused.is_error and "Step limit" in refused.content[0].text  # type: ignore[union-attr]
    done = json.loads(record.read_text())
    assert done["calls"] == [["act", 1], ["act_v2", 2], ["lookup", 3]]
    assert done["faults"] == ["agent:step_limit"]
    with pytest.raises(ProcessLookupError):  # the client's exit ended the server process
        os.kill(done["pid"], 0)
