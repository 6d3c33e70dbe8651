"""Which goals of a task a scenario can touch: where its effect is measured, before and after."""

from __future__ import annotations

from sim.core import Task
from worlds.stressors.catalog import stressor_class
from worlds.stressors.scenario import WHOLE_TASK_TYPES, Scenario

GOLD_MET_TYPES = frozenset({"adhoc", "dependency", "limitation"})
"""Types an agent meets only by making a call their rewritten gold makes differently (a format, a prerequisite, a
value the service no longer takes): a goal whose gold they leave as it was is one they do not touch (a limitation
whose ``when`` no gold call meets, a prerequisite an earlier goal already made, an argument the format leaves out).
"""


def affected_goals(task: Task, scenario: Scenario | None) -> list[int]:
    """The goals the scenario touches, from the row as the run's parameters made it (``catalog.effective``):
    - a type that knows them (a classmethod ``affected_goals(task, scenario)``): the goals an outage can cut or a
      missing function takes, a drift row's goals from its ``from_goal`` (an auto one's only for the tool it picks);
    - ``GOLD_MET_TYPES``: the goals whose solution paths its ``on_task`` rewrites;
    - a whole-task type (perturb, expand, search): every goal;
    - any other: the goals a gold path of which calls one of its tools (any tool for a '*' row: a goal without a
      call is one no notice, failure or sponsored entry can reach).
    An unknown scenario (a variant no row names any more) touches nothing."""
    if scenario is None:
        return []
    kind = stressor_class(scenario.type)
    own = getattr(kind, "affected_goals", None)
    if own is not None:
        return list(own(task, scenario))
    if scenario.type in GOLD_MET_TYPES:
        stressed = kind(scenario, 0).on_task(task)  # these rewrites read the task alone, never the seed
        return [g for g, (a, b) in enumerate(zip(task.goals, stressed.goals, strict=True)) if a.paths() != b.paths()]
    if "*" in scenario.tools and scenario.type in WHOLE_TASK_TYPES:
        return list(range(len(task.goals)))
    goals = []
    for g, goal in enumerate(task.goals):
        names = {call.name for path in goal.paths() for call in path}
        if names & set(scenario.tools) or ("*" in scenario.tools and names):
            goals.append(g)
    return goals
