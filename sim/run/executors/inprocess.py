"""In-process executor: a pool of worker tasks on this event loop, sharing one lazy iterator of specs."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

from sim.episode.loop import EpisodeSpec
from sim.run.executors.base import EpisodeRunner, ResultSink, first_error


class InProcessExecutor:
    """``concurrency`` worker tasks; each takes the next spec, plays it with ``run_one``, hands the trace to the
    sink and takes the next. A worker that fails (a sink error: the store cannot be written) cancels the rest."""

    def __init__(self, run_one: EpisodeRunner, concurrency: int) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self._run_one = run_one
        self._concurrency = concurrency

    @property
    def concurrency(self) -> int:
        return self._concurrency

    async def run(self, todo: Iterator[EpisodeSpec], sink: ResultSink) -> None:
        async def worker() -> None:
            # Workers share one lazy iterator: taking the next spec never awaits, so no spec is taken twice.
            for spec in todo:
                result = await self._run_one(spec)
                await sink(result)
                # Let the others run: an episode that never awaited I/O (the oracle) must not chain into the
                # next and hold the loop for a whole run; this bounds a stall to one episode's own CPU.
                await asyncio.sleep(0)

        # A TaskGroup cancels the other workers if one fails, so nothing keeps running unobserved.
        try:
            async with asyncio.TaskGroup() as tg:
                for _ in range(self._concurrency):
                    tg.create_task(worker())
        except BaseExceptionGroup as group:
            raise first_error(group) from None
