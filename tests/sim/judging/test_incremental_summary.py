"""Stressor-mode incremental: every task unstressed and under each prefix of the stressor items (A; A+B; ...),
and the report's rows per prefix with the drop from the row before, recounted here from the stored scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sim.cli.app import app
from sim.core import EpisodeId
from sim.judging.incremental_summary import incremental_rows


def run(tmp_path: Path, run_id: str, agent: str, *extra: str) -> dict[str, Any]:
    args = ["run", "--agent", agent, "--world", "multidomain", "--limit", "6", "--out", str(tmp_path), "-q"]
    result = CliRunner().invoke(app, [*args, "--run-id", run_id, *extra])
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / run_id / "summary.json").read_text())


def test_rows_follow_the_order_given_with_known_numbers() -> None:
    ids: dict[EpisodeId, list[float | None]] = {
        EpisodeId("t1", 0): [1.0, 1.0],
        EpisodeId("t2", 0): [1.0, 0.0],
        EpisodeId("t1", 0, "a"): [1.0, 0.0],
        EpisodeId("t2", 0, "a"): [0.0, 0.0],
        EpisodeId("t1", 0, "a+b"): [1.0, 0.0],
        EpisodeId("t2", 0, "a+b"): [0.0, None],  # an unscored goal is left out of both sides of the drop
    }
    rows = incremental_rows(ids, ["a", "a+b"])["rows"]
    assert [r["stressors"] for r in rows] == ["none", "a", "a+b"]
    assert [r["added"] for r in rows] == ["", "a", "b"]
    assert [r["goals"] for r in rows] == [4, 4, 3]
    assert [r["accuracy"] for r in rows] == [0.75, 0.25, round(1 / 3, 4)]
    assert "drop" not in rows[0]
    assert rows[1]["drop"]["value"] == 0.5 and rows[1]["drop"]["goals"] == 4
    assert rows[2]["drop"]["value"] == 0.0 and rows[2]["drop"]["goals"] == 3
    low, high = rows[1]["drop"]["ci95"]
    assert low <= 0.5 <= high


@pytest.mark.parametrize(("agent", "unstressed"), [("oracle", 1.0), ("null", 0.0)])
def test_a_run_plans_every_prefix_and_reports_it(tmp_path: Path, agent: str, unstressed: float) -> None:
    summary = run(tmp_path, agent, agent, "--stressors", "outage,adhoc", "--stressor-mode", "incremental")
    rows = summary["incremental"]["rows"]
    assert [r["stressors"] for r in rows] == ["none", "outage", "outage+adhoc"]
    episodes = [json.loads(line) for line in (tmp_path / agent / "episodes.jsonl").read_text().splitlines()]
    assert len(episodes) == 6 * 3
    assert {e["episode_id"].split("#")[0].partition("@")[2] for e in episodes} == {"", "outage", "outage+adhoc"}
    assert rows[0]["accuracy"] == unstressed
    if agent == "oracle":  # gold replay takes the backup path and writes the ad-hoc format: nothing lost
        assert [r["accuracy"] for r in rows] == [1.0, 1.0, 1.0]
        assert [r["drop"]["value"] for r in rows[1:]] == [0.0, 0.0]
    else:
        assert all(r["accuracy"] == 0.0 for r in rows)
    text = (tmp_path / agent / "summary.md").read_text()
    assert "## Stressors added one by one" in text and "outage+adhoc" in text


def test_incremental_needs_stressors(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--agent",
            "null",
            "--world",
            "multidomain",
            "--limit",
            "2",
            "--stressor-mode",
            "incremental",
            "--out",
            str(tmp_path),
            "-q",
        ],
    )
    assert result.exit_code != 0
    assert "incremental needs stressors" in result.output
