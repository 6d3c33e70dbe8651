"""Which goals of a task a scenario can touch: where its effect is measured, before and after."""

from __future__ import annotations

from sim.core import Task
from worlds.stressors.catalog import stressor_class
from worlds.stressors.scenario import Scenario


def affected_goals(task: Task, scenario: Scenario | None) -> list[int]:
    """Goals any of whose gold paths calls one of the scenario's tools (every goal for a '*' scenario), unless its
    type knows better (a classmethod ``affected_goals(task, scenario)``: the goals an outage or a missing function
    picks for this task; a drift row's goals from its ``from_goal``, an auto one's only for the tool it picks). An
    unknown scenario (a variant no row names any more) touches nothing."""
    if scenario is None:
        return []
    own = getattr(stressor_class(scenario.type), "affected_goals", None)
    if own is not None:
        return list(own(task, scenario))
    goals = []
    for g, goal in enumerate(task.goals):
        names = {call.name for path in goal.paths() for call in path}
        if "*" in scenario.tools or names & set(scenario.tools):
            goals.append(g)
    return goals
