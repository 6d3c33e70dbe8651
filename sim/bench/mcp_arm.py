"""The outside-agent arm of `squall bench`: one tool call on a real smart_home episode runtime, made in-process and
through the MCP hub (the `mcp` SDK's client over streamable HTTP on loopback), so the hop per tool call is measured.

Run as ``python -m sim.bench.mcp_arm '<json params>'``; prints one JSON object. Its own process, like the other arms,
so neither the mock endpoint nor another arm shares its CPU.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from sim.core import ToolCall
from sim.episode.runtime import EpisodeRuntime
from sim.llm.gateway import EpisodeLLM, Gateway
from sim.mcp.bench import measure_mcp_hop
from worlds.registry import load_world

TOOL = "list_rooms"  # read-only and argument-free: the hop, not the world, dominates the difference


async def run_mcp_arm(calls: int) -> dict[str, Any]:
    world = load_world("smart_home").new_world(0)
    llm = EpisodeLLM(Gateway(), 10, lambda _e: None, time.monotonic)
    runtime = EpisodeRuntime(
        world, (), world.specs(), world.instructions(), llm, lambda _e: None, time.monotonic, 10**9
    )
    hop = await measure_mcp_hop(runtime, ToolCall(id="", name=TOOL, arguments={}), calls)
    return {
        "tool": TOOL,
        "calls": hop.calls,
        "direct_ms": round(hop.direct_s * 1e3, 4),
        "mcp_ms": round(hop.mcp_s * 1e3, 4),
        "hop_ms": round(hop.overhead_s * 1e3, 4),
        "ratio": round(hop.mcp_s / max(1e-12, hop.direct_s), 1),
    }


def main() -> None:
    print(json.dumps(asyncio.run(run_mcp_arm(int(json.loads(sys.argv[1])["calls"])))))


if __name__ == "__main__":
    main()
