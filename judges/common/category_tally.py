"""Passed and played episodes per task, per benchmark category: what a per-category accuracy with a task-cluster
interval is computed from (the BFCL judges' summaries share it)."""

from __future__ import annotations

from collections.abc import Mapping

TaskTally = dict[str, list[int]]
"""task id -> [episodes passed, episodes played]."""


class CategoryTally:
    def __init__(self) -> None:
        self.by_category: dict[str, TaskTally] = {}

    def add(self, category: str, task_id: str, passed: bool) -> None:
        tally = self.by_category.setdefault(category, {}).setdefault(task_id, [0, 0])
        tally[0] += passed
        tally[1] += 1

    def __bool__(self) -> bool:
        return bool(self.by_category)

    def categories(self) -> list[tuple[str, TaskTally]]:
        return sorted(self.by_category.items())

    def every(self) -> TaskTally:
        """Every category's tasks together, keyed ``category/task`` (task ids need not be unique across categories)."""
        return {f"{c}/{t}": v for c, tasks in self.by_category.items() for t, v in tasks.items()}


def totals(by_task: Mapping[str, list[int]]) -> tuple[int, int]:
    """(episodes passed, episodes played) over the tasks."""
    return sum(p for p, _ in by_task.values()), sum(n for _, n in by_task.values())
