"""Schema drift end to end: stressor-mode isolated runs of every drift row on multidomain and smart_home.

The oracle follows the gold translated to the new schema and keeps 1.0 on every row, renamed lookups included (a
call by a name the agent was never shown counts as the lookup it reached). The naive agent keeps the old schema:
on each row it loses exactly the turns a prediction from the gold and a bare world says it must: a refused call ends
its turn; a flipped default lets its call through, and the judge holds it to the explicit old default wherever the
call is scored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judges.calls.arg_match import ArgMatcher
from judges.calls.core_api import agent_calls, judge_turn
from sim.config.run_config import RunConfig
from sim.core import ToolCall
from sim.run.runner import execute
from sim.store.run_store import RunStore
from tests.support.drift_cases import ROWS, build, fresh, row, tasks
from worlds.stressors.scenario import Scenario
from worlds.stressors.types.drift_auto import drifted_goals

WORLDS = ("multidomain", "smart_home")
LIMIT = 80  # conversations per world (smart_home has 10)


def _config(out: Path, world: str, agent: str, mode: str) -> RunConfig:
    return RunConfig.model_validate(
        {
            "out": out,
            "run_id": f"{world}-{agent}-{mode}",
            "agent": agent,
            "world": world,
            "limit": LIMIT,
            "stressors": ["drift"],
            "stressor_mode": mode,
        }
    )


RUNS: dict[tuple[str, str, str], tuple[RunStore, dict[str, Any]]] = {}
"""One run per (world, agent, mode), shared by this module's tests."""


async def run(
    tmp_path_factory: pytest.TempPathFactory, world: str, agent: str, mode: str = "isolated"
) -> tuple[RunStore, dict[str, Any]]:
    key = (world, agent, mode)
    if key not in RUNS:
        RUNS[key] = await execute(_config(tmp_path_factory.mktemp("drift"), world, agent, mode))
    return RUNS[key]


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.slow
async def test_the_oracle_scores_one_on_every_drift_row(tmp_path_factory: pytest.TempPathFactory, world: str) -> None:
    _, summary = await run(tmp_path_factory, world, "oracle")
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0
    rows = summary["stressors"]["by_scenario"]
    assert rows and all(r["after"] == 1.0 and r["before"] == 1.0 for r in rows), rows
    expected = {s.name for s in ROWS if any(drifted_goals(t, s) for t in tasks(world)[:LIMIT])}
    assert {r["name"] for r in rows} == expected
    assert summary["stressors"]["unpaired_episodes"] == {}


@pytest.mark.parametrize("world", WORLDS)
async def test_a_renamed_lookup_counts_as_the_lookup_it_reached(
    tmp_path_factory: pytest.TempPathFactory, world: str
) -> None:
    store, _ = await run(tmp_path_factory, world, "oracle")
    read_only = {s.name: s.read_only for s in fresh(world).specs()}
    renamed = {"fetch_stock_quote", "fetch_energy_usage", "search_recipes_v2"}
    original = {t.id: t for t in tasks(world)}
    seen = 0
    for ep in store.episodes():
        if not ep.variant.startswith("drift."):
            continue
        shown = {s.name for s in ep.tools}
        for turn in range(ep.turns_played):
            for call, counted_read_only in agent_calls(ep, turn):
                if call.name in shown:
                    continue
                seen += call.name in renamed
                stressor = build(row(ep.variant))
                stressor.on_task(original[ep.task_id])  # the pick is made on the unstressed task
                assert counted_read_only == read_only[stressor.old_name], (ep.episode_id, call.name)
                events = [e for e in ep.events if e.call is not None and e.call.id == call.id]
                assert any(e.read_only == read_only[stressor.old_name] for e in events)
    assert seen > 0


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.slow
async def test_the_naive_agent_loses_exactly_the_predicted_turns(
    tmp_path_factory: pytest.TempPathFactory, world: str
) -> None:
    _, summary = await run(tmp_path_factory, world, "naive")
    measured = {r["name"]: r for r in summary["stressors"]["by_scenario"]}
    predicted = {s.name: await _predicted(world, s) for s in ROWS}
    predicted = {name: p for name, p in predicted.items() if p[0]}
    assert set(measured) == set(predicted)
    for name, (turns, right) in predicted.items():
        r = measured[name]
        assert (r["turns"], r["before"], r["after"]) == (turns, 1.0, round(right / turns, 4)), (name, r, right)
        assert r["after"] < 1.0, r  # every row costs the old schema something


async def _predicted(world: str, s: Scenario) -> tuple[int, int]:
    """(drifted turns with a core call, those the naive agent still gets right), from the gold and a bare world.

    The naive agent replays each turn's unstressed primary path on its own world (earlier turns' failures carry
    over) and stops at the first failing call. From the drift's first turn, a call the translated gold writes
    differently is refused before the world, except under a flipped default, where it runs with the new default.
    Each drifted turn is then judged against the translated gold."""
    specs = {spec.name: spec for spec in fresh(world).specs()}
    schemas = {name: spec.parameters for name, spec in specs.items()}
    total = right = 0
    for task in tasks(world)[:LIMIT]:
        drift = build(s)
        new_task = drift.on_task(task)
        w = fresh(world)
        turns, new_default = set(drifted_goals(task, s)), drift.params.get("new_default")
        for t, (turn, new_turn) in enumerate(zip(task.goals, new_task.goals, strict=True)):
            made: list[tuple[ToolCall, bool]] = []
            for old, new in zip(turn.gold, new_turn.gold, strict=True):
                sent = ToolCall(id=f"c{t}", name=old.name, arguments=dict(old.arguments))
                native = sent
                if old != new and drift.op != "default_flip":
                    break
                if old != new:  # a flipped default the call left out
                    native = ToolCall(id=sent.id, name=old.name, arguments={**old.arguments, drift.param: new_default})
                if not (await w.call(native)).ok:
                    break
                made.append((sent, specs[old.name].read_only))
            if t in turns and any(c.role == "core" for c in new_turn.gold):
                total += 1
                right += judge_turn(new_turn, made, schemas, ArgMatcher()).correct
    return total, right


@pytest.mark.parametrize("world", WORLDS)
async def test_stacked_drift_keeps_the_oracle_at_one(tmp_path_factory: pytest.TempPathFactory, world: str) -> None:
    """Every drift row at once (cumulative): picks never wrap a call twice, so the oracle still scores 1.0."""
    store, summary = await run(tmp_path_factory, world, "oracle", "cumulative")
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0
    fired = {name for ep in store.episodes() for e in ep.events for name in e.scenarios}
    assert {name for name in fired if name.startswith("drift.auto_")}


@pytest.mark.parametrize("stack", [["adhoc", "dependency", "notice", "drift"], ["limitation", "drift"]])
async def test_drift_stacked_with_the_stressors_that_read_calls_keeps_the_oracle_at_one(
    tmp_path: Path, stack: list[str]
) -> None:
    """Format rules, prerequisites, limitations and required follow-ups read the calls of their tools by the documented
    name and schema; every drift pick leaves those alone (``claims``), so stacked they still score 1.0. (Limitations
    go apart: a format rule's rewritten values break their comparisons, drift or not.)"""
    config = _config(tmp_path, "multidomain", "oracle", "cumulative").model_copy(update={"stressors": stack})
    store, summary = await execute(config)
    assert summary["failed_episodes"] == 0 and summary["core_api_accuracy"] == 1.0
    fired = {name.split(".")[0] for ep in store.episodes() for e in ep.events for name in e.scenarios}
    assert "drift" in fired  # the others rewrote the gold the oracle follows: it gives them nothing to refuse
    assert {name.split(".")[0] for ep in store.episodes() for name in ep.stressors} == set(stack)
