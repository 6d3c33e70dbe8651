"""External failures: the function the agent picks goes down, with or without a way around it.

``mode: backup`` — the first function of the task's solution sets the agent calls goes down (503, "try a
different function") for the rest of the episode. Only a function the task can live without is taken: in every
goal whose primary path uses it as a core call it must be that path's first core call, and another path must
avoid it. So the outage is always survivable, and the agent is scored on finding the backup plan.

``mode: impossible`` — at the task's last goal with core calls every core function on every solution path of that
goal is down: nothing the agent can call does it, and the goal becomes a ``decline`` goal (gold: nothing that acts).
The last one because later goals were written against the state the earlier ones leave: after a goal that did
nothing, a later acting goal might fail for reasons no outage explains. Measures whether the agent gives up, and how
soon, instead of looping on a dead service.

``rate`` (the row's ``probability``, 1.0) is the share of tasks the outage acts on, drawn by task id
(``decline.task_drawn``). ``outage.impossible`` is in no group (``by_name_only``): on a one-question world it would
make every question impossible, so a run asks for it by name.

The choice depends on the task alone (not the episode's seed), so every trial of a task meets the same
condition and the isolated summary knows which goals it touched.
"""

from __future__ import annotations

from typing import Any

from sim.core import CallContext, CallNext, CallOutcome, GoldCall, Task, ToolCall, failure
from worlds.stressors.decline import task_drawn, uses, without_paths_through
from worlds.stressors.scenario import Scenario, ScenarioStressor

MODES = ("backup", "impossible")
DECLINE_REPLY = (
    "I'm sorry, I can't do that right now: the service it needs is unavailable, and nothing else I can use does "
    "it. Please try again later."
)


class Outage(ScenarioStressor):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.mode = str(self.params.get("mode", "backup"))
        if self.mode not in MODES:
            raise ValueError(f"{self.name}: unknown outage mode '{self.mode}' (one of {', '.join(MODES)})")
        self.eligible: frozenset[str] = frozenset()  # backup: functions that may go down at their first call
        self.down: set[str] = set()
        self.from_goal = 0

    def on_task(self, task: Task) -> Task:
        if not task_drawn(task.id, self.name, self.probability):
            return task
        if self.mode == "backup":
            self.eligible = frozenset(survivable_functions(task))
            return task
        picked = impossible_goal(task)
        if picked is None:
            return task
        self.from_goal, dead = picked
        self.down = set(dead)
        return without_paths_through(task, self.from_goal, dead, DECLINE_REPLY, self.scenario.criteria)

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        if self.mode == "backup" and not self.down and call.name in self.eligible:
            self.down.add(call.name)
        if call.name in self.down and ctx.goal >= self.from_goal:
            message = f"503 Service Unavailable: {call.name} is currently unavailable. Try a different function."
            return CallOutcome.answered(failure(call, "unavailable", "service_unavailable", message), self.name)
        return await next(call)

    @classmethod
    def affected_goals(cls, task: Task, scenario: Scenario) -> list[int]:
        """The goals with a path the outage can cut. backup: goals a path of which calls a function that may go
        down (a task without a backup path has none: nothing ever goes down); impossible: the goals it makes
        impossible or takes a path from."""
        if not task_drawn(task.id, scenario.name, scenario.probability):
            return []
        if scenario.params.get("mode", "backup") == "backup":
            eligible = survivable_functions(task)
            return [g for g, goal in enumerate(task.goals) if uses(goal.paths(), eligible)]
        picked = impossible_goal(task)
        if picked is None:
            return []
        start, dead = picked
        return [g for g in range(start, len(task.goals)) if uses(task.goals[g].paths(), dead)]


def survivable_functions(task: Task) -> set[str]:
    """Core functions of the task whose loss leaves every goal that needs them another path."""
    candidates = {c.name for goal in task.goals for c in goal.gold if c.role == "core"}
    return {name for name in candidates if all(_goal_survives(goal.paths(), name) for goal in task.goals)}


def _goal_survives(paths: list[list[GoldCall]], name: str) -> bool:
    """The goal does not need ``name``, or can do without it and loses nothing by trying it first.

    Where the primary path uses it, it must be that path's first core call: otherwise an agent on the
    primary path would already have made core calls the backup path does not share.
    """
    primary_core = [c.name for c in paths[0] if c.role == "core"]
    if name not in primary_core:
        return True
    others_avoid = any(all(c.name != name for c in path) for path in paths[1:])
    return others_avoid and primary_core[0] == name


def backup_lengths(task: Task) -> dict[int, tuple[int, int]]:
    """goal -> (calls on its primary path, calls on its backup path) for the goals a backup outage cuts on their
    primary path: the path's first core call may go down, and the backup is the first other path that avoids it
    (the one the oracle takes). Seed 001 reports this length beside recovery: a longer way round is harder."""
    eligible = survivable_functions(task)
    out: dict[int, tuple[int, int]] = {}
    for g, goal in enumerate(task.goals):
        paths = goal.paths()
        core = [c.name for c in paths[0] if c.role == "core"]
        if not core or core[0] not in eligible:
            continue
        backup = next((p for p in paths[1:] if all(c.name != core[0] for c in p)), None)
        if backup is not None:
            out[g] = (len(paths[0]), len(backup))
    return out


def impossible_goal(task: Task) -> tuple[int, frozenset[str]] | None:
    """(goal, the functions to take down): the last goal with core calls, and every core function of its paths
    (lookups stay up: only what does the work goes down)."""
    acting = [g for g, goal in enumerate(task.goals) if any(c.role == "core" for c in goal.gold)]
    if not acting:
        return None
    return acting[-1], frozenset(c.name for path in task.goals[acting[-1]].paths() for c in path if c.role == "core")


STRESSOR = Outage
