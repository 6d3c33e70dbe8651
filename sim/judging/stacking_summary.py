"""Stressors stacked (cumulative mode): goal accuracy by how many distinct scenarios fired on the goal.

In a cumulative run every stressor is on at once, and what compounds is what fires on the same goal: a drifted
name and a failure and a sponsored result in one request. Per goal of each scored episode: the distinct
scenarios that fired on the agent's calls (``Event.scenarios``; replayed gold aside), and core API accuracy's
verdict on the goal. Rows by that count (0, 1, 2, 3+), each with its goals, accuracy and Wilson interval.
Streams the store; keeps a few numbers per episode.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from judges.common.stats import rate, wilson
from judges.names import JudgeName
from sim.store.run_store import RunStore, StoreError

TOP = 3
"""Goals with this many fired scenarios or more share the last row."""


class _FiredMark(BaseModel):
    kind: str
    turn: int = 0
    goal: int | None = None
    replayed: bool = False
    scenarios: list[str] = Field(default_factory=list)


class _FiredOutline(BaseModel):
    episode_id: str
    events: list[_FiredMark] = Field(default_factory=list)


def stacking_summary(store: RunStore, score_set: str) -> dict[str, object] | None:
    """Rows by scenarios fired per goal; None for runs that stacked no stressor."""
    try:
        config = store.manifest()["config"]
    except StoreError:  # hand-built stores have no run manifest
        return None
    if not config.get("stressors") or config.get("stressor_mode", "cumulative") != "cumulative":
        return None
    verdicts: dict[str, list[float | None]] = {}
    for score in store.iter_scores(score_set):
        if score.judge == JudgeName.CORE_API_ACCURACY:  # the newest verdict wins; a newer judge fault is no verdict
            if score.judge_fault:
                verdicts.pop(score.episode_id, None)
            else:
                verdicts[score.episode_id] = list(score.per_goal)
    tally = [[0.0, 0] for _ in range(TOP + 1)]  # right goals, scored goals
    for ep in store.iter_episodes(_FiredOutline):
        per_goal = verdicts.get(ep.episode_id)
        if not per_goal:
            continue
        fired: dict[int, set[str]] = {}
        for ev in ep.events:
            if ev.kind == "tool_result" and not ev.replayed and ev.scenarios:
                goal = ev.turn if ev.goal is None else ev.goal
                fired.setdefault(goal, set()).update(ev.scenarios)
        for goal, value in enumerate(per_goal):
            if value is not None:
                row = tally[min(TOP, len(fired.get(goal, ())))]
                row[0] += value
                row[1] += 1
    if not any(n for _, n in tally):
        return None
    return {
        "by_fired": [
            {
                "fired": f"{k}+" if k == TOP else str(k),
                "goals": int(n),
                "accuracy": rate(right, int(n)),
                "ci95": wilson(right, int(n)),
            }
            for k, (right, n) in enumerate(tally)
        ]
    }
