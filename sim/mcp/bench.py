"""What the MCP hop costs per tool call: the same call made directly on a runtime and through the hub with the
``mcp`` SDK's client (streamable HTTP on loopback), for ``squall bench``'s outside-agent arm."""

from __future__ import annotations

import time
from dataclasses import dataclass

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from sim.core import AgentRuntime, ToolCall
from sim.mcp.hub import open_mcp_hub

_WARMUP = 5


@dataclass(frozen=True)
class HopTimes:
    """Mean wall seconds per call, each over ``calls`` calls after a warm-up."""

    calls: int
    direct_s: float
    """``runtime.call`` awaited in-process."""
    mcp_s: float
    """``tools/call`` from a connected client until its result is parsed: the server's side and the client's."""

    @property
    def overhead_s(self) -> float:
        return self.mcp_s - self.direct_s


async def measure_mcp_hop(runtime: AgentRuntime, call: ToolCall, calls: int = 200) -> HopTimes:
    """Time ``call`` on ``runtime`` ``calls`` times directly, then as many times over MCP (one connected client, as
    an agent keeps within a turn). The runtime runs the call ``2 * (calls + warm-up)`` times in all; a runtime with a
    per-turn call limit needs room for them."""
    for step in range(_WARMUP):
        await runtime.call(call, step)
    start = time.perf_counter()
    for step in range(calls):
        await runtime.call(call, step)
    direct = (time.perf_counter() - start) / calls
    # One HTTP client, made before the clock starts: a new one loads the CA bundle (~0.1 s of CPU).
    async with (
        open_mcp_hub() as hub,
        create_mcp_http_client() as http,
        hub.serve(runtime) as url,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        for _ in range(_WARMUP):
            await client.call_tool(call.name, call.arguments)
        start = time.perf_counter()
        for _ in range(calls):
            await client.call_tool(call.name, call.arguments)
        over_mcp = (time.perf_counter() - start) / calls
    return HopTimes(calls=calls, direct_s=direct, mcp_s=over_mcp)
