"""Accuracy by complexity × user style: one row per stressor condition of the run, one column per user that played
it (``--user`` with several users: every user plays every unit with the same seeds), each cell the goal accuracy
with its goals and a 95% interval from a bootstrap over tasks.

The rows follow the run's stressor mode: isolated, the unstressed baseline then each scenario type, on the goals
its scenarios touch (as the isolated tables count them, ``sim.judging.stressor_summary``); incremental, the
baseline then each prefix of the items in the order given; cumulative, one row with every item stacked. A view
from one run, so the cells of a row share tasks and seeds and a column's rows share its user.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from judges.common.stats import cluster_bootstrap
from sim.core import EpisodeId
from sim.core.episode_id import incremental_prefixes
from sim.judging.goal_verdicts import PerGoal, goal_verdicts
from sim.judging.user_summary import user_labels
from sim.store.run_store import RunStore, StoreError
from worlds.registry import load_world
from worlds.stressors import builtin_scenarios
from worlds.stressors.catalog import selected_rows
from worlds.stressors.coverage import affected_goals

BASELINE = "none"
Goals = Callable[[EpisodeId, int], list[int] | None]
"""The goals of an episode a row counts (None: every goal), given its id and its verdict count."""


def complexity_by_user(store: RunStore, score_set: str) -> dict[str, Any] | None:
    """The table for a run with several users and stressors; None otherwise."""
    try:
        config = store.manifest()["config"]
    except StoreError:
        return None
    users = user_labels(config.get("user"))
    items = list(config.get("stressors") or [])
    if len(users) < 2 or not items:
        return None
    mode = config.get("stressor_mode", "cumulative")
    verdicts = goal_verdicts(store, score_set)
    if mode == "isolated":
        row_of, goals = _isolated(config["world"], items)
        order = [BASELINE, *sorted({row_of(v) for v in {k.variant for k in verdicts} if v})]
    elif mode == "incremental":
        order = [BASELINE, *incremental_prefixes(items)]
        row_of, goals = (lambda variant: variant or BASELINE), (lambda key, n: None)
    else:
        order = ["+".join(items)]
        row_of, goals = (lambda variant: order[0]), (lambda key, n: None)
    return {"mode": mode, "users": users, "rows": table(verdicts, order, users, row_of, goals)}


def table(
    verdicts: dict[EpisodeId, PerGoal], order: list[str], users: list[str], row_of: Callable[[str], str], goals: Goals
) -> list[dict[str, Any]]:
    """Per row (in ``order``) and user: goals scored, accuracy and its task-bootstrap interval."""
    sums: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    for key, values in verdicts.items():
        counted = goals(key, len(values))
        for g in range(len(values)) if counted is None else counted:
            value = values[g] if g < len(values) else None
            if value is not None:
                cell = sums[row_of(key.variant), key.user][key.task]
                cell[0], cell[1] = cell[0] + value, cell[1] + 1
    rows = []
    for name in order:
        cells = {}
        for user in users:
            by_task = sums.get((name, user), {})
            right, n = sum(v[0] for v in by_task.values()), sum(v[1] for v in by_task.values())
            cells[user] = {
                "goals": int(n),
                "accuracy": round(right / n, 4) if n else None,
                "ci95": cluster_bootstrap([(by_task[t][0], by_task[t][1]) for t in sorted(by_task)]),
            }
        rows.append({"complexity": name, "cells": cells})
    return rows


def _isolated(world: str, items: list[str]) -> tuple[Callable[[str], str], Goals]:
    """Isolated runs: a scenario's row is its type, and it counts the goals the scenario touches."""
    tasks = {t.id: t for t in load_world(world).tasks()}
    scenarios = {s.name: s for s in builtin_scenarios()} | selected_rows(items)
    memo: dict[tuple[str, str], list[int] | None] = {}

    def row_of(variant: str) -> str:
        if not variant:
            return BASELINE
        scenario = scenarios.get(variant)
        return scenario.type if scenario is not None else variant

    def goals(key: EpisodeId, count: int) -> list[int] | None:
        if not key.variant:
            return None
        if (key.task, key.variant) not in memo:
            task = tasks.get(key.task)
            memo[key.task, key.variant] = [] if task is None else affected_goals(task, scenarios.get(key.variant))
        return memo[key.task, key.variant]

    return row_of, goals
