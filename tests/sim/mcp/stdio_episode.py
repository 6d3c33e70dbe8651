"""A program serving one fake episode over stdio (``python -m tests.sim.mcp.stdio_episode RECORD``): what a
``squall serve --mcp`` or a per-episode CLI agent's server looks like. Writes its pid to RECORD first, and the calls
its runtime ran when the client hangs up."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from sim.mcp import serve_stdio
from tests.sim.mcp.fakes import FakeRuntime


async def serve(runtime: FakeRuntime) -> None:
    await serve_stdio(runtime, max_steps=3)


def main(record: Path) -> None:
    record.write_text(json.dumps({"pid": os.getpid()}))
    runtime = FakeRuntime(label="stdio", rename={"act": "act_v2"})
    asyncio.run(serve(runtime))
    calls = [[call.name, step] for call, step in runtime.calls]
    record.write_text(json.dumps({"pid": os.getpid(), "calls": calls, "faults": [f[1] for f in runtime.faults]}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
