"""SEL toolkits per question: each task offers its database's functions and its own joined table's (``Goal.tools``),
never another database's or another join's; obfuscation renames them with the functions; the episode offers
only them; the import report gives the mean size."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.config.run_config import RunConfig
from sim.core import Task
from sim.run.runner import execute
from tests.support.paths import SPIDER
from worlds.sql.engine.model import ImportedWorld
from worlds.sql.ingest.folder import write_world
from worlds.sql.ingest.importer import ImportOptions, import_world
from worlds.sql.sample import import_sample


def joins(task: Task) -> bool:
    return " JOIN " in task.description.upper()


def check_toolkits(world: ImportedWorld) -> None:
    """Every task offers its gold and only functions of its database; tasks on one database that join no tables
    offer the same functions, and a join question those plus its joined table's."""
    by_name = {f.name: f for f in world.functions}
    base: dict[str, set[str]] = {}
    for task in sorted(world.tasks, key=joins):  # the tasks without a join first: they give each database's base
        goal = task.goals[0]
        assert goal.tools is not None, task.id
        tools = set(goal.tools)
        assert {c.name for c in goal.gold} <= tools, task.id
        assert {by_name[name].db_id for name in tools} == {task.tags[1]}, task.id
        if not joins(task):
            assert base.setdefault(task.tags[1], tools) == tools, task.id
        elif task.tags[1] in base:
            assert base[task.tags[1]] < tools, task.id
    assert world.report.toolkit_mean is not None and world.report.toolkit_mean < world.report.functions


def test_a_sel_task_offers_its_database_and_its_own_join() -> None:
    world = import_sample(ImportOptions(world="s", style="sel"))
    check_toolkits(world)
    assert any(joins(t) for t in world.tasks) and not all(joins(t) for t in world.tasks)
    assert world.report.toolkit_mean < len(world.functions)  # type: ignore[operator]


def test_obfuscation_renames_the_toolkits() -> None:
    plain = import_sample(ImportOptions(world="s", style="sel"))
    hidden = import_sample(ImportOptions(world="s", style="sel", obfuscate=True))
    check_toolkits(hidden)
    assert all(name.startswith("function_") for t in hidden.tasks for name in t.goals[0].tools or [])
    sizes = [len(t.goals[0].tools or []) for t in plain.tasks]
    assert [len(t.goals[0].tools or []) for t in hidden.tasks] == sizes


async def test_an_episode_offers_only_the_task_s_toolkit(tmp_path: Path) -> None:
    world = import_sample(ImportOptions(world="s", style="sel"))
    folder = write_world(world, tmp_path / "sel")
    config = RunConfig.model_validate({"out": tmp_path, "run_id": "r", "world": str(folder), "agent": "oracle"})
    store, summary = await execute(config)
    assert summary["completion"] == summary["core_api_accuracy"] == 1.0
    toolkits = {t.id: set(t.goals[0].tools or []) for t in world.tasks}
    for episode in store.episodes():
        assert episode.tools_at(0) == toolkits[episode.task_id], episode.task_id


@pytest.mark.spider
@pytest.mark.skipif(not (SPIDER / "dev.json").is_file(), reason=f"Spider sample not found at {SPIDER}")
def test_on_spider_a_sel_question_offers_a_twentieth_of_the_world() -> None:
    world = import_world("spider", SPIDER / "database", SPIDER / "dev.json", ImportOptions(world="s", style="sel"))
    check_toolkits(world)
    assert world.report.functions > 2000 and world.report.toolkit_mean is not None
    assert world.report.toolkit_mean < world.report.functions / 10
