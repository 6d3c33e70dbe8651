"""One real `squall bench` arm: its own process against a fresh mock, every figure the report reads present and
consistent with the others (the arithmetic on top is ``test_bench_report``)."""

from __future__ import annotations

import pytest

from sim.bench.command import BenchSettings, render, run_arm, run_bench, with_bounds


def test_a_squall_arm_measures_its_own_run() -> None:
    settings = BenchSettings(episodes=20, concurrency=5, latency_s=0.01, arms=("squall",))
    result = with_bounds(run_arm("squall", settings), settings)
    assert result["episodes"] == 20 and result["failed_episodes"] == 0
    assert result["requests"] >= 20 * 2 and result["retries"] == 0  # each episode asks at least twice
    assert result["cpu_s"] > 0 and result["wall_s"] > 0
    per_request = 1000 * result["cpu_s"] / result["requests"]
    assert result["cpu_ms_per_request"] == pytest.approx(per_request, rel=0.01, abs=2e-3)
    # The share of a core the harness kept busy: what says whether its CPU per request ran warm (near 1) or in
    # bursts between waits on the endpoint (well under 1).
    assert result["cores_busy"] == pytest.approx(result["cpu_s"] / result["wall_s"], rel=0.01, abs=2e-3)
    assert 0 < result["cores_busy"] < 4
    assert "harness cores busy" in render({"settings": {}, **result})


def test_the_bare_client_holds_the_same_conversations_and_the_report_divides_by_it() -> None:
    settings = BenchSettings(episodes=10, concurrency=5, latency_s=0.01, arms=("squall", "bare"))
    report = run_bench(settings)
    bare = report["bare"]
    assert bare["episodes"] == 10 and bare["failed_episodes"] == 0 and bare["cpu_s"] > 0
    # The same workload: as many requests per episode (the mock's first_tool policy ends each goal in two), of the
    # same size within a tenth (the bare client sends the world's real tool result, not squall's rendering of it).
    assert bare["requests"] == report["requests"]
    assert bare["tokens"] == pytest.approx(report["tokens"], rel=0.1)
    ratio = report["floor"]["cpu_ms_per_request_ratio"]
    assert ratio == pytest.approx(report["cpu_ms_per_request"] / bare["cpu_ms_per_request"], rel=0.01)
    text = render(report)
    assert "bare client (floor)" in text and f"{ratio:.2f}x the floor" in text
