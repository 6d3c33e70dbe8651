"""Stressors stacked (cumulative mode): goal accuracy by how many distinct scenarios fired on the goal, and per
scenario, on the goals it fired on against the same tasks' goals it did not.

In a cumulative run every stressor is on at once, and what compounds is what fires on the same goal: a drifted name
and a failure and a sponsored result in one request. Per goal of each scored episode: the distinct scenarios that
fired on the agent's calls or changed its world (``Event.scenarios``; replayed gold aside), and core API accuracy's
verdict on the goal. ``by_fired``: rows by that count (0, 1, 2, 3+). ``by_scenario``: which stressor hurt, read from
the same run — observational (the goals a scenario touches are not a random sample, and others may co-fire on them);
an isolated run measures it causally. Each with its goals, accuracy and Wilson interval. Streams the store; keeps a
task id, a set of names and a verdict per goal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pydantic import BaseModel, Field

from judges.common.stats import rate, wilson
from judges.names import JudgeName
from sim.store.run_store import RunStore, StoreError

TOP = 3
"""Goals with this many fired scenarios or more share the last row."""


class FiredMark(BaseModel):
    """What a summary of fired scenarios reads of a stored event (``backup_paths`` reads it too)."""

    kind: str
    turn: int = 0
    goal: int | None = None
    replayed: bool = False
    scenarios: list[str] = Field(default_factory=list)


class _FiredOutline(BaseModel):
    episode_id: str
    task_id: str = ""
    events: list[FiredMark] = Field(default_factory=list)


class FiredGoal(NamedTuple):
    """One scored goal of one episode: its task, the scenarios that fired on it, core API accuracy's verdict."""

    task: str
    fired: frozenset[str]
    value: float


def stacking_summary(store: RunStore, score_set: str) -> dict[str, object] | None:
    """Rows by scenarios fired per goal and per scenario; None for runs that stacked no stressor."""
    try:
        config = store.manifest()["config"]
    except StoreError:  # hand-built stores have no run manifest
        return None
    if not config.get("stressors") or config.get("stressor_mode", "cumulative") != "cumulative":
        return None
    goals = list(_fired_goals(store, score_set))
    if not goals:
        return None
    return {"by_fired": by_fired(goals), "by_scenario": by_scenario(goals)}


def _fired_goals(store: RunStore, score_set: str) -> list[FiredGoal]:
    verdicts: dict[str, list[float | None]] = {}
    for score in store.iter_scores(score_set):
        if score.judge == JudgeName.CORE_API_ACCURACY:  # the newest verdict wins; a newer judge fault is no verdict
            if score.judge_fault:
                verdicts.pop(score.episode_id, None)
            else:
                verdicts[score.episode_id] = list(score.per_goal)
    goals: list[FiredGoal] = []
    for ep in store.iter_episodes(_FiredOutline):
        per_goal = verdicts.get(ep.episode_id)
        if not per_goal:
            continue
        fired: dict[int, set[str]] = {}
        for ev in ep.events:
            # A world event fires on the goal it happened in, as a stressor acting on a call does.
            if ev.kind in ("tool_result", "world_event") and not ev.replayed and ev.scenarios:
                goal = ev.turn if ev.goal is None else ev.goal
                fired.setdefault(goal, set()).update(ev.scenarios)
        task = ep.task_id or ep.episode_id.split("#")[0]
        goals += [FiredGoal(task, frozenset(fired.get(g, ())), v) for g, v in enumerate(per_goal) if v is not None]
    return goals


def by_fired(goals: Sequence[FiredGoal]) -> list[dict[str, object]]:
    """Goal accuracy by how many distinct scenarios fired on the goal (0, 1, 2, 3+)."""
    tally = [[0.0, 0] for _ in range(TOP + 1)]  # right goals, scored goals
    for goal in goals:
        row = tally[min(TOP, len(goal.fired))]
        row[0] += goal.value
        row[1] += 1
    return [{"fired": f"{k}+" if k == TOP else str(k), **_side(right, int(n))} for k, (right, n) in enumerate(tally)]


def by_scenario(goals: Sequence[FiredGoal]) -> list[dict[str, object]]:
    """Per scenario that fired: accuracy on the goals it touched vs the untouched goals of the tasks it touched
    (every trial of them; goals where other scenarios fired count on the untouched side). ``gap`` is untouched
    minus touched: positive where the goals it fired on did worse. Most harmful first; no gap (nothing untouched
    to compare with) last."""
    tasks: dict[str, set[str]] = {}
    for goal in goals:
        for name in goal.fired:
            tasks.setdefault(name, set()).add(goal.task)
    rows: list[tuple[tuple[bool, float, str], dict[str, object]]] = []
    for name, where in tasks.items():
        touched, untouched = [0.0, 0], [0.0, 0]
        for goal in goals:
            if goal.task in where:
                side = touched if name in goal.fired else untouched
                side[0] += goal.value
                side[1] += 1
        (hit, n_hit), (miss, n_miss) = touched, untouched
        gap = round(miss / n_miss - hit / n_hit, 4) if n_miss else None  # a fired scenario touched >= 1 goal
        row = {
            "scenario": name,
            "tasks": len(where),
            "touched": _side(hit, int(n_hit)),
            "untouched": _side(miss, int(n_miss)),
            "gap": gap,
        }
        rows.append(((gap is None, -(gap or 0.0), name), row))
    return [row for _, row in sorted(rows, key=lambda kr: kr[0])]


def _side(right: float, n: int) -> dict[str, object]:
    return {"goals": n, "accuracy": rate(right, n), "ci95": wilson(right, n)}
