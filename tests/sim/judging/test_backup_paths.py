"""Backup-path length beside recovery: the goals a backup outage cuts, their primary and backup path lengths from
the task, and recovery where the outage fired (oracle 1.0, naive 0.0: it never looks for another path, null: the
outage never fires)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from worlds.registry import load_world
from worlds.stressors.types.outage import backup_lengths


def run(tmp_path: Path, agent: str, *extra: str) -> dict[str, Any]:
    args = ["run", "--agent", agent, "--world", "sql_sample", "--out", str(tmp_path), "-q", "--run-id", agent]
    result = CliRunner().invoke(app, [*args, *extra])
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / agent / "summary.json").read_text())


def test_lengths_come_from_the_first_path_that_avoids_the_dead_function() -> None:
    cut = {t.id: backup_lengths(t) for t in load_world("sql_sample").tasks()}
    split = {task: goals for task, goals in cut.items() if goals}
    assert len(split) == 7  # the sample's questions with a nested query: whole query, or inner then outer
    assert {lengths for goals in split.values() for lengths in goals.values()} == {(1, 2)}


@pytest.mark.parametrize(("agent", "fired", "recovery"), [("oracle", 7, 1.0), ("naive", 7, 0.0), ("null", 0, None)])
def test_recovery_by_backup_length(tmp_path: Path, agent: str, fired: int, recovery: float | None) -> None:
    paths = run(tmp_path, agent, "--stressors", "outage")["backup_paths"]
    assert paths["by_length"] == [
        {"extra": "+1", "goals": 7, "fired": fired, "recovery": recovery,
         "ci95": paths["by_length"][0]["ci95"]}
    ]  # fmt: skip
    mean = paths["mean"]
    assert (mean["goals"], mean["primary"], mean["backup"], mean["extra_calls"]) == (7, 1.0, 2.0, 1.0)
    assert len(paths["per_goal"]) == 7
    text = (tmp_path / agent / "summary.md").read_text()
    assert "## Backup outage: recovery by backup-path length" in text


def test_no_outage_no_table(tmp_path: Path) -> None:
    assert "backup_paths" not in run(tmp_path, "oracle", "--stressors", "failure")
