"""Helpers the specification-level stressors share: copy-on-write edits of specs and of gold paths.

Specs and tasks are shared by every episode, so nothing here edits in place: a changed spec is rebuilt from
``thaw(spec.parameters)``, a changed turn from ``model_copy``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim.core import GoldCall, Task, ToolSpec
from sim.core.frozen import thaw

PathEdit = Callable[[int, list[GoldCall]], list[GoldCall]]
"""(turn index, one solution path) -> the path to keep (the same list object when nothing changed)."""


def rewrite_paths(task: Task, edit: PathEdit) -> Task:
    """The task with every solution path (primary and alternatives) of every turn passed through ``edit``."""
    turns = []
    changed = False
    for i, turn in enumerate(task.goals):
        gold = edit(i, list(turn.gold))
        alternatives = [edit(i, list(path)) for path in turn.alternatives]
        if gold != turn.gold or alternatives != turn.alternatives:
            changed = True
            turn = turn.model_copy(update={"gold": gold, "alternatives": alternatives})
        turns.append(turn)
    return task.model_copy(update={"goals": turns}) if changed else task


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
