"""Stressor-mode isolated: what went wrong, per condition (the baseline and each stressor), in the study's error types.

Seed 004 breaks failures down by type (wrong function, wrong argument value, missing/extra argument, no call, extra
call...). Per condition, the goals with a verdict of the table's headline metric, those that failed (value below
1), and each failed goal's one error type (``judges.bfcl.error_kinds``: from the AST judges' codes); ``new``: the
failed goals that passed in their baseline episode (the failures the stressor caused, which the study breaks down).
The baseline covers every goal of the unstressed episodes; a stressor the goals it touches, as its table row does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from judges.bfcl.error_kinds import KINDS
from sim.core import EpisodeId

PerGoal = list[float | None]
Touched = Callable[[str, str], list[int] | None]
"""(task id, variant) -> the goals the variant touches in that task; None for a task the world no longer has."""
BASELINE = "baseline"


class _Condition:
    def __init__(self) -> None:
        self.goals = 0
        self.failed = 0
        self.new = 0
        self.kinds: Counter[str] = Counter()

    def add(self, value: float, kind: str | None, passed_before: bool) -> None:
        self.goals += 1
        if value < 1:
            self.failed += 1
            self.new += passed_before
            self.kinds[kind or "unknown"] += 1

    def row(self, name: str) -> dict[str, Any]:
        order = [*KINDS, "unknown"]
        return {
            "condition": name,
            "goals": self.goals,
            "failed": self.failed,
            "new_failures": self.new,
            "kinds": {k: self.kinds[k] for k in order if self.kinds[k]},
        }


def error_breakdown(
    per_goal: Mapping[EpisodeId, PerGoal], kinds: Mapping[EpisodeId, Mapping[int, str]], touched: Touched
) -> list[dict[str, Any]]:
    """One row per condition, the baseline first, then the stressors by name."""
    conditions: dict[str, _Condition] = {}
    for key, values in per_goal.items():
        task_id, trial, variant, user = key
        if not variant:
            goals: list[int] | None = list(range(len(values)))
            before: PerGoal = []
        else:
            goals = touched(task_id, variant)
            before = per_goal.get(EpisodeId(task_id, trial, "", user)) or []
        for g in goals or ():
            value = values[g] if g < len(values) else None
            if value is None:
                continue
            passed_before = g < len(before) and before[g] == 1
            kind = kinds.get(key, {}).get(g)
            conditions.setdefault(variant or BASELINE, _Condition()).add(value, kind, passed_before)
    names = sorted(conditions, key=lambda n: (n != BASELINE, n))
    return [conditions[n].row(n) for n in names]
