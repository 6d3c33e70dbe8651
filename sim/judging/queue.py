"""Judging in its own bounded queue, apart from the episode slots.

An episode's slot is free as soon as its trace is produced: the trace goes into this queue and the slot
takes the next spec. The queue's own workers judge each trace and hand the scores on (to the store
writer, then the progress callback). The queue is bounded: when judging falls behind, producers wait —
memory follows what is in flight and queued, never what is done.

Where judges run (measured on smart_home, 2 cores): the exact-match judges cost ~1.2-1.8 ms of CPU per episode
(``python -m sim.bench.judging``, 2026-11-27, the default judge set), pure Python — a thread would hold the GIL just
the same; the embedding matcher costs ≥3.6 ms per episode with warm caches and far more for new texts, in numpy
(``sim.core.minilm``), whose matrix products release the GIL — so it runs on a judge thread with its own event loop,
and the run's loop stays free. ``in_thread`` picks (``sim.judging.judge_set.judges_in_thread``). A judge that needs
the run's event loop (an LLM judge on the gateway) belongs on the loop: it awaits, it does not compute.

Faults are as before: a judge that raises gives a judge-fault Score (``sim.judging.judge_set.judge``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Self

from sim.core import EpisodeResult, Judge, Score
from sim.judging.judge_set import judge

OnScored = Callable[[EpisodeResult, list[Score], bool], Awaitable[None]]
"""Called in queue order per worker with (episode, its scores, fresh): fresh is False for a stored episode
that resume is judging again."""


@dataclass(frozen=True)
class _Job:
    result: EpisodeResult
    judges: tuple[Judge, ...]
    fresh: bool


class JudgeThread:
    """A thread running its own event loop, for judges whose work would stall the run's loop."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="squall-judges", daemon=True)
        self._thread.start()

    async def judge(self, result: EpisodeResult, judges: list[Judge], score_set: str) -> list[Score]:
        future = asyncio.run_coroutine_threadsafe(judge(result, judges, score_set), self._loop)
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


class JudgeQueue:
    """``async with JudgeQueue(...) as q: await q.put(result)``; leaving the block waits until every queued
    episode is judged and handed on (or, on an error or cancellation, stops the workers at once: what was
    stored and not yet judged is judged by the next resume)."""

    def __init__(
        self,
        judges: list[Judge],
        score_set: str,
        on_scored: OnScored,
        *,
        in_thread: bool = False,
        workers: int = 2,
        max_queued: int = 256,
    ) -> None:
        self.judges = tuple(judges)
        self.score_set = score_set
        self._on_scored = on_scored
        self._in_thread = in_thread
        self._workers = max(1, workers)
        self._queue: asyncio.Queue[_Job] = asyncio.Queue(max(1, max_queued))
        self._tasks: list[asyncio.Task[None]] = []
        self._thread: JudgeThread | None = None
        self._error: BaseException | None = None
        self.judged = 0

    async def __aenter__(self) -> Self:
        if self._in_thread:
            self._thread = JudgeThread()
        self._tasks = [asyncio.create_task(self._work(), name=f"judge-{i}") for i in range(self._workers)]
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if exc is None:
                await self.join()
        finally:
            await self._stop()

    async def put(self, result: EpisodeResult, judges: list[Judge] | None = None, *, fresh: bool = True) -> None:
        """Queue an episode for judging (by ``judges``, default all); waits while the queue is full."""
        self._check()
        job = _Job(result, self.judges if judges is None else tuple(judges), fresh)
        try:
            self._queue.put_nowait(job)  # the common case: room, no wait
        except asyncio.QueueFull:
            await self._until(asyncio.ensure_future(self._queue.put(job)))

    async def join(self) -> None:
        """Wait until everything queued is judged and handed on; raises a worker's error."""
        await self._until(asyncio.ensure_future(self._queue.join()))

    @property
    def queued(self) -> int:
        return self._queue.qsize()

    async def _until(self, waiting: asyncio.Future[None]) -> None:
        """Await ``waiting`` unless a worker fails first (then raise its error, not hang)."""
        if not self._tasks:
            waiting.cancel()
            raise RuntimeError("JudgeQueue is not open")
        try:
            await asyncio.wait([waiting, *self._tasks], return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not waiting.done():
                waiting.cancel()
        self._check()

    def _check(self) -> None:
        if self._error is not None:
            raise self._error
        for task in self._tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                self._error = task.exception()
                raise self._error  # type: ignore[misc]

    async def _work(self) -> None:
        while True:
            job = await self._queue.get()
            try:
                if self._thread is not None:
                    scores = await self._thread.judge(job.result, list(job.judges), self.score_set)
                else:
                    scores = await judge(job.result, list(job.judges), self.score_set)
                await self._on_scored(job.result, scores, job.fresh)
                self.judged += 1
            finally:
                self._queue.task_done()

    async def _stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self._thread is not None:
            thread, self._thread = self._thread, None
            await asyncio.to_thread(thread.close)
