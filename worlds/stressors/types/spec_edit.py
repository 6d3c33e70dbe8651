"""Helpers the specification-level stressors share: copy-on-write edits of specs and of gold paths.

Specs and tasks are shared by every episode, so nothing here edits in place: a changed spec is rebuilt from
``thaw(spec.parameters)``, a changed goal from ``model_copy``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim.core import GoldCall, Task, ToolSpec
from sim.core.frozen import thaw

PathEdit = Callable[[int, list[GoldCall]], list[GoldCall]]
"""(goal index, one solution path) -> the path to keep (the same list object when nothing changed)."""


def rewrite_paths(task: Task, edit: PathEdit) -> Task:
    """The task with every solution path (primary and alternatives) of every goal passed through ``edit``."""
    goals = []
    changed = False
    for g, goal in enumerate(task.goals):
        gold = edit(g, list(goal.gold))
        alternatives = [edit(g, list(path)) for path in goal.alternatives]
        if gold != goal.gold or alternatives != goal.alternatives:
            changed = True
            goal = goal.model_copy(update={"gold": gold, "alternatives": alternatives})
        goals.append(goal)
    return task.model_copy(update={"goals": goals}) if changed else task


def edit_spec(
    spec: ToolSpec, description: str | None = None, properties: Callable[[dict[str, Any]], None] | None = None
) -> ToolSpec:
    """A copy of ``spec`` with a new description and/or its parameter properties edited on a thawed copy."""
    update: dict[str, Any] = {}
    if description is not None:
        update["description"] = description
    if properties is not None:
        parameters: dict[str, Any] = thaw(spec.parameters)
        properties(parameters.setdefault("properties", {}))
        update["parameters"] = parameters
    return spec.model_copy(update=update)
