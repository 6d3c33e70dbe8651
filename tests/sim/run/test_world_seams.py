"""Whole runs over the world seams: the oracle is still perfect with goal tool lists and with worlds built per task,
and no run step builds a task-free world to learn the run's tools (``WorldPack.tool_specs`` does)."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import worlds.registry as registry
from sim.config.run_config import RunConfig
from sim.run.runner import execute
from tests.support.world_seams import HOME, PerTaskPack, with_goal_tools


async def run(tmp_path: Path, **kw: object) -> tuple[Any, dict[str, Any]]:
    cfg = RunConfig.model_validate({"out": tmp_path, "run_id": "r", **kw})
    return await execute(cfg)


async def test_the_oracle_is_perfect_when_every_goal_lists_its_tools(tmp_path: Path) -> None:
    tasks = tmp_path / "listed.jsonl"
    tasks.write_text("".join(with_goal_tools(t).model_dump_json() + "\n" for t in HOME.tasks()))
    store, summary = await run(tmp_path / "run", world=str(tasks), agent="oracle")
    assert summary["episodes"] == len(HOME.tasks()) and summary["failed_episodes"] == 0
    assert summary["core_api_accuracy"] == 1.0 and summary["conversation_success"] == 1.0
    episodes = list(store.episodes())
    # Each goal was offered its own list (recorded as a stressor's change of toolkit is) and nothing was refused.
    assert all(ep.goal_tools for ep in episodes)
    assert not [e for ep in episodes for e in ep.events if e.code == "agent:unknown_tool"]


@pytest.mark.parametrize("setup", ["cumulative", "isolated"])
async def test_the_oracle_is_perfect_on_worlds_built_per_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setup: str
) -> None:
    packs: list[PerTaskPack] = []

    def per_task(tasks: object) -> PerTaskPack:
        packs.append(PerTaskPack())
        return packs[-1]

    monkeypatch.setattr(registry, "BUILTIN_WORLDS", MappingProxyType({**registry.BUILTIN_WORLDS, "per_task": per_task}))
    store, summary = await run(tmp_path, world="per_task", agent="oracle", setup=setup, stressors=["outage.backup"])
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0
    built = {task for pack in packs for task in pack.built}
    assert built == {t.id for t in HOME.tasks()}  # PerTaskPack refuses a world without a task: none was asked for
    assert all(ep.instructions.endswith(f"This conversation: {ep.task_id}.") for ep in store.episodes())
