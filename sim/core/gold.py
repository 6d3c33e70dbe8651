"""What calibration agents know and agents under test must not: the episode's gold.

The runtime every agent sees carries no task: an agent under test learns the task from the user, as a deployed
one would. Calibration agents (the oracle, the naive replay) are handed an ``EpisodeGold`` by their factory
(``sim.core.protocols.AgentFactory``) instead, so what an agent can read is decided where it is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sim.core.task import Goal, Task


def _first_goal() -> int:
    return 0


@dataclass(frozen=True)
class EpisodeGold:
    """One episode's gold: the task as the episode runs it and as it was written, and the goal the user is on."""

    task: Task
    """The task after the stressors' ``on_task`` rewrites: what the judges score against."""
    unstressed: Task
    """The task before any stressor rewrote it (formats, prerequisites, declines)."""
    goal_now: Callable[[], int] = _first_goal
    """The 0-based index of the task goal the user is pursuing now; the episode loop answers it (the user, not the
    agent, decides when a goal is done)."""

    @property
    def goal(self) -> int:
        return self.goal_now()

    def current(self) -> Goal:
        """The stressed goal the user is pursuing now."""
        return self.task.goals[self.goal]

    def current_unstressed(self) -> Goal:
        """The same goal as written, before the stressors."""
        return self.unstressed.goals[self.goal]
