"""One real `squall bench` arm: its own process against a fresh mock, every figure the report reads present and
consistent with the others (the arithmetic on top is ``test_bench_report``)."""

from __future__ import annotations

import pytest

from sim.bench.command import BenchSettings, render, run_arm, with_bounds


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
