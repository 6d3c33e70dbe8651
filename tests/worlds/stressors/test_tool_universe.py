"""A share of the tool universe (``universe.p10`` ... ``p75``, the API-styles study's shortlist): each goal offers
``ceil(share × its tools)``, its gold always among them, the same tools in every run of a seed; the oracle still
scores 1.0 and the null agent 0.0, on a per-question SQL world and on a SEL one (each question its database's
functions)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from judges.run.run_summary import RunSummary
from sim.config.run_config import RunConfig
from sim.run.runner import execute
from sim.store.run_store import RunStore
from worlds.sql.ingest.folder import write_world
from worlds.sql.ingest.importer import ImportOptions
from worlds.sql.sample import import_sample
from worlds.stressors import builtin_scenarios
from worlds.stressors.types.universe import ToolUniverse, shortlist

SHARES = {"universe.p10": 0.1, "universe.p25": 0.25, "universe.p50": 0.5, "universe.p75": 0.75}


def test_the_shortlist_keeps_the_gold_and_the_share() -> None:
    names = tuple(f"f{i}" for i in range(40))
    needed = frozenset({"f3", "f39"})
    kept = shortlist(names, needed, 0.25, random.Random(1))
    assert len(kept) == 10 and needed <= kept
    assert kept == shortlist(names, needed, 0.25, random.Random(1))  # seeded
    assert kept != shortlist(names, needed, 0.25, random.Random(2))
    assert shortlist(names, frozenset(names[:7]), 0.1, random.Random(1)) == frozenset(names[:7])  # never below gold


def test_rows_and_bad_shares() -> None:
    rows = {s.name: s.params["share"] for s in builtin_scenarios() if s.type == "universe"}
    assert rows == SHARES
    row = next(s for s in builtin_scenarios() if s.name == "universe.p10")
    for bad in (0, 1.5, "half", True):
        with pytest.raises(ValueError, match="share must be a fraction"):
            ToolUniverse(row, 0, {"share": bad})


async def _run(tmp_path: Path, world: str, agent: str, run_id: str) -> tuple[RunStore, RunSummary]:
    config = RunConfig.model_validate(
        {"out": tmp_path, "run_id": run_id, "world": world, "agent": agent, "stressors": list(SHARES),
         "stressor_mode": "isolated"}
    )  # fmt: skip
    return await execute(config)


@pytest.mark.parametrize("style", ["per_question", "sel"])
async def test_oracle_keeps_every_goal_with_the_share_offered(tmp_path: Path, style: str) -> None:
    world = import_sample(ImportOptions(world="u", style=style))
    folder = write_world(world, tmp_path / style)
    store, summary = await _run(tmp_path, str(folder), "oracle", "oracle")
    rows = {r["name"]: r for r in summary["stressors"]["by_scenario"]}
    assert set(rows) == set(SHARES)
    assert all(r["before"] == r["after"] == 1.0 and r["turns"] == len(world.tasks) for r in rows.values())
    universe = {t.id: set(t.goals[0].tools or (f.name for f in world.functions)) for t in world.tasks}
    gold = {t.id: {c.name for p in t.goals[0].paths() for c in p} for t in world.tasks}
    offered: dict[str, set[str]] = {}
    for episode in store.episodes():
        task, _, rest = episode.episode_id.partition("@")
        if not rest:
            continue
        share = SHARES[rest.split("#")[0]]
        tools = episode.tools_at(0)
        assert len(tools) == max(math.ceil(share * len(universe[task])), len(gold[task]))
        assert gold[task] <= tools <= universe[task]
        offered[episode.episode_id] = tools
    again, _ = await _run(tmp_path, str(folder), "oracle", "again")
    assert {e.episode_id: e.tools_at(0) for e in again.episodes() if "@" in e.episode_id} == offered
    _, null = await _run(tmp_path, str(folder), "null", "null")
    assert {r["after"] for r in null["stressors"]["by_scenario"]} == {0.0}
