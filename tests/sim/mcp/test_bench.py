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


def test_bench_prints_the_mcp_arm_beside_the_in_process_call() -> None:
    from sim.bench.command import BenchSettings, render, run_bench

    report = run_bench(BenchSettings(arms=("mcp",), mcp_calls=3))
    mcp = report["mcp"]
    assert mcp["calls"] == 3 and mcp["tool"] == "list_rooms"
    assert mcp["direct_ms"] > 0 and mcp["mcp_ms"] > 0
    assert abs(mcp["hop_ms"] - (mcp["mcp_ms"] - mcp["direct_ms"])) < 1e-3
    # a ratio, as the other arms report: the stored milliseconds are rounded to 4 places, so at ~0.04 ms in-process
    # the ratio recomputed from them is off by a fraction of a percent (an absolute tolerance failed at a ratio of 206)
    assert abs(mcp["ratio"] / (mcp["mcp_ms"] / mcp["direct_ms"]) - 1) < 0.01
    text = render(report)
    assert "in-process" in text and "over MCP" in text and "MCP / in-process" in text and "achieved" not in text
