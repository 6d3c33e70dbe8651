"""Goals nothing can do any more: what the outage and missing-function stressors make of a task's gold."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence

from sim.core import Goal, GoldCall, Task


def task_drawn(task_id: str, scenario: str, rate: float) -> bool:
    """Whether a per-task ``rate`` (the share of tasks an outage or missing function acts on) picks this task: a
    hash of the scenario and the task id, not the episode's seed, so every trial of a task meets the same condition
    and the isolated plan and summary know which tasks it touched."""
    if rate >= 1:
        return True
    digest = hashlib.sha256(f"{scenario}:{task_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") < rate * 2**64


def uses(paths: list[list[GoldCall]], names: Collection[str]) -> bool:
    """Some call on some of the paths is to one of ``names``."""
    return any(c.name in names for path in paths for c in path)


def declined(goal: Goal, reply: str, criteria: Sequence[str] = ()) -> Goal:
    """The goal as a decline goal: nothing that acts is right, on either side (dual control: the user's acts served
    the plan that can no longer run, and an agent that declines asks for none); ``reply`` is a good answer,
    ``criteria`` what the error-handling judge checks in the agent's."""
    return goal.model_copy(
        update={
            "gold": [],
            "alternatives": [],
            "user_gold": [],
            "outcome": "decline",
            "gold_answer": None,
            "answer": None,  # the goal's exact answer is unreachable now: a good reply gives none
            "reference_response": reply,
            "criteria": list(criteria),
        }
    )


def without_paths_through(
    task: Task, start: int, names: Collection[str], reply: str, criteria: Sequence[str] = ()
) -> Task:
    """From goal ``start`` on, solution paths through any of ``names`` dropped; a goal left with none declines."""
    goals = list(task.goals[:start])
    for goal in task.goals[start:]:
        paths = goal.paths()
        alive = [p for p in paths if not uses([p], names)]
        if len(alive) == len(paths):
            goals.append(goal)
        elif alive:
            goals.append(goal.model_copy(update={"gold": alive[0], "alternatives": alive[1:]}))
        else:
            goals.append(declined(goal, reply, criteria))
    return task.model_copy(update={"goals": goals})
