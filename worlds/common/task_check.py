"""Static checks every world runs on its tasks when it loads them; execution is ``worlds.gold_check``'s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sim.core import Task
from worlds.common.arguments import ArgumentChecker


def check_tasks_static(tasks: Sequence[Task], world: str, checkers: Mapping[str, ArgumentChecker]) -> None:
    """Ids unique, every task for ``world``, every gold call a well-formed call of one of its tools, every goal's
    tool list (``Goal.tools``) names of its tools that keep the goal's gold callable, every free argument
    (``Goal.free_arguments``) an optional parameter of a tool the goal's gold calls.
    Raises ValueError naming the task, goal, field or path and call."""
    seen: set[str] = set()
    for task in tasks:
        if task.id in seen:
            raise ValueError(f"duplicate task id {task.id}")
        seen.add(task.id)
        if task.world != world:
            raise ValueError(f"task {task.id}: world is '{task.world}', not '{world}'")
        for t, turn in enumerate(task.goals):
            _check_goal_tools(task, t, world, checkers)
            _check_free_arguments(task, t, checkers)
            for p, path in enumerate(turn.paths()):
                for c, call in enumerate(path):
                    where = f"task {task.id}: turns.{t} path {p} call {c} ({call.name})"
                    checker = checkers.get(call.name)
                    if checker is None:
                        raise ValueError(f"{where}: no such tool in {world}")
                    problem = checker.problems(call.arguments)
                    if problem is not None:
                        raise ValueError(f"{where}: {problem[1]}")


def _check_goal_tools(task: Task, g: int, world: str, checkers: Mapping[str, ArgumentChecker]) -> None:
    goal = task.goals[g]
    if goal.tools is None:
        return
    where = f"task {task.id}: goals.{g}.tools"
    unknown = [name for name in goal.tools if name not in checkers]
    if unknown:
        raise ValueError(f"{where}: no such tool in {world}: {', '.join(unknown)}")
    offered = set(goal.tools)
    for p, path in enumerate(goal.paths()):
        left_out = sorted({call.name for call in path} - offered)
        if left_out:
            raise ValueError(f"{where}: leaves out {', '.join(left_out)}, which path {p} of the goal calls")


def _check_free_arguments(task: Task, g: int, checkers: Mapping[str, ArgumentChecker]) -> None:
    """A free argument must be one the gold's tools take and do not require: a typo would leave constrained an
    argument the author meant free, and a required one is never free (no call can leave it out)."""
    goal = task.goals[g]
    if not goal.free_arguments:
        return
    schemas = {c.name: checkers[c.name].schema for p in goal.paths() for c in p if c.name in checkers}
    for entry in goal.free_arguments:
        where = f"task {task.id}: goals.{g}.free_arguments: '{entry}'"
        qualified = [(tool, entry[len(tool) + 1 :]) for tool in schemas if entry.startswith(f"{tool}.")]
        pairs = [(tool, param) for tool, param in qualified or [(t, entry) for t in schemas]]
        taking = [(tool, param) for tool, param in pairs if param in (schemas[tool].get("properties") or {})]
        if not taking:
            raise ValueError(f"{where}: no argument of the tools the goal's gold calls ({', '.join(sorted(schemas))})")
        required = [tool for tool, param in taking if param in (schemas[tool].get("required") or [])]
        if required:
            raise ValueError(f"{where}: required by {', '.join(required)}, so always constrained")
