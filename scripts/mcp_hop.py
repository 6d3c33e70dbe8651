"""The MCP hop per tool call on a real smart_home runtime (no stressors): ``python scripts/mcp_hop.py [CALLS]``.

Prints the mean wall time of ``list_rooms`` made directly on the episode runtime and through the MCP hub."""

from __future__ import annotations

import asyncio
import sys
import time

from sim.core import ToolCall
from sim.episode.runtime import EpisodeRuntime
from sim.llm.gateway import EpisodeLLM, Gateway
from sim.mcp.bench import measure_mcp_hop
from worlds.registry import load_world


async def main(calls: int) -> None:
    pack = load_world("smart_home")
    world = pack.new_world(0)
    specs = world.specs()
    llm = EpisodeLLM(Gateway(), 10, lambda _e: None, time.monotonic)
    runtime = EpisodeRuntime(world, (), specs, world.instructions(), llm, lambda _e: None, time.monotonic, 10**9)
    hop = await measure_mcp_hop(runtime, ToolCall(id="", name="list_rooms", arguments={}), calls)
    print(
        f"{hop.calls} calls: direct {hop.direct_s * 1e3:.3f} ms, over MCP {hop.mcp_s * 1e3:.3f} ms, "
        f"hop {hop.overhead_s * 1e3:.3f} ms per call"
    )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 300))
