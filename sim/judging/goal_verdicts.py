"""Per-goal verdicts of one judge over a run's score set, keyed by episode id: what the views by prefix of stressors
(``incremental_summary``) and by complexity × user (``complexity_by_user``) read.

The newest verdict of an episode wins, and a newer judge fault is no verdict. On a goal a stressor made impossible
(an outage with no way around it, a removed function) right is declining right: the ``decline`` judge's verdict
stands in for the judge's there, as in the isolated tables (``sim.judging.stressor_summary``).
"""

from __future__ import annotations

from judges.names import JudgeName
from sim.core import EpisodeId
from sim.store.run_store import RunStore

PerGoal = list[float | None]


def goal_verdicts(
    store: RunStore, score_set: str, judge: str = JudgeName.CORE_API_ACCURACY
) -> dict[EpisodeId, PerGoal]:
    """Every scored episode's per-goal verdicts (declines in place on impossible goals); streams the scores."""
    verdicts: dict[EpisodeId, PerGoal] = {}
    declined: dict[EpisodeId, PerGoal] = {}
    for score in store.iter_scores(score_set):
        key = EpisodeId.parse(score.episode_id)
        if score.judge == judge:
            if score.judge_fault:
                verdicts.pop(key, None)
            else:
                verdicts[key] = list(score.per_goal)
        elif score.judge == JudgeName.DECLINE and score.per_goal:
            declined[key] = list(score.per_goal)
    for key, marks in declined.items():
        if key in verdicts:
            padded = marks + [None] * (len(verdicts[key]) - len(marks))  # a goal without a mark keeps its verdict
            verdicts[key] = [d if d is not None else v for v, d in zip(verdicts[key], padded, strict=False)]
    return verdicts
