"""Stressors stacked (cumulative mode): goal accuracy by how many distinct scenarios fired on the goal, and per
scenario on the goals it fired on vs its tasks' other goals, recounted here from the stored events and scores."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judges.common.stats import wilson
from sim.cli.app import app
from sim.judging.stacking_summary import FiredGoal, by_scenario
from sim.view.run_data import build_run_documents
from tests.support.cli import invoke


def run(tmp_path: Path, run_id: str, *extra: str, agent: str = "oracle", limit: int = 8) -> dict[str, object]:
    args = ["run", "--agent", agent, "--world", "multidomain", "--limit", str(limit), "--out", str(tmp_path)]
    result = CliRunner().invoke(app, [*args, "--run-id", run_id, "-q", *extra])
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / run_id / "summary.json").read_text())


@pytest.mark.slow
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


def stored_goals(run_dir: Path) -> list[tuple[str, set[str], float]]:
    """(task, scenarios fired on the goal, core API accuracy) per scored goal, read from the stored JSON lines."""
    per_goal = {}
    for line in (run_dir / "scores.jsonl").read_text().splitlines():
        score = json.loads(line)
        if score["judge"] == "core_api_accuracy":
            per_goal[score["episode_id"]] = score["per_goal"]
    goals = []
    for line in (run_dir / "episodes.jsonl").read_text().splitlines():
        episode = json.loads(line)
        fired: dict[int, set[str]] = defaultdict(set)
        for ev in episode["events"]:
            if ev["kind"] == "tool_result" and not ev.get("replayed"):
                fired[ev["goal"]].update(ev.get("scenarios") or [])
        for goal, value in enumerate(per_goal[episode["episode_id"]]):
            if value is not None:
                goals.append((episode["task_id"], fired[goal], value))
    return goals


def test_the_scenario_that_hurt_has_the_larger_gap(tmp_path: Path) -> None:
    # Isolated, the naive agent (no recovery) loses a third of the goals to failure.any_tool and none to
    # notice.cart_price_changed (an extra sentence in view_cart's result); stacked, the table must say the same.
    stressors = "failure.any_tool,notice.cart_price_changed"
    summary = run(tmp_path, "hurt", "--stressors", stressors, agent="naive", limit=6)
    rows = summary["stacking"]["by_scenario"]  # type: ignore[index]
    assert [r["scenario"] for r in rows] == ["failure.any_tool", "notice.cart_price_changed"]
    assert rows[0]["gap"] > 0.5 > rows[1]["gap"]
    goals = stored_goals(tmp_path / "hurt")
    for row in rows:
        name = row["scenario"]
        tasks = {task for task, fired, _ in goals if name in fired}
        touched = [v for task, fired, v in goals if name in fired]
        untouched = [v for task, fired, v in goals if task in tasks and name not in fired]
        assert row["tasks"] == len(tasks)
        for side, values in (("touched", touched), ("untouched", untouched)):
            assert row[side]["goals"] == len(values) > 0
            assert row[side]["accuracy"] == round(sum(values) / len(values), 4)
            assert row[side]["ci95"] == list(wilson(sum(values), len(values)))  # type: ignore[arg-type]
        assert row["gap"] == round(sum(untouched) / len(untouched) - sum(touched) / len(touched), 4)
    text = (tmp_path / "hurt" / "summary.md").read_text()
    assert "## Stressors stacked: which scenario hurt" in text and "Observational, not causal" in text
    assert text.index("| failure.any_tool |") < text.index("| notice.cart_price_changed |")
    code, out = invoke("report", str(tmp_path / "hurt"), "--no-html")
    flat = " ".join(out.split())  # titles and notes wrap at the console's width
    assert code == 0 and "which scenario hurt" in flat and "(--stressor-mode isolated)" in flat
    page = (tmp_path / "hurt" / "report.html").read_text()
    assert "id=stacking_scenarios" in page and "accuracy on the goals each scenario fired on" in page
    view = build_run_documents(tmp_path / "hurt", "hurt").run
    assert "stacking_scenarios" in [s["key"] for s in view["sections"]]
    assert any("each scenario fired on" in chart for chart in view["charts"])


def test_scenario_rows_compare_within_the_tasks_where_each_fired() -> None:
    a, b = frozenset({"a"}), frozenset({"a", "b"})
    goals = [
        FiredGoal("t1", a, 0.0),
        FiredGoal("t1", frozenset(), 1.0),
        FiredGoal("t1", b, 0.0),  # b co-fired with a: touched for both
        FiredGoal("t2", frozenset(), 1.0),  # a task where neither fired: on neither side
        FiredGoal("t3", frozenset({"c"}), 1.0),  # c touched every goal of its tasks: no gap
        FiredGoal("t1", frozenset({"d"}), 1.0),
    ]
    rows = {r["scenario"]: r for r in by_scenario(goals)}
    assert [r["scenario"] for r in by_scenario(goals)] == ["a", "b", "d", "c"]
    assert rows["a"]["touched"]["goals"] == 2 and rows["a"]["untouched"]["goals"] == 2  # type: ignore[index]
    assert rows["a"]["gap"] == 1.0 and rows["b"]["gap"] == round(2 / 3, 4)
    assert rows["d"]["gap"] == round(1 / 3 - 1, 4)
    assert rows["c"]["gap"] is None and rows["c"]["untouched"] == {"goals": 0, "accuracy": None, "ci95": None}
    assert by_scenario([FiredGoal("t1", frozenset(), 1.0)]) == []  # nothing fired: no rows, no table
