"""Timed world events end to end: every ``events`` row of multidomain and smart_home, against calibration agents.

One cumulative run per (world, agent) over the tasks the rows name (multidomain, smart_home, the SQL sample) (each
row acts on its own task only): the oracle replays the gold for the changed world (its re-reads come after the
change) and scores 1.0 on every goal, the null agent 0.0, and the naive agent, replaying the gold written for the
world before the change, loses exactly the goals the row writes down (``goals`` and ``also_affects``), per row: by
its calls on the built-in domains, by its answer on the SQL world (its question's data changed before the agent read
it). Reruns with the same seed are alike, events included.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from sim.config.run_config import RunConfig
from sim.core import EpisodeResult, Task
from sim.run.runner import execute
from sim.store.run_store import RunStore
from worlds.registry import load_world
from worlds.stressors import builtin_scenarios
from worlds.stressors.coverage import affected_goals
from worlds.stressors.scenario import Scenario

WORLDS = ("multidomain", "smart_home", "sql_sample")
JUDGE = {"multidomain": "core_api_accuracy", "smart_home": "core_api_accuracy", "sql_sample": "completion"}
"""What a goal is scored by: a SQL question's event changes its answer, not the calls that read it."""
ROWS = tuple(s for s in builtin_scenarios() if s.type == "events")


@cache
def tasks_of(world: str) -> tuple[Task, ...]:
    return tuple(load_world(world).tasks())


def rows_of(world: str) -> dict[str, Scenario]:
    """The world's rows by the task each acts on (one row per task)."""
    ids = {t.id for t in tasks_of(world)}
    found: dict[str, Scenario] = {}
    for row in ROWS:
        task = str(row.params["task"])
        if task in ids:
            assert task not in found, f"{row.name} and {found[task].name} act on the same task"
            found[task] = row
    return found


RUNS: dict[tuple[str, str, str], tuple[RunStore, dict[str, Any]]] = {}
"""One run per (world, agent, label), shared by this module's tests."""


async def run(tmp: pytest.TempPathFactory, world: str, agent: str, label: str = "a") -> tuple[RunStore, dict[str, Any]]:
    key = (world, agent, label)
    if key not in RUNS:
        config = RunConfig.model_validate(
            {
                "out": tmp.mktemp("events"),
                "run_id": f"{world}-{agent}",
                "agent": agent,
                "world": world,
                "tasks": sorted(rows_of(world)),
                "stressors": ["events"],
                "error_judge": "off",
            }
        )
        RUNS[key] = await execute(config)
    return RUNS[key]


def per_goal(store: RunStore, judge: str) -> dict[str, list[float | None]]:
    return {s.episode_id: list(s.per_goal) for s in store.iter_scores() if s.judge == judge}


def test_there_are_twenty_rows_each_with_its_affected_goals_written_down() -> None:
    assert len(ROWS) >= 20
    tasks = {t.id: t for world in WORLDS for t in tasks_of(world)}
    for row in ROWS:
        assert affected_goals(tasks[str(row.params["task"])], row), row.name


@pytest.mark.parametrize("world", WORLDS)
async def test_oracle_one_null_zero_naive_loses_exactly_the_affected_goals(
    tmp_path_factory: pytest.TempPathFactory, world: str
) -> None:
    tasks = {t.id: t for t in tasks_of(world)}
    rows = rows_of(world)
    agents = ("oracle", "null", "naive")
    verdicts = {a: per_goal((await run(tmp_path_factory, world, a))[0], JUDGE[world]) for a in agents}
    for task_id, row in rows.items():
        episode = f"{task_id}#0"
        oracle, null, naive = (verdicts[a][episode] for a in ("oracle", "null", "naive"))
        assert all(v in (1.0, None) for v in oracle), (row.name, oracle)
        assert all(v in (0.0, None) for v in null), (row.name, null)
        lost = [g for g, v in enumerate(naive) if v == 0.0]
        assert lost == affected_goals(tasks[task_id], row), (row.name, naive)
    for agent in ("oracle", "null", "naive"):
        assert (await run(tmp_path_factory, world, agent))[1]["failed_episodes"] == 0


@pytest.mark.parametrize("world", WORLDS)
async def test_each_event_is_in_the_trace_once_where_it_happened(
    tmp_path_factory: pytest.TempPathFactory, world: str
) -> None:
    store, _ = await run(tmp_path_factory, world, "oracle")
    rows = rows_of(world)
    for episode in store.episodes():
        row = rows[episode.task_id]
        happened = [(i, ev) for i, ev in enumerate(episode.events) if ev.kind == "world_event"]
        assert len(happened) == 1, episode.episode_id
        i, event = happened[0]
        assert event.scenarios == [row.name] and event.goal == row.params["goal"]
        assert event.code == f"event:{row.params['kind']}" and event.content == row.params["what"]
        calls_before = [ev for ev in episode.events[:i] if ev.kind == "tool_call" and ev.goal == event.goal]
        assert len(calls_before) == row.params["after_calls"]


async def test_reruns_with_the_same_seed_are_alike(tmp_path_factory: pytest.TempPathFactory) -> None:
    first, _ = await run(tmp_path_factory, "smart_home", "naive")
    again, _ = await run(tmp_path_factory, "smart_home", "naive", label="again")
    assert _played(first) == _played(again)


def _played(store: RunStore) -> dict[str, list[Any]]:
    def shown(episode: EpisodeResult) -> list[Any]:
        return [ev.model_dump(exclude={"t", "usage"}) for ev in episode.events]

    return {episode.episode_id: shown(episode) for episode in store.episodes()} | {
        "states": [e.final_state_hash for e in sorted(store.episodes(), key=lambda e: e.episode_id)]
    }


@pytest.mark.parametrize(("world", "setup"), [("multidomain", "cumulative"), ("smart_home", "isolated")])
async def test_stacked_with_drift_and_outage_the_oracle_keeps_one(
    tmp_path_factory: pytest.TempPathFactory, world: str, setup: str
) -> None:
    """The changed world's gold meets a drifted schema and a backup-path outage: the gold world replays it in the
    world's form, with the change at the same point, and the oracle still scores 1.0 on calls and state."""
    config = RunConfig.model_validate(
        {
            "out": tmp_path_factory.mktemp("stacked"),
            "run_id": "oracle",
            "agent": "oracle",
            "world": world,
            "tasks": sorted(rows_of(world)),
            "stressors": ["events", "drift", "outage"],
            "error_judge": "off",
            "setup": setup,
        }
    )
    store, summary = await execute(config)
    assert summary["failed_episodes"] == 0
    assert summary["core_api_accuracy"] == 1.0 and summary["state_match"] == 1.0, summary
    fired = {name.partition(".")[0] for ep in store.episodes() for ev in ep.events for name in ev.scenarios}
    assert {"events", "drift"} <= fired
