"""The MCP hop per tool call on a real smart_home runtime (no stressors): ``python scripts/mcp_hop.py [CALLS]``.

Prints the mean wall time of ``list_rooms`` made directly on the episode runtime and through the MCP hub (the same
measurement as ``squall bench --arms mcp``)."""

from __future__ import annotations

import asyncio
import sys

from sim.bench.mcp_arm import run_mcp_arm


def main(calls: int) -> None:
    hop = asyncio.run(run_mcp_arm(calls))
    print(
        f"{hop['calls']} calls: direct {hop['direct_ms']:.3f} ms, over MCP {hop['mcp_ms']:.3f} ms, "
        f"hop {hop['hop_ms']:.3f} ms per call"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
