"""`squall bench --duration`: the RSS flatness verdict on synthetic series, and a short real soak through the harness
(one process, and two workers) that prints its series and computes the verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.bench.mock_process import stop_pid
from sim.bench.rss import FLAT_FLOOR_MB_PER_MIN, growth, slope, tree_rss_mb
from sim.bench.soak import HEADER, SoakSettings, render_verdict, run_soak, verdict


def _wobble(i: int) -> float:
    return ((i * 7919) % 13 - 6) * 0.5  # deterministic noise in [-3, 3] MB


def test_slope_is_least_squares() -> None:
    assert slope([(0, 1.0), (1, 3.0), (2, 5.0)]) == pytest.approx(2.0)
    assert slope([(0, 5.0)]) == 0.0 and slope([(1, 2.0), (1, 4.0)]) == 0.0


def test_a_flat_series_with_noise_is_flat_and_warm_up_is_left_out() -> None:
    # 60 s of warm-up climbing 500 -> 1000 MB, then 10 minutes at 1000 MB +- 3 MB, sampled every 5 s.
    series = [(t, 500 + 500 * t / 60) for t in range(0, 60, 5)]
    series += [(t, 1000 + _wobble(i)) for i, t in enumerate(range(60, 660, 5))]
    flat = growth(series, warmup_s=60)
    assert flat is not None and flat.flat
    assert abs(flat.slope_mb_per_min) < 1 and flat.threshold_mb_per_min == pytest.approx(5.0, abs=0.1)
    assert flat.as_dict()["verdict"] == "flat"
    counted = growth(series, warmup_s=0)  # the warm-up's climb, counted, is growth
    assert counted is not None and not counted.flat


def test_a_leak_is_growing() -> None:
    # 2 MB a minute on 100 MB: above the 1 MB/min floor (0.5% of 100 MB is under it).
    series = [(t, 100 + 2 * t / 60 + _wobble(i) / 10) for i, t in enumerate(range(0, 600, 5))]
    leak = growth(series, warmup_s=120)
    assert leak is not None and not leak.flat
    assert leak.slope_mb_per_min == pytest.approx(2.0, rel=0.1)
    assert leak.threshold_mb_per_min == FLAT_FLOOR_MB_PER_MIN and leak.delta_mb > 0
    assert leak.as_dict()["verdict"] == "growing"
    assert growth(series[:2], warmup_s=0) is None


def test_warm_up_waits_for_every_slot_to_turn_over() -> None:
    settings = SoakSettings(concurrency=10, latency_s=1.0, jitter_s=0.0, duration_s=100)
    series = [{"t": float(t), "rss_mb": 50.0, "episodes": t // 2, "requests": 10 * t, "in_flight": 10}
              for t in range(0, 101, 5)]  # fmt: skip
    v = verdict(series, settings)
    assert v["warmup_s"] == 20.0  # the 10th episode is stored at t=20, a fifth of the duration is 20 too
    assert v["steady_request_bound"] == 10.0 and v["steady_ratio"] == 1.0
    assert v["rss"]["verdict"] == "flat"
    late = [{**s, "episodes": max(0, s["t"] - 40)} for s in series]  # the 10th episode stored at t=50
    assert verdict(late, settings)["warmup_s"] == 50.0


def test_the_process_tree_is_summed() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        alone = tree_rss_mb(child.pid)
        mine, count = tree_rss_mb(os.getpid())
        assert alone[1] == 1 and alone[0] > 0
        assert count >= 2 and mine > alone[0]
    finally:
        stop_pid(child)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.slow
def test_a_short_soak_prints_its_series_and_a_verdict(workers: int, tmp_path: Path) -> None:
    settings = SoakSettings(
        concurrency=100, latency_s=0.05, jitter_s=0.0, duration_s=3, every_s=0.5, workers=workers, warmup_s=1.0
    )
    lines: list[str] = []
    report = run_soak(settings, lines.append, tmp_path / "series.jsonl")
    series = report["series"]
    assert lines[0] == HEADER and len(lines) == 1 + len(series)
    assert len(series) >= 5 and series[-1]["t"] >= 3  # a sample every 0.5 s on a loaded machine, and one at the end
    processes = 1 if workers == 1 else 1 + workers  # --workers 1 plays in the driver; N > 1 in N processes beside it
    assert all(s["processes"] == processes for s in series[1:])  # the driver and its workers, summed
    assert series[-1]["episodes"] > 0 and series[-1]["requests"] > series[1]["requests"]
    assert not report["ran_out"]
    written = [json.loads(line) for line in (tmp_path / "series.jsonl").read_text().splitlines()]
    assert written == series
    v = report["verdict"]
    assert v["steady_request_bound"] == 2000.0 and 0 < v["steady_ratio"] <= 1.5
    assert v["rss"]["verdict"] in ("flat", "growing") and v["rss"]["samples_after_warmup"] >= 3
    assert "steady bound 2000.0 requests/s" in render_verdict(report)
