"""Which turns of a task a scenario can touch: where its effect is measured, before and after."""

from __future__ import annotations

from sim.core import Task
from worlds.stressors.scenario import Scenario


def affected_turns(task: Task, scenario: Scenario | None) -> list[int]:
    """Turns any of whose gold paths calls one of the scenario's tools (every turn for a '*' scenario);
    for the outage (None), turns with a core call, since it takes down whichever function is called first. A drift
    row counts from its ``from_turn``, and an auto one ('*') only the tool it picks for this task (none: no turn)."""
    if scenario is not None and scenario.type == "drift":
        from worlds.stressors.types.drift_auto import drifted_turns  # the pick needs the world's specs: lazily

        return drifted_turns(task, scenario)
    turns = []
    for t, turn in enumerate(task.turns):
        names = {call.name for path in turn.paths() for call in path}
        if scenario is None:
            hit = any(c.role == "core" for c in turn.gold)
        else:
            hit = "*" in scenario.tools or bool(names & set(scenario.tools))
        if hit:
            turns.append(t)
    return turns
