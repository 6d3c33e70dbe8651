"""`squall bench`'s arithmetic and report: bounds with and without the provider's burst, squall vs static, the
suite's one table (arms stubbed: the arms themselves are run by the bench, not the suite)."""

from __future__ import annotations

from typing import Any

import pytest

from sim.bench import suite
from sim.bench.command import BenchSettings, compare, with_bounds


def arm(wall_s: float, errors_429: int = 0) -> dict[str, Any]:
    return {
        "episodes": 400, "failed_episodes": 0, "requests": 2400, "retries": errors_429, "errors_429": errors_429,
        "tokens": 4_800_000, "wall_s": wall_s, "cpu_ms_per_request": 1.0, "peak_rss_mb": 80.0,
    }  # fmt: skip


@pytest.mark.parametrize(("limiter", "burst"), [("token_bucket", 1 + 60 / 50), ("sliding_window", 60 / 50 * 1)])
def test_the_burst_bound_follows_the_limiter(limiter: str, burst: float) -> None:
    settings = BenchSettings(episodes=400, concurrency=60, latency_s=0.5, tpm=3_000_000, limiter=limiter)  # type: ignore[arg-type]
    result = with_bounds(arm(50.0), settings)
    steady = 3_000_000 / 60 / 12_000  # tokens per minute / tokens per episode
    assert result["binding"] == "tpm" and result["bound"] == pytest.approx(steady, abs=1e-3)
    assert result["bound_with_initial_burst"] == pytest.approx(steady * burst, abs=1e-3)
    assert result["ratio_to_burst_bound"] == pytest.approx(8.0 / (steady * burst), abs=1e-3)


def test_comparison_and_the_suite_table(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = BenchSettings(episodes=400, concurrency=60, latency_s=0.5, tpm=3_000_000)
    squall, static = with_bounds(arm(50.0), settings), with_bounds(arm(60.0, errors_429=600), settings)
    assert compare(squall, static) == {"wall_ratio": 0.833, "achieved_ratio": 1.2, "cpu_ms_per_request_ratio": 1.0}
    monkeypatch.setattr(suite, "run_arm", lambda name, settings: arm(50.0 if name == "squall" else 60.0))
    report = suite.run_suite(scale=0.1)
    assert set(report["workloads"]) == {"latency", "tpm", "tpm_window", "faults"}
    tpm = report["workloads"]["tpm"]
    assert tpm["settings"]["episodes"] == 60 and tpm["comparison"]["wall_ratio"] == 0.833
    text = suite.render_suite(report)
    assert "tpm_window" in text and "0.833" in text
