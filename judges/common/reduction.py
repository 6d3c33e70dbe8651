"""How a judge's verdicts reduce over a run: the base every judge's summary part derives from.

A reduction turns the newest ``Score`` of its judge on one episode into a few numbers (its verdict type, kept per
episode while the scores stream: never the Score itself), sums those verdicts over the scored episodes, and gives
its keys of ``summary.json``, its rows of the reports' headline table and any tables of its own. The summary
(``judges.run.metrics.summarize``) and the reports loop over the registered reductions (``judges.registry``); they never
name a judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

from judges.common.summary_view import Section
from sim.core import Score

V = TypeVar("V")


class EpisodeFacts(NamedTuple):
    """What a reduction may know of a scored episode besides its judge's verdict."""

    task_id: str
    trial: int
    has_decline_goal: bool  # the task as run has a goal that tests giving up
    failed_goals: int  # bit g set: in goal g the agent saw a failed result of its own call (injected or real)


class RunFacts(NamedTuple):
    """What a reduction may know of the whole run when it gives its keys."""

    trials: int  # trials per task (the highest trial index + 1 over every episode, failed ones included)
    scored_trials: tuple[int, ...]  # trials of the scored episodes that have a verdict, in order


class Reduction(Generic[V]):
    """One judge's part of the run summary. Subclasses set ``judge`` and ``label`` and override ``verdict``,
    ``add`` and ``result``; ``rows``, ``notes``, ``sections`` and ``per_trial`` are optional."""

    judge: ClassVar[str]
    """The judge's name (``Score.judge``) whose verdicts this reduces."""
    label: ClassVar[str]
    """The headline's name for the judge's main number."""

    def verdict(self, score: Score) -> V | None:
        """The few numbers the summary keeps of the newest score on one episode; None: no verdict to add."""
        raise NotImplementedError

    def add(self, verdict: V, episode: EpisodeFacts) -> None:
        """Sum one scored episode's verdict."""
        raise NotImplementedError

    def result(self, run: RunFacts) -> dict[str, Any]:
        """This judge's keys of ``summary.json`` (top-level, as they always were)."""
        raise NotImplementedError

    def per_trial(self, trial: int) -> float | None:
        """The judge's rate over one trial's episodes, for the spread over trials; None where it has none."""
        return None

    @classmethod
    def has_per_trial(cls) -> bool:
        return cls.per_trial is not Reduction.per_trial

    @staticmethod
    def rows(summary: Mapping[str, Any]) -> list[list[str]]:
        """Rows of the headline table, [metric, value, 95% CI, over], read from the flattened summary (a stored
        one included: a key may be missing)."""
        return []

    @staticmethod
    def notes(summary: Mapping[str, Any]) -> list[str]:
        """Lines under the headline table."""
        return []

    @staticmethod
    def sections(summary: Mapping[str, Any]) -> list[Section]:
        """Tables of the judge's own, after the run's stressor and user tables."""
        return []
