"""A share of the tool universe (the API-styles study's ablation, seed 002 §4.3.2 and C.2): each goal offers only
``share`` of the tools it would otherwise offer, always including the ones its gold calls.

The study's "best-effort shortlister" keeps the ground-truth tools and fills the candidate set with random others
up to 10/25/50/75% of the original size. Here the universe is what the goal would offer without this stressor: in
a SEL world its database's functions (``Goal.tools``), in a per-question or REST world every function. The shortlist
holds ``max(ceil(share × universe), needed)`` tools: every tool on any solution path of the goal (primary and
backup, so an outage still has its way round), then others drawn by a generator seeded with the episode's seed
and the goal, so a rerun offers the same tools and each trial of a task its own draw. Every tool offered counts in
the universe, an earlier stressor's added ones too. Gold is untouched: the oracle still scores 1.0.

Row param: ``share``, a fraction in (0, 1].
"""

from __future__ import annotations

import math
import random
from typing import Any

from sim.core import Task, ToolSpec
from worlds.stressors.scenario import Scenario, ScenarioStressor


class ToolUniverse(ScenarioStressor):
    """Offers each goal a seeded shortlist of ``share`` of its tools, the gold ones always among them."""

    def __init__(self, scenario: Scenario, seed: int, overrides: dict[str, Any] | None = None) -> None:
        super().__init__(scenario, seed, overrides)
        self.share = share_of(self.name, self.params)
        self.seed = seed
        self.needed: dict[int, frozenset[str]] = {}
        self.shortlists: dict[tuple[int, tuple[str, ...]], frozenset[str]] = {}
        """(goal, the names offered) -> the names kept: the same shortlist however often the runtime asks."""

    @classmethod
    def check_row(cls, scenario: Scenario) -> None:
        share_of(scenario.name, scenario.params)

    def on_task(self, task: Task) -> Task:
        self.needed = {g: frozenset(c.name for path in goal.paths() for c in path) for g, goal in enumerate(task.goals)}
        return task

    def on_tools(self, goal: int, specs: list[ToolSpec]) -> list[ToolSpec]:
        names = tuple(s.name for s in specs)
        key = (goal, names)
        if key not in self.shortlists:
            self.shortlists[key] = shortlist(names, self.needed.get(goal, frozenset()), self.share, self._rng(goal))
        kept = self.shortlists[key]
        return [s for s in specs if s.name in kept]

    def _rng(self, goal: int) -> random.Random:
        return random.Random(f"{self.name}:{self.seed}:{goal}")


def shortlist(names: tuple[str, ...], needed: frozenset[str], share: float, rng: random.Random) -> frozenset[str]:
    """The needed names among ``names``, then seeded others up to ``ceil(share × len(names))`` in all."""
    gold = [n for n in names if n in needed]
    others = [n for n in names if n not in needed]
    size = max(math.ceil(share * len(names)), len(gold))
    return frozenset(gold + rng.sample(others, min(len(others), size - len(gold))))


def share_of(name: str, params: dict[str, Any]) -> float:
    value = params.get("share")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ValueError(f"{name}: share must be a fraction in (0, 1], got {value!r}")
    return float(value)


STRESSOR = ToolUniverse
