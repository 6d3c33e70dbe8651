"""Hints (seed 001's condition): the agent's instructions say which functions answer each request; the oracle
still scores 1.0 and the null agent 0.0, the baseline episodes carry no hint, and an outage still hides the hinted
function (the agent must find the backup path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.config.run_config import RunConfig
from sim.core import ToolSpec
from sim.run.runner import execute
from worlds.registry import load_world
from worlds.stressors import builtin_scenarios
from worlds.stressors.types.hint import Hint, hint_lines


def spec(name: str, description: str) -> ToolSpec:
    return ToolSpec(name=name, description=description, parameters={"type": "object", "properties": {}})


def test_lines_describe_or_name_the_gold_in_order() -> None:
    specs = {"a": spec("a", "Returns the title. Then more."), "b": spec("b", "Counts rows")}
    gold = [["a", "b"], [], ["gone", "b"]]
    assert hint_lines(gold, specs, "describe") == ["- request 1: Returns the title.; then Counts rows",
                                                   "- request 3: Counts rows"]  # fmt: skip
    assert hint_lines(gold, specs, "name") == ["- request 1: `a`; then `b`", "- request 3: `b`"]
    row = next(s for s in builtin_scenarios() if s.name == "hint.name")
    with pytest.raises(ValueError, match="mode must be one of"):
        Hint(row, 0, {"mode": "shout"})


@pytest.mark.parametrize(("agent", "value"), [("oracle", 1.0), ("null", 0.0)])
async def test_a_sql_world_with_hints(tmp_path: Path, agent: str, value: float) -> None:
    config = RunConfig.model_validate(
        {"out": tmp_path, "run_id": agent, "world": "sql_sample", "agent": agent,
         "stressors": ["hint.describe", "hint.name"], "stressor_mode": "isolated"}
    )  # fmt: skip
    _, summary = await execute(config)
    rows = {r["name"]: r for r in summary["stressors"]["by_scenario"]}
    assert set(rows) == {"hint.describe", "hint.name"}
    assert all(r["before"] == r["after"] == value and r["turns"] == 21 for r in rows.values())
    gold = {t.id: t.goals[0].gold[0].name for t in load_world("sql_sample").tasks()}
    for line in (tmp_path / agent / "episodes.jsonl").read_text().splitlines():
        episode = json.loads(line)
        text, variant = episode["instructions"], episode["variant"]
        assert ("Hints:" in text) == bool(variant)
        assert (f"`{gold[episode['task_id']]}`" in text) == (variant == "hint.name")
