"""The isolated setup replays gold through the stressors that rewrite it: a format rule's and a drifted schema's
gold reaches the world in its own form, and the history keeps the documented one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim.config.run_config import RunConfig
from sim.run.runner import execute
from worlds.stressors.types.adhoc import AdHocFormat

CONVERSATIONS = 60


def _config(tmp_path: Path, run_id: str, **fields: object) -> RunConfig:
    return RunConfig.model_validate(
        {"out": tmp_path, "run_id": run_id, "world": "multidomain", "limit": CONVERSATIONS, "setup": "isolated",
         "stressors": ["adhoc", "drift"], **fields}
    )  # fmt: skip


@pytest.mark.parametrize("mode", ["cumulative", "isolated"])
@pytest.mark.slow
async def test_the_oracle_keeps_one_under_adhoc_and_drift_in_the_isolated_setup(tmp_path: Path, mode: str) -> None:
    store, summary = await execute(_config(tmp_path, mode, agent="oracle", stressor_mode=mode))
    assert summary["failed_episodes"] == 0 and summary["episodes"] > CONVERSATIONS * (mode == "isolated")
    assert summary["core_api_accuracy"] == summary["conversation_success"] == 1.0
    if mode == "isolated":
        rows = {row["name"]: row for row in summary["stressors"]["by_type"]}
        assert rows.keys() == {"adhoc", "drift"} and all(r["after"] == 1.0 and r["turns"] > 0 for r in rows.values())
    replayed = [e.call for ep in store.episodes() for e in ep.events if e.replayed and e.kind == "tool_call" and e.call]
    renamed = {"activate_scene_v2", "delete_cart_item", "fetch_stock_quote", "fetch_energy_usage", "search_recipes_v2"}
    assert any(c.name in renamed for c in replayed)  # the history shows the gold as the agent must write it
    formatted = re.compile(r"#[0-9A-F]{6}|PT\d+[HMS]|media:\w+:\w+")  # adhoc's forms, never the world's own values
    assert any(isinstance(v, str) and formatted.fullmatch(v) for c in replayed for v in c.arguments.values())


async def test_without_its_replay_hook_a_format_rule_breaks_the_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(AdHocFormat, "on_replay")
    _, summary = await execute(_config(tmp_path, "bare", agent="oracle", stressors=["adhoc"]))
    assert summary["failed_episodes"] > 0  # the world refuses gold written in the format only the stressor reads
