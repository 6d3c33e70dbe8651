"""Stressor-mode isolated: accuracy on the goals each scenario can touch, without and with it.

Every scenario's episodes are paired with the baseline episode of the same task and trial (same seed),
and compared on the same goals: those the scenario touches (``worlds.stressors.coverage``: whose gold uses one of
its tools, or the goals its type picks, e.g. for a backup-path outage the goals with a path it can cut). Per
scenario, per operator (a row's ``params['op']``: drift's rename_param, type_drift..., perturb's distractor...) and per
complexity type: the headline metric before (baseline) and after (stressed), the degradation (before - after) and
the retention ratio (after / before), each with a paired task-cluster bootstrap interval (per scenario and per type).
The headline metric is the world's (``headline_judge``): BFCL's AST verdict on single-turn BFCL entries, with core
API accuracy beside it in each row (``core``); else core API accuracy. On a goal the scenario makes impossible (an
outage with no way around it, a missing function) "after" is whether the agent declined right (the ``decline``
judge). ``errors``: the failures per condition by error type (``sim.judging.error_breakdown``).
Streams the score set; holds a few numbers per episode.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from judges.bfcl.bfcl_ast import category_of
from judges.bfcl.error_kinds import goal_kinds
from judges.common.stats import paired_cluster_bootstrap
from judges.names import JudgeName
from sim.core import EpisodeId, Task
from sim.judging.error_breakdown import PerGoal, Touched, error_breakdown
from sim.store.run_store import RunStore
from worlds.registry import load_world
from worlds.stressors import builtin_scenarios
from worlds.stressors.catalog import selected_rows
from worlds.stressors.coverage import affected_goals
from worlds.stressors.scenario import Scenario


def headline_judge(tasks: Iterable[Task]) -> str:
    """The judge an isolated table reports first: BFCL's AST verdict on a world of single-turn BFCL entries (what
    the BFCL studies report), else core API accuracy."""
    return JudgeName.BFCL_AST if any(category_of(t.tags) for t in tasks) else JudgeName.CORE_API_ACCURACY


def stressor_summary(store: RunStore, score_set: str) -> dict[str, Any] | None:
    config = store.manifest()["config"]
    if config.get("stressor_mode") != "isolated":
        return None
    tasks = {t.id: t for t in load_world(config["world"]).tasks()}
    # The rows as the run's items made them (a rate, a from_goal): the goals they touched are computed from those.
    scenarios = {s.name: s for s in builtin_scenarios()} | selected_rows(config.get("stressors") or [])
    headline = headline_judge(tasks.values())
    metrics = list(dict.fromkeys((headline, JudgeName.CORE_API_ACCURACY)))
    per_goal: dict[str, dict[EpisodeId, PerGoal]] = {m: {} for m in metrics}
    declined: dict[EpisodeId, PerGoal] = {}
    kinds: dict[EpisodeId, dict[int, str]] = {}
    kinds_judge = JudgeName.BFCL_AST if headline == JudgeName.BFCL_AST else JudgeName.AST
    for score in store.iter_scores(score_set):
        key = EpisodeId.parse(score.episode_id)
        if score.judge in per_goal:  # the newest verdict wins; a newer judge fault is no verdict
            if score.judge_fault:
                per_goal[score.judge].pop(key, None)
            else:
                per_goal[score.judge][key] = list(score.per_goal)
        elif score.judge == JudgeName.DECLINE and score.per_goal:
            declined[key] = list(score.per_goal)
        if score.judge == kinds_judge and not score.judge_fault:
            kinds[key] = goal_kinds(score)
    memo: dict[tuple[str, str], list[int] | None] = {}

    def touched(task_id: str, variant: str) -> list[int] | None:
        """The goals the variant touches in the task (the same in every trial: computed once)."""
        if (task_id, variant) not in memo:
            task = tasks.get(task_id)
            memo[task_id, variant] = None if task is None else affected_goals(task, scenarios.get(variant))
        return memo[task_id, variant]

    tables = {m: _table(_with_declines(per_goal[m], declined), touched, scenarios) for m in metrics}
    out = tables[headline]
    if headline != JudgeName.CORE_API_ACCURACY:
        _beside(out, tables[JudgeName.CORE_API_ACCURACY])
    breakdown = error_breakdown(_with_declines(per_goal[headline], declined), kinds, touched)
    return {"mode": "isolated", "metric": headline, **out, "errors": breakdown}


def _with_declines(per_goal: dict[EpisodeId, PerGoal], declined: dict[EpisodeId, PerGoal]) -> dict[EpisodeId, PerGoal]:
    """On a decline goal (one the scenario makes impossible), right is declining right."""
    out = dict(per_goal)
    for key, verdicts in declined.items():
        if key in out:
            out[key] = [d if d is not None else v for v, d in zip(out[key], verdicts, strict=False)]
    return out


def _table(per_goal: dict[EpisodeId, PerGoal], touched: Touched, scenarios: Mapping[str, Scenario]) -> dict[str, Any]:
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])  # before, after, goals
    by_task: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0, 0.0]))
    unpaired: dict[str, int] = defaultdict(int)  # stressed episodes left out: no scored baseline, or not scored
    for (task_id, trial, variant, user), after in per_goal.items():
        if not variant:
            continue
        before = per_goal.get(EpisodeId(task_id, trial, "", user))
        goals = touched(task_id, variant)
        if before is None or goals is None or not before or not after:
            unpaired[variant] += 1  # a failed episode has no per-goal values: stated, never averaged in
            continue
        for t in goals:
            b, a = (before[t] if t < len(before) else None), (after[t] if t < len(after) else None)
            if b is not None and a is not None:
                _add(sums[variant], [b, a, 1])
                _add(by_task[variant][task_id], [b, a, 1])
    by_scenario = [
        {**_row(name, scenarios.get(name), *values), **_paired(by_task[name])} for name, values in sorted(sums.items())
    ]
    by_type: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    type_by_task: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0, 0.0]))
    by_operator: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])  # + scenarios
    for name, values in sums.items():
        scenario = scenarios.get(name)
        kind = scenario.type if scenario is not None else name
        _add(by_type[kind], values)
        for task_id, task_values in by_task[name].items():
            _add(type_by_task[kind][task_id], task_values)
        if scenario is not None and "op" in scenario.params:
            op = by_operator[(scenario.type, str(scenario.params["op"]))]
            _add(op, values)
            op[3] += 1
    return {
        "by_type": [
            {**_row(kind, None, *values), **_paired(type_by_task[kind])} for kind, values in sorted(by_type.items())
        ],
        "by_scenario": by_scenario,
        "by_operator": [
            {**_row(op, None, b, a, n), "type": kind, "scenarios": int(count)}
            for (kind, op), (b, a, n, count) in sorted(by_operator.items())
        ],
        "unpaired_episodes": dict(sorted(unpaired.items())),
    }


def _beside(table: dict[str, Any], core: dict[str, Any]) -> None:
    """Core API accuracy beside the headline metric, row by row (``core``: its before, after and goals)."""
    for part in ("by_type", "by_scenario", "by_operator"):
        rows = {(r.get("type"), r["name"]): r for r in core[part]}
        for row in table[part]:
            if (other := rows.get((row.get("type"), row["name"]))) is not None:
                row["core"] = {"before": other["before"], "after": other["after"], "goals": other["turns"]}


def _paired(per_task: Mapping[str, list[float]]) -> dict[str, tuple[float, float] | None]:
    """Intervals of the row's degradation and retention: tasks resampled with their baseline and stressed turns
    together (``judges.common.stats.paired_cluster_bootstrap``). In task order: the store's score order differs from
    run to
    run (episodes finish in any order), and the seeded bootstrap must not."""
    return paired_cluster_bootstrap([(b, a, n) for b, a, n in (per_task[t] for t in sorted(per_task))])


def _add(totals: list[float], values: list[float]) -> None:
    for i, v in enumerate(values):
        totals[i] += v


def _row(name: str, scenario: Scenario | None, before_sum: float, after_sum: float, turns: float) -> dict[str, Any]:
    if not turns:
        return {"name": name, "turns": 0, "before": None, "after": None, "degradation": None, "retention": None}
    before, after = before_sum / turns, after_sum / turns
    return {
        "name": name,
        **({"type": scenario.type, "level": scenario.level} if scenario is not None else {}),
        **({"op": str(scenario.params["op"])} if scenario is not None and "op" in scenario.params else {}),
        "turns": int(turns),
        "before": round(before, 4),
        "after": round(after, 4),
        "degradation": round(before - after, 4),
        "retention": round(after / before, 4) if before else None,
    }
