"""Backup-path length beside recovery (seed 001): on the goals a backup outage cuts (``outage.backup``: the first
function of the primary path goes down and another path avoids it), how many calls the way round takes against
the primary path, per goal and on average, and whether the agent recovered.

Per goal of every scored episode that ran a backup-outage row (cumulative, isolated or incremental alike): the
primary and backup path lengths (``worlds.stressors.types.outage.backup_lengths``, from the task), whether the
outage fired on the goal (a tool result it answered: the agent called the dead function) and core API accuracy's
verdict. Rows by how many more calls the backup path takes (shorter, same, +1, +2, +3 or more): goal runs, runs
where it fired, recovery (right among those) with a Wilson interval; and the mean lengths and extra calls over the
distinct cut goals. Streams the episodes; keeps a few numbers per
cut goal.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pydantic import BaseModel, Field

from judges.common.stats import rate, wilson
from sim.core import EpisodeId
from sim.judging.goal_verdicts import goal_verdicts
from sim.judging.stacking_summary import FiredMark
from sim.store.run_store import RunStore, StoreError
from worlds.registry import load_world
from worlds.stressors import builtin_scenarios
from worlds.stressors.catalog import selected_rows
from worlds.stressors.types.outage import backup_lengths

TOP = 3
"""Goals whose backup path is this many calls longer or more share the last row."""


class _Outline(BaseModel):
    episode_id: str
    task_id: str = ""
    stressors: list[str] = Field(default_factory=list)
    events: list[FiredMark] = Field(default_factory=list)


def backup_path_summary(store: RunStore, score_set: str) -> dict[str, Any] | None:
    """The rows for a run with a backup-outage row; None otherwise."""
    try:
        config = store.manifest()["config"]
    except StoreError:
        return None
    rows = {s.name: s for s in builtin_scenarios()} | selected_rows(config.get("stressors") or [])
    backups = {n for n, s in rows.items() if s.type == "outage" and s.params.get("mode", "backup") == "backup"}
    if not backups & set(selected_rows(config.get("stressors") or [])):
        return None
    tasks = {t.id: t for t in load_world(config["world"]).tasks()}
    verdicts = goal_verdicts(store, score_set)
    lengths: dict[str, dict[int, tuple[int, int]]] = {}
    cells: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])  # extra calls -> goals, fired, recovered
    per_goal: dict[tuple[str, int], dict[str, Any]] = {}
    for ep in store.iter_episodes(_Outline):
        active = backups & set(ep.stressors)
        values = verdicts.get(EpisodeId.parse(ep.episode_id))
        task = tasks.get(ep.task_id)
        if not active or not values or task is None:
            continue
        cut = lengths.setdefault(ep.task_id, backup_lengths(task))
        fired = {e.goal for e in ep.events if e.kind == "tool_result" and not e.replayed and active & set(e.scenarios)}
        for g, (first, backup) in cut.items():
            value = values[g] if g < len(values) else None
            if value is None:
                continue
            cell, hit = cells[max(-1, min(TOP, backup - first))], g in fired
            cell[0], cell[1], cell[2] = cell[0] + 1, cell[1] + hit, cell[2] + (hit and value >= 1.0)
            blank = {"task": ep.task_id, "goal": g, "primary": first, "backup": backup, "episodes": 0}
            row = per_goal.setdefault((ep.task_id, g), {**blank, "fired": 0, "recovered": 0})
            row["episodes"] += 1
            row["fired"] += hit
            row["recovered"] += hit and value >= 1.0
    if not per_goal:
        return None
    goals = [per_goal[k] for k in sorted(per_goal)]  # by task and goal: not the order episodes were stored in
    return {"by_length": _by_length(cells), "mean": _means(goals), "per_goal": goals}


def _by_length(cells: dict[int, list[int]]) -> list[dict[str, Any]]:
    """Rows by extra calls of the backup path: shorter (-1), as long (0), +1, +2, +3 or more."""
    names = {-1: "shorter", 0: "same length", TOP: f"+{TOP} or more"}
    return [
        {"extra": names.get(k, f"+{k}"), "goals": n, "fired": hit, "recovery": rate(ok, hit), "ci95": wilson(ok, hit)}
        for k, (n, hit, ok) in sorted(cells.items())
    ]


def _means(goals: list[dict[str, Any]]) -> dict[str, Any]:
    """Over the distinct cut goals (a goal counts once however many trials or variants ran it)."""
    n = len(goals)
    primary, backup = sum(g["primary"] for g in goals) / n, sum(g["backup"] for g in goals) / n
    hit, ok = sum(g["fired"] for g in goals), sum(g["recovered"] for g in goals)
    return {
        "goals": n,
        "primary": round(primary, 3),
        "backup": round(backup, 3),
        "extra_calls": round(backup - primary, 3),
        "fired": hit,
        "recovery": rate(ok, hit),
        "ci95": wilson(ok, hit),
    }
