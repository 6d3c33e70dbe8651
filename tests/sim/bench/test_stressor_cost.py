"""`python -m sim.bench.stressor_cost`: rows interleaved, each row's least disturbed run kept, every figure a ratio to
the unstressed run (``measure`` stubbed: one real run is tested at the end, for its fields, never its speed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.bench import stressor_cost


def test_rows_are_ratios_to_the_unstressed_run_and_over_target_is_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    cpu = {"": [1.0, 0.8], "missing": [3.0, 2.0], "drift": [1.2, 1.5]}

    def measure(world: str, limit: int, stressors: str, out: Path) -> dict[str, float]:
        seen.append(stressors)
        return {"wall_s": 2.0, "cpu_s": cpu[stressors].pop(0), "peak_mb": 100.0 if not stressors else 150.0}

    monkeypatch.setattr(stressor_cost, "measure", measure)
    rows = stressor_cost.run_rows("multidomain", 30, ["missing", "drift"], repeat=2)
    assert seen == ["", "missing", "drift"] * 2  # interleaved: load drifts hit every row alike
    assert rows["(none)"]["cpu_s"] == 0.8 and rows["missing"]["cpu_s_ratio"] == pytest.approx(2.5)
    assert rows["drift"]["cpu_s"] == 1.2 and rows["drift"]["peak_mb_ratio"] == pytest.approx(1.5)
    text = stressor_cost.render(rows)
    assert "missing" in text and text.count("over 2x") == 1


def test_one_real_run_reports_its_cpu_and_memory(tmp_path: Path) -> None:
    found = stressor_cost.measure("smart_home", 1, "drift", tmp_path / "run")
    assert found["cpu_s"] > 0 and found["peak_mb"] > 10 and found["wall_s"] > 0
