"""Runs and task files written before goals were named goals (commit 658cce6: ``Task.turns``, ``Score.per_turn``,
``EpisodeResult.turn_tools``, ``turn<g>:`` error codes) still load, re-score to the same verdicts and report."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from sim.cli.app import run_cli
from sim.core import EpisodeResult, Score, Task
from sim.store.run_store import EPISODES, RunStore
from sim.store.toolkits import TOOLKITS
from worlds.task_files import load_tasks

OLD_RUNS = Path(__file__).parents[2] / "data" / "runs"
"""Run folders ``squall run --world smart_home --limit 3`` wrote at 658cce6 (an oracle's and a null agent's)."""


def _old_run(name: str, tmp_path: Path) -> Path:
    run = tmp_path / name
    shutil.copytree(OLD_RUNS / name, run)
    return run


def _verdict(score: Score) -> tuple[object, ...]:
    return score.value, tuple(score.per_goal), tuple(score.errors)


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["658cce6_oracle_smart_home", "658cce6_null_smart_home"])
def test_an_old_run_rescores_to_identical_verdicts_and_reports(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _old_run(name, tmp_path)
    stored = _lines(run / "scores.jsonl")
    assert stored and all('"per_turn"' in line for line in stored)  # really the old shape

    assert run_cli(["score", str(run)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    found = re.search(r"(\d+) of (\d+) scores identical", out)  # only while the run's judge set is today's
    assert found is None or int(found[1]) == int(found[2]) == len(stored) > 0
    # Every verdict the run holds comes back as it was; judges registered since (a new set's hash) score besides.
    before = {(s.episode_id, s.judge): _verdict(s) for s in map(Score.model_validate_json, stored)}
    rescored = [Score.model_validate_json(line) for line in _lines(run / "scores.jsonl")[len(stored) :]]
    after = {(s.episode_id, s.judge): _verdict(s) for s in rescored}
    assert before and all(after.get(key) == verdict for key, verdict in before.items())

    assert run_cli(["report", str(run), "--no-html"]) == 0
    assert "per task" in capsys.readouterr().out
    assert run_cli(["report", str(run), "--json", "--no-html"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["episodes"] == 3


def test_old_scores_read_with_goal_keys_and_goal_codes() -> None:
    lines = _lines(OLD_RUNS / "658cce6_null_smart_home" / "scores.jsonl")
    assert any('"turn0:' in line for line in lines)
    scores = [Score.model_validate_json(line) for line in lines]
    codes = [e for s in scores for e in s.errors]
    assert codes and all(not e.startswith("turn") for e in codes)
    assert any(e.startswith("goal0:") for e in codes)
    assert any(s.per_goal for s in scores)
    written = scores[0].model_dump(mode="json")
    assert "per_goal" in written and "per_turn" not in written


def test_old_episodes_read_goals_and_goal_tools() -> None:
    line = _lines(OLD_RUNS / "658cce6_oracle_smart_home" / "episodes.jsonl")[0]
    assert '"turns"' in line and '"turn_tools"' in line
    episode = EpisodeResult.model_validate_json(line)
    assert episode.task.goals and episode.goal_tools == json.loads(line)["turn_tools"]
    written = episode.model_dump(mode="json")
    assert "goals" in written["task"] and "turns" not in written["task"] and "goal_tools" in written


def test_old_episodes_keep_their_tools_inline_and_read_through_the_store(tmp_path: Path) -> None:
    """Runs from before toolkits were stored once (``toolkits.jsonl``) hold each episode's tools in its line."""
    run = _old_run("658cce6_oracle_smart_home", tmp_path)
    (first, *_) = RunStore.open_existing(run).episodes()
    assert [t.model_dump(mode="json") for t in first.tools] == json.loads(_lines(run / EPISODES)[0])["tools"]
    assert first.tools and not (run / TOOLKITS).exists()


def test_an_old_task_file_with_turns_loads(tmp_path: Path) -> None:
    old = {
        "id": "old-1",
        "world": "smart_home",
        "turns": [{"user": {"explicit": "Turn off the hallway light."}, "gold": []}],
    }
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(old) + "\n", encoding="utf-8")
    (task,) = load_tasks(path)
    assert task.goals[0].user.explicit == "Turn off the hallway light."
    assert task == Task(id="old-1", world="smart_home", goals=task.goals) == Task.model_validate(old)
    assert list(task.model_dump()).count("goals") == 1 and "turns" not in task.model_dump()
