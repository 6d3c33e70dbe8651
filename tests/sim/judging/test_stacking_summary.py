"""Stressors stacked (cumulative mode): goal accuracy by how many distinct scenarios fired on the goal, recounted
here from the stored events."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from typer.testing import CliRunner

from sim.cli.app import app


def run(tmp_path: Path, run_id: str, *extra: str) -> dict[str, object]:
    args = ["run", "--agent", "oracle", "--world", "multidomain", "--limit", "8", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, [*args, "--run-id", run_id, "-q", *extra])
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / run_id / "summary.json").read_text())


def test_goals_are_grouped_by_the_scenarios_that_fired_on_them(tmp_path: Path) -> None:
    summary = run(tmp_path, "stacked", "--stressors", "spec,exec")
    rows = summary["stacking"]["by_fired"]  # type: ignore[index]
    expected: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    per_goal = {}
    for line in (tmp_path / "stacked" / "scores.jsonl").read_text().splitlines():
        score = json.loads(line)
        if score["judge"] == "core_api_accuracy":
            per_goal[score["episode_id"]] = score["per_goal"]
    for line in (tmp_path / "stacked" / "episodes.jsonl").read_text().splitlines():
        episode = json.loads(line)
        fired: dict[int, set[str]] = defaultdict(set)
        for ev in episode["events"]:
            if ev["kind"] == "tool_result" and not ev.get("replayed"):
                fired[ev["goal"]].update(ev.get("scenarios") or [])
        for goal, value in enumerate(per_goal[episode["episode_id"]]):
            if value is not None:
                n = len(fired[goal])
                key = "3+" if n >= 3 else str(n)
                expected[key][0] += value
                expected[key][1] += 1
    assert [r["fired"] for r in rows] == ["0", "1", "2", "3+"]
    for row in rows:
        right, goals = expected[row["fired"]]
        assert row["goals"] == goals
        assert row["accuracy"] == (round(right / goals, 4) if goals else None)
    assert sum(r["goals"] for r in rows) == summary["scored_turns"]
    text = (tmp_path / "stacked" / "summary.md").read_text()
    assert "## Stressors stacked" in text


def test_runs_without_stacked_stressors_have_no_stacking_rows(tmp_path: Path) -> None:
    assert "stacking" not in run(tmp_path, "plain")
    assert "stacking" not in run(tmp_path, "iso", "--stressors", "outage", "--stressor-mode", "isolated")
