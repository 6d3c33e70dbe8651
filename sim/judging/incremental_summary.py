"""Stressor-mode incremental: accuracy as complexities are added one by one (unstressed; A; A+B; A+B+C ...), in the
order the run gave them, each row beside the drop from the row before.

Every task runs under every prefix with the same seed (``sim.run.plan.incremental_units``), so a row and the row
before it are paired on the same (task, trial, user, goal). Per row: the goals scored, goal accuracy (core API
accuracy; on a goal a stressor made impossible, declining right) with a 95% interval from a bootstrap over tasks
(a task's goals and trials are not independent), and the drop from the row before (before − this row, in the
paired goals) with its paired task-cluster bootstrap interval. Streams the scores; keeps a verdict list per
episode.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from judges.common.stats import cluster_bootstrap, paired_difference
from judges.names import JudgeName
from sim.core import EpisodeId
from sim.core.episode_id import incremental_prefixes
from sim.judging.goal_verdicts import PerGoal, goal_verdicts
from sim.store.run_store import RunStore, StoreError

BASELINE = "none"
"""The first row's name: the tasks unstressed."""


def incremental_summary(store: RunStore, score_set: str) -> dict[str, Any] | None:
    """The rows by prefix; None for a run that was not stressor-mode incremental."""
    try:
        config = store.manifest()["config"]
    except StoreError:  # hand-built stores have no run manifest
        return None
    if config.get("stressor_mode") != "incremental" or not config.get("stressors"):
        return None
    return incremental_rows(goal_verdicts(store, score_set), incremental_prefixes(config["stressors"]))


def incremental_rows(verdicts: dict[EpisodeId, PerGoal], prefixes: list[str]) -> dict[str, Any]:
    """One row per prefix (the unstressed baseline first), in the order the items were added."""
    variants = ["", *prefixes]
    rows: list[dict[str, Any]] = []
    for k, variant in enumerate(variants):
        by_task: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for key, goals in verdicts.items():
            if key.variant == variant:
                for value in goals:
                    if value is not None:
                        by_task[key.task][0] += value
                        by_task[key.task][1] += 1
        right, n = sum(v[0] for v in by_task.values()), sum(v[1] for v in by_task.values())
        added = variant.split("+")[-1] if variant else ""
        row: dict[str, Any] = {
            "stressors": variant or BASELINE,
            "added": added,
            "goals": int(n),
            "tasks": len(by_task),
            "accuracy": round(right / n, 4) if n else None,
            "ci95": cluster_bootstrap([(by_task[t][0], by_task[t][1]) for t in sorted(by_task)]),
        }
        if k:
            row["drop"] = _drop(verdicts, variants[k - 1], variant)
        rows.append(row)
    return {"metric": JudgeName.CORE_API_ACCURACY, "rows": rows}


def _drop(verdicts: dict[EpisodeId, PerGoal], before: str, after: str) -> dict[str, Any]:
    """Accuracy of the row before minus this row's, on the goals scored in both, with a paired interval over tasks."""
    clusters: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for key, goals in verdicts.items():
        if key.variant != after:
            continue
        prior = verdicts.get(key._replace(variant=before))
        if not prior:
            continue
        for a, b in zip(prior, goals, strict=False):
            if a is not None and b is not None:
                sums = clusters[key.task]
                sums[0], sums[1], sums[2] = sums[0] + a, sums[1] + b, sums[2] + 1
    paired = paired_difference([tuple(clusters[t]) for t in sorted(clusters)])  # type: ignore[misc]
    # paired_difference gives this row minus the one before; a drop is the other way round (+ 0.0: no "-0.0").
    flip = None if paired["ci95"] is None else (round(-paired["ci95"][1], 4) + 0.0, round(-paired["ci95"][0], 4) + 0.0)
    return {
        "value": None if paired["diff"] is None else round(-paired["diff"], 4) + 0.0,
        "ci95": flip,
        "goals": paired["units"],
    }
