"""The MCP-hop measurement ``squall bench`` can report."""

from __future__ import annotations

from sim.core import ToolCall
from sim.mcp.bench import measure_mcp_hop
from tests.sim.mcp.fakes import FakeRuntime


async def test_the_hop_is_timed_on_the_same_call_both_ways() -> None:
    runtime = FakeRuntime()
    hop = await measure_mcp_hop(runtime, ToolCall(id="", name="lookup", arguments={"x": 1}), calls=3)
    assert hop.calls == 3 and hop.direct_s > 0 and hop.mcp_s > 0
    assert hop.overhead_s == hop.mcp_s - hop.direct_s
    assert len(runtime.calls) == 2 * (3 + 5) and {c.name for c, _ in runtime.calls} == {"lookup"}
