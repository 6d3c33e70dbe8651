"""A cost ceiling (--max-cost): once the run's model calls have cost this much, no new episode is admitted."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from sim.episode.loop import EpisodeSpec
from sim.run.executors.base import Executor, ResultSink


class CostCeiling:
    """Wraps an executor: it takes specs only while ``cost()`` is under ``max_cost``; episodes in flight finish
    (stopping them would waste what they already cost). ``reached`` says what was spent when it stopped."""

    def __init__(self, inner: Executor, cost: Callable[[], float], max_cost: float) -> None:
        self._inner = inner
        self._cost = cost
        self.max_cost = max_cost
        self.reached: dict[str, float] | None = None

    @property
    def concurrency(self) -> int:
        return self._inner.concurrency

    async def run(self, todo: Iterator[EpisodeSpec], sink: ResultSink) -> None:
        await self._inner.run(self._until_spent(todo), sink)

    def _until_spent(self, todo: Iterator[EpisodeSpec]) -> Iterator[EpisodeSpec]:
        for spec in todo:
            spent = self._cost()
            if spent >= self.max_cost:
                self.reached = {"max_cost": self.max_cost, "spent": round(spent, 6)}
                return
            yield spec
