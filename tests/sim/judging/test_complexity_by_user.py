"""Accuracy by complexity × user style: rows the run's stressor conditions, columns its users, from one run in
which every user played every unit; recounted here from the stored scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from sim.core import EpisodeId
from sim.judging.complexity_by_user import table
from sim.judging.user_summary import user_labels

USERS = "scripted:explicit,scripted:coreferential"


def run(tmp_path: Path, run_id: str, agent: str, *extra: str) -> dict[str, Any]:
    args = ["run", "--agent", agent, "--world", "multidomain", "--limit", "5", "--out", str(tmp_path), "-q"]
    result = CliRunner().invoke(app, [*args, "--run-id", run_id, "--user", USERS, *extra])
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / run_id / "summary.json").read_text())


def test_cells_count_the_goals_of_their_row_and_user() -> None:
    verdicts: dict[EpisodeId, list[float | None]] = {
        EpisodeId("t1", 0, "", "a"): [1.0, 1.0],
        EpisodeId("t1", 0, "", "b"): [1.0, 0.0],
        EpisodeId("t1", 0, "x", "a"): [0.0, 1.0],
        EpisodeId("t1", 0, "x", "b"): [0.0, None],
    }
    rows = table(
        verdicts, ["none", "x"], ["a", "b"], lambda v: v or "none", lambda key, n: [1] if key.variant else None
    )
    assert [r["complexity"] for r in rows] == ["none", "x"]
    assert rows[0]["cells"]["a"] == {"goals": 2, "accuracy": 1.0, "ci95": None}  # one task: no interval
    assert rows[0]["cells"]["b"]["accuracy"] == 0.5
    assert rows[1]["cells"]["a"] == {"goals": 1, "accuracy": 1.0, "ci95": None}  # only the touched goal counts
    assert rows[1]["cells"]["b"]["goals"] == 0 and rows[1]["cells"]["b"]["accuracy"] is None


@pytest.mark.parametrize(("agent", "value"), [("oracle", 1.0), ("null", 0.0)])
def test_an_isolated_run_with_two_users_fills_every_cell(tmp_path: Path, agent: str, value: float) -> None:
    summary = run(tmp_path, agent, agent, "--stressors", "adhoc,drift", "--stressor-mode", "isolated")
    grid = summary["complexity_by_user"]
    assert grid["users"] == USERS.split(",")
    assert [r["complexity"] for r in grid["rows"]] == ["none", "adhoc", "drift"]
    for row in grid["rows"]:
        counts = {c["goals"] for c in row["cells"].values()}
        assert len(counts) == 1 and counts.pop() > 0  # both users played the same goals
        assert {c["accuracy"] for c in row["cells"].values()} == {value}
    text = (tmp_path / agent / "summary.md").read_text()
    assert "Accuracy by complexity × user style" in text


def test_one_user_or_no_stressors_gives_no_table(tmp_path: Path) -> None:
    assert "complexity_by_user" not in run(tmp_path, "plain", "null")
    args = ["run", "--agent", "null", "--world", "multidomain", "--limit", "2", "--out", str(tmp_path), "-q"]
    result = CliRunner().invoke(app, [*args, "--run-id", "one", "--stressors", "adhoc"])
    assert result.exit_code == 0, result.output
    assert "complexity_by_user" not in json.loads((tmp_path / "one" / "summary.json").read_text())


def test_columns_are_the_labels_episode_ids_carry_not_the_users_spelling() -> None:
    assert user_labels("scripted:terse + impatient, llm@busy_parent") == ["scripted:terse+impatient", "llm@busy_parent"]
    assert user_labels(None) == []
