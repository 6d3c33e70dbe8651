"""Static checks every world runs on its tasks when it loads them; execution is ``worlds.gold_check``'s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sim.core import Task
from worlds.common.arguments import ArgumentChecker


def check_tasks_static(tasks: Sequence[Task], world: str, checkers: Mapping[str, ArgumentChecker]) -> None:
    """Ids unique, every task for ``world``, every gold call a well-formed call of one of its tools.
    Raises ValueError naming the task, turn, path and call."""
    seen: set[str] = set()
    for task in tasks:
        if task.id in seen:
            raise ValueError(f"duplicate task id {task.id}")
        seen.add(task.id)
        if task.world != world:
            raise ValueError(f"task {task.id}: world is '{task.world}', not '{world}'")
        for t, turn in enumerate(task.goals):
            for p, path in enumerate(turn.paths()):
                for c, call in enumerate(path):
                    where = f"task {task.id}: turns.{t} path {p} call {c} ({call.name})"
                    checker = checkers.get(call.name)
                    if checker is None:
                        raise ValueError(f"{where}: no such tool in {world}")
                    problem = checker.problems(call.arguments)
                    if problem is not None:
                        raise ValueError(f"{where}: {problem[1]}")
