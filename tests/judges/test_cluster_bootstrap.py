"""Intervals that respect clustering: a task's goals move together, so the interval must be wider than Wilson's,
which treats every goal as an independent draw."""

from __future__ import annotations

from judges.common.stats import cluster_bootstrap, wilson
from judges.run.metrics import summarize
from sim.core import EpisodeResult, Goal, Score, Task, UserIntent


def test_whole_tasks_right_or_wrong_give_a_wider_interval_than_wilson() -> None:
    # 20 tasks of 10 goals: half the tasks all right, half all wrong. 200 goals, 50%.
    clusters = [(10.0, 10.0)] * 10 + [(0.0, 10.0)] * 10
    lo, hi = cluster_bootstrap(clusters) or (0.0, 0.0)
    w_lo, w_hi = wilson(100, 200) or (0.0, 0.0)
    assert lo < 0.5 < hi and hi - lo > 2 * (w_hi - w_lo)
    assert cluster_bootstrap(clusters) == (lo, hi)  # deterministic


def test_independent_looking_goals_give_a_similar_interval() -> None:
    clusters = [(5.0, 10.0)] * 20  # every task half right: no task effect
    lo, hi = cluster_bootstrap(clusters) or (0.0, 0.0)
    assert lo == hi == 0.5  # resampling whole identical tasks cannot move the ratio


def test_too_few_tasks_give_no_interval() -> None:
    assert cluster_bootstrap([(3.0, 4.0)]) is None and cluster_bootstrap([]) is None


def test_the_summary_reports_task_clustered_intervals() -> None:
    episodes, scores = [], []
    for t in range(12):
        task = Task(id=f"t{t}", world="w", goals=[Goal(user=UserIntent(explicit="x"), gold=[])] * 3)
        for trial in range(2):
            eid = f"t{t}#{trial}"
            episodes.append(
                EpisodeResult(
                    episode_id=eid,
                    task_id=task.id,
                    trial=trial,
                    seed=0,
                    world="w",
                    agent="a",
                    user="u",
                    task=task,
                    tools=[],
                    turns_played=3,
                )
            )
            right = 1.0 if t % 2 else 0.0
            ident = {"episode_id": eid, "task_id": task.id, "trial": trial}
            scores.append(Score(**ident, judge="core_api_accuracy", value=right, per_goal=[right] * 3))
            scores.append(Score(**ident, judge="conversation_success", value=right))
    summary = summarize(episodes, scores)
    lo, hi = summary["core_api_accuracy_ci95_clustered"]
    w_lo, w_hi = summary["core_api_accuracy_ci95"]
    assert summary["core_api_accuracy"] == 0.5 and summary["tasks_scored"] == 12
    assert lo < w_lo and hi > w_hi
    assert summary["conversation_success_ci95_clustered"] is not None
